#pragma once

// InteractionWidget: one question waiting for the person at the console, and the base of the
// widgets that answer it (approval, connect, confirm, choice, form). Shows what every question
// has: the tool, who asked (client, session), whether a call waits for the answer, a link to the
// call in the call log, and why an answer was refused. Answers leave as the `answered` signal, so
// the widgets work (and are tested) without a backend; the panel forwards them.
//
// Every kind answers from one row of buttons right under its question, in the same place: answers
// on the left, refusals (Deny, Decline, Cancel) on the right, each with a mnemonic. Return clicks the
// focused button (all are auto-default), or the one a field names (setReturnButton), or else the
// default button; Escape answers nothing (the panel takes it to move back to the list). Keys that
// would answer (Return, Space, a mnemonic) are ignored for KeyDelayMs after the question appears or
// the window comes back to the front, as browsers' permission prompts do: a keystroke meant for
// something else, typed just as the question shows up, answers nothing.

#include "pendinginteraction.h"

#include <QDeadlineTimer>
#include <QWidget>

#include <nlohmann/json.hpp>

class QHBoxLayout;
class QKeyEvent;
class QLabel;
class QPushButton;
class QResizeEvent;
class QShowEvent;
class QTimer;
class QScrollArea;
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
    // The header names the backend that asks (PendingInteraction::backend): in a window that holds
    // several (InteractionPanel::setBackendsShown).
    void setBackendShown(bool shown);

    // True from sending an answer until it is refused (or the question leaves the panel).
    bool isSending() const { return m_sending; }
    QString errorText() const;

    // What Return answers when the focus is in no button and no field with a button of its own.
    QPushButton* defaultButton() const { return m_defaultButton; }
    // The widget that takes the keyboard focus when this question comes up: the first field to fill
    // in, or the default button.
    virtual QWidget* initialFocusWidget() const;
    // Whether the window's focus is in this question (the person is answering it).
    bool focusIsWithin() const;
    // At least as wide as its widest answer (they wrap onto rows, but one is never cut).
    QSize minimumSizeHint() const override;
    // The least height the card needs at `width`, its answers on as many rows as that width makes
    // them take (for laying out a window before any question shows; the card is resized to it).
    int leastHeightAt(int width);

    // How long after the question appears (or the window is activated again) keys answer nothing.
    static constexpr int KeyDelayMs = 500;
    // Whether keys answer now (KeyDelayMs have passed since the question last appeared).
    bool acceptsKeys() const { return m_keysFrom.hasExpired(); }

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

    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;
    // setInteraction() took a new state: subclasses follow what depends on it (e.g. which answers
    // are offered).
    virtual void interactionUpdated() {}

    void sendAnswer(const InteractionAnswer& answer);
    // A client tool's answer: Respond with `output` as compact JSON.
    void respond(const nlohmann::json& output);
    // Whether the body takes the spare height (a list, a form, JSON) or sits at the top; default true.
    void setBodyExpands(bool expands);
    void showError(const QString& message);
    void clearError();
    // Adds the operator's prompt and the call's own question (client tools), when there are any.
    void addQuestionLabels();
    // Where a button (or another control, e.g. a scope chooser) goes in the shared answer row:
    // answers on the left, refusals on the right.
    enum class ButtonPlace {
        Leading,
        Trailing,
    };
    // Adds an answer button to the shared row; `text` carries its mnemonic ("&Deny").
    QPushButton* addAnswerButton(const QString& text, const QString& objectName, ButtonPlace place);
    // Adds any widget to the shared row: after the other leading ones, or before the trailing ones.
    void addAnswerWidget(QWidget* widget, ButtonPlace place);
    // Puts `widget` right above the answer row, out of the scrolling part: what goes with an answer
    // (the reason of a deny) stays in view with it. `stretch` > 0 gives it the spare height (the
    // part above then scrolls first when the dock is short).
    void addAboveAnswers(QWidget* widget, int stretch = 0);
    // The button Return clicks when the focus is in no button (drawn as the default one).
    void setDefaultButton(QPushButton* button);
    // Return in `field` (or in a widget inside it) clicks `button` instead of the default one.
    void setReturnButton(QWidget* field, QPushButton* button);
    // Gives the focus to `widget` if the focus is within this question already (an answer in
    // progress moves on), never taking it from elsewhere.
    void moveFocusWithin(QWidget* widget);
    // Keys that would click `button` (Return, Space, its mnemonic) do nothing until acceptsKeys();
    // every answer button has this, and so must any control that answers and appears later.
    void guardKeys(QPushButton* button);
    // Starts the KeyDelayMs during which keys answer nothing again (a control that answers appeared).
    void delayKeys();

    // Takes the focus onto the question itself (from a control about to be disabled), if it is in
    // the question: Return then answers nothing, and the panel still knows where the person was.
    void parkFocus();

    // Text from a client or the configuration shown on a button or a buddy label, where "&" would
    // otherwise mark a mnemonic.
    static QString withoutMnemonic(const QString& text);

    static QLabel* captionLabel(const QString& text);
    static QLabel* valueLabel(const QString& text, const QString& objectName);

private:
    void updateHeader();
    void updateTimeLeft();
    void fitQuestionArea();
    // Shows the header whole, as one compact line, or not at all, as the card's height allows.
    void fitHeader();
    // A widget's height at `width` (its height for the width, never below its minimum).
    static int heightAt(const QWidget* widget, int width);
    // The answers side by side when they fit the width, else on as many rows as they need.
    void arrangeAnswers();
    // The focus moved to `widget` in this question: scrolls every area it is in so it shows (a key
    // is never typed into a field out of sight).
    void scrollIntoView(QWidget* widget);
    // Clicks `button` if it can answer now (shown, enabled, no answer on its way); false otherwise.
    bool clickIfAvailable(QPushButton* button);
    void setSending(bool sending);

    PendingInteraction m_interaction;
    nlohmann::json m_renderSpec;
    bool m_sending = false;
    QPushButton* m_defaultButton = nullptr;
    QList<QPair<QWidget*, QPushButton*>> m_returnButtons;
    QList<QPushButton*> m_guardedButtons;
    QDeadlineTimer m_keysFrom{KeyDelayMs};

    QLabel* m_kindLabel = nullptr;
    QLabel* m_toolLabel = nullptr;
    QLabel* m_toolNameLabel = nullptr;
    QLabel* m_clientLabel = nullptr;
    QLabel* m_backendCaption = nullptr;
    QLabel* m_backendLabel = nullptr;
    bool m_backendShown = false;
    QLabel* m_sessionLabel = nullptr;
    QLabel* m_waitingLabel = nullptr;
    QLabel* m_earlierCallsLabel = nullptr;
    QPushButton* m_showCallButton = nullptr;
    QVBoxLayout* m_layout = nullptr;
    QScrollArea* m_scroll = nullptr; // the header and the body
    QWidget* m_header = nullptr; // the kind, the tool, who asks, the call: shown whole or not at all
    QWidget* m_compactHeader = nullptr; // its one-line form, where the card is short
    QLabel* m_compactKindLabel = nullptr;
    QLabel* m_compactToolLabel = nullptr;
    enum class HeaderShape {
        Unknown,
        Whole,
        Compact,
        None,
    };
    HeaderShape m_headerShape = HeaderShape::Unknown;
    bool m_questionAreaOptional = false; // what is asked shows above the answers (addAboveAnswers)
    bool m_bodyExpands = true;
    QVBoxLayout* m_contentLayout = nullptr;
    QWidget* m_body = nullptr;
    QVBoxLayout* m_bodyLayout = nullptr;
    QVBoxLayout* m_aboveAnswers = nullptr;
    QWidget* m_buttonRow = nullptr;
    QVBoxLayout* m_buttonRows = nullptr; // one QHBoxLayout per row of answers
    QList<QPair<QWidget*, ButtonPlace>> m_answerWidgets; // in order: answers, then refusals
    QList<int> m_answerRowSizes; // how they are arranged now
    int m_leadingCount = 0; // answers before the refusals
    QLabel* m_timeLeftLabel = nullptr; // the countdown until the waiting call gives up
    QTimer* m_clock = nullptr;
    QLabel* m_sendingLabel = nullptr;
    QLabel* m_errorLabel = nullptr;
};
