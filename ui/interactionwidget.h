#pragma once

// InteractionWidget: one question waiting for the person at the console, and the base of the
// widgets that answer it (approval, connect, confirm, choice, form). Shows what every question
// has: the tool, who asked (client, session), whether a call waits for the answer, a link to the
// call in the call log, and why an answer was refused. Answers leave as the `answered` signal, so
// the widgets work (and are tested) without a backend; the panel forwards them.

#include "pendinginteraction.h"

#include <QWidget>

#include <nlohmann/json.hpp>

class QHBoxLayout;
class QLabel;
class QPushButton;
class QVBoxLayout;

class InteractionWidget : public QWidget
{
    Q_OBJECT
public:
    explicit InteractionWidget(const PendingInteraction& interaction, QWidget* parent = nullptr);

    const PendingInteraction& interaction() const { return m_interaction; }
    QString interactionId() const { return m_interaction.id; }
    // Takes what changes while the question is open (the call that waits for it, whether one
    // does); what the person has typed or chosen stays.
    void setInteraction(const PendingInteraction& interaction);

    // True from sending an answer until it is refused (or the question leaves the panel).
    bool isSending() const { return m_sending; }
    QString errorText() const;

public Q_SLOTS:
    // The backend refused the answer (the question was resolved meanwhile, or the answer was not
    // well-formed): say why, and let the person answer again.
    void showAnswerFailed(const QString& error);

Q_SIGNALS:
    void answered(const QString& interactionId, const InteractionAnswer& answer);
    void showCallRequested(qint64 callId);

protected:
    // Where subclasses put their own part, between the header and the error line.
    QVBoxLayout* bodyLayout() const { return m_bodyLayout; }
    // The render spec as JSON (an empty object when it does not parse).
    const nlohmann::json& renderSpec() const { return m_renderSpec; }
    // A string member of the render spec, or an empty string.
    QString specString(const char* key) const;

    void sendAnswer(const InteractionAnswer& answer);
    // A client tool's answer: Respond with `output` as compact JSON.
    void respond(const nlohmann::json& output);
    // Whether the body takes the spare height (a list, a form, JSON) or sits at the top; default true.
    void setBodyExpands(bool expands);
    void showError(const QString& message);
    void clearError();
    // Adds the operator's prompt and the call's own question (client tools), when there are any.
    void addQuestionLabels();
    // A row of buttons, right-aligned after `leading`; returns the layout for further widgets.
    QHBoxLayout* addButtonRow(const QList<QPushButton*>& leading, const QList<QPushButton*>& trailing);

    static QLabel* captionLabel(const QString& text);
    static QLabel* valueLabel(const QString& text, const QString& objectName);

private:
    void updateHeader();
    void setSending(bool sending);

    PendingInteraction m_interaction;
    nlohmann::json m_renderSpec;
    bool m_sending = false;

    QLabel* m_kindLabel = nullptr;
    QLabel* m_toolLabel = nullptr;
    QLabel* m_toolNameLabel = nullptr;
    QLabel* m_clientLabel = nullptr;
    QLabel* m_sessionLabel = nullptr;
    QLabel* m_waitingLabel = nullptr;
    QLabel* m_earlierCallsLabel = nullptr;
    QPushButton* m_showCallButton = nullptr;
    QVBoxLayout* m_layout = nullptr;
    QWidget* m_body = nullptr;
    QVBoxLayout* m_bodyLayout = nullptr;
    QLabel* m_sendingLabel = nullptr;
    QLabel* m_errorLabel = nullptr;
};
