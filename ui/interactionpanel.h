#pragma once

// InteractionPanel: the dock where questions for the person at the console queue up (approvals
// and client tools such as request_connection): a list, oldest first, and the selected question's
// widget below it. Its title carries the count ("Questions (2)"); a question that arrives while the
// window is in the background raises a desktop notification. Knows no backend: events come in
// through the slots, and the person's answers leave as signals (MainWindow wires both to Backend),
// so the panel is tested with plain values.

#include "pendinginteraction.h"

#include <QDockWidget>
#include <QHash>
#include <QUrl>

class InteractionModel;
class InteractionWidget;
class QStackedWidget;
class QSystemTrayIcon;
class QTableView;

class InteractionPanel : public QDockWidget
{
    Q_OBJECT
public:
    explicit InteractionPanel(QWidget* parent = nullptr);

    InteractionModel* model() const { return m_model; }
    QTableView* listView() const { return m_list; }
    int count() const;
    // The widget of a pending question, or null.
    InteractionWidget* widgetFor(const QString& interactionId) const;
    // The selected question's widget, or null when none is selected.
    InteractionWidget* currentWidget() const;
    QString currentInteractionId() const;

    // Where secrets are kept, named in every connect widget (Backend::secretStorage()).
    void setSecretStorage(const QString& description);

public Q_SLOTS:
    // A new question (or a known one again).
    void addInteraction(const PendingInteraction& interaction);
    // A retried call re-attached, a call stopped waiting, …: the header follows, typed input stays.
    void updateInteraction(const PendingInteraction& interaction);
    // Answered, stored for the retry, cancelled or timed out: the question leaves the panel.
    void resolveInteraction(const QString& interactionId, InteractionOutcome outcome);
    // Every pending question (the answer to Backend::listInteractions, e.g. after a restart).
    void setInteractions(const PendingInteractionList& interactions);
    void showAnswerFailed(const QString& interactionId, const QString& error);
    void showConnectFailed(const QString& interactionId, const QString& message);
    // Opens the sign-in page in the browser and shows its address in the connect widget.
    void showAuthorizationUrl(const QString& interactionId, const QUrl& url);
    void selectInteraction(const QString& interactionId);

Q_SIGNALS:
    void answerRequested(const QString& interactionId, const InteractionAnswer& answer);
    void apiKeyEntered(
        const QString& interactionId, const QString& provider, const QString& account, const QByteArray& apiKey);
    void oauthRequested(const QString& interactionId, const QString& provider, const QStringList& scopes);
    void oauthCancelled(const QString& interactionId);
    void showCallRequested(qint64 callId);
    void countChanged(int count);
    // A question left the panel: what it was and how (answered, stored, cancelled, timeout).
    void interactionResolved(const PendingInteraction& interaction, InteractionOutcome outcome);
    // A desktop notification was raised (tray message or taskbar alert).
    void notificationShown(const QString& title, const QString& message);

private:
    InteractionWidget* createWidget(const PendingInteraction& interaction);
    // Inserts or updates the row and its widget; true when the question is new.
    bool upsert(const PendingInteraction& interaction);
    void removeInteraction(const QString& interactionId);
    void onCurrentRowChanged();
    void selectFirstIfNoneSelected();
    void updateTitle();
    void notify(int newCount, const PendingInteraction& latest);
    void raiseWindow();

    InteractionModel* m_model;
    QTableView* m_list;
    QStackedWidget* m_stack;
    QWidget* m_placeholder;
    QHash<QString, InteractionWidget*> m_widgets;
    QHash<QString, QWidget*> m_pages; // the scroll area holding each widget in the stack
    QString m_secretStorage;
    QSystemTrayIcon* m_tray = nullptr; // created on the first notification
};
