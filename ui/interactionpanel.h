#pragma once

// InteractionPanel: the dock where questions for the person at the console queue up (approvals
// and client tools such as request_connection): a list in queue order (InteractionModel: waiting
// calls first) and the selected question's widget below it. Its title, a tray icon (where there is
// a system tray) and `count` carry the count ("Questions (2)"); a question that arrives while the
// window is in the background raises a desktop notification, whose buttons answer an approval
// (Allow once, Deny) where the desktop's notifications have buttons. The selected question is the
// most urgent one (the list's top, unless the person is answering another). A question never takes
// the focus from the rest of the window: only when the person goes to it (goToQuestions: its
// shortcut, the tray, a notification; a click) or was waiting in the dock; after an answer the
// focus moves to the next live one. Return in the list goes to the question and Escape back to the
// list. Knows no backend: events come in through the slots, and the person's answers leave
// as signals (MainWindow wires both to Backend), so the panel is tested with plain values.

#include "pendinginteraction.h"

#include <QDockWidget>
#include <QHash>
#include <QSet>
#include <QUrl>

#include <functional>

class DesktopNotifier;
class InteractionModel;
class InteractionWidget;
class QKeyEvent;
class QStackedWidget;
class QSystemTrayIcon;
class QTableView;

class InteractionPanel : public QDockWidget
{
    Q_OBJECT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
public:
    explicit InteractionPanel(QWidget* parent = nullptr);

    // The dock's least width in average characters of its font, for the list; the question asks for
    // more where its widest answer needs it.
    static constexpr int LeastWidthChars = 36;

    // "1 question", "3 questions": the count as the window title and the tray say it.
    static QString countText(int count);

    InteractionModel* model() const { return m_model; }
    QTableView* listView() const { return m_list; }
    int count() const;
    // The questions a call is waiting on (held; the others are parked or their call went away).
    int waitingCount() const;
    // The widget of a pending question, or null.
    InteractionWidget* widgetFor(const QString& interactionId) const;
    // The selected question's widget, or null when none is selected.
    InteractionWidget* currentWidget() const;
    QString currentInteractionId() const;

    // Where secrets are kept, named in every connect widget (Backend::secretStorage()).
    void setSecretStorage(const QString& description);
    // A window holding several backends: every question names its backend, and those of a backend
    // that is not live cannot be answered (they may have been answered meanwhile) while the others'
    // can.
    void setBackendsShown(bool shown);
    void setBackendAnswerable(const QString& backend, bool answerable);
    // How a sign-in page is opened (QDesktopServices::openUrl); false when no browser could be.
    // Tests set one that opens nothing.
    void setUrlOpener(std::function<bool(const QUrl&)> opener);
    // The tray icon carrying the count, while questions wait and the desktop has a tray; else null.
    QSystemTrayIcon* trayIcon() const { return m_tray; }
    // Where notifications with buttons go (the desktop's notification service on the session bus
    // unless a test sets another; the panel owns it). Without one that shows buttons, a question
    // raises the tray's message instead.
    DesktopNotifier* desktopNotifier() const { return m_notifier; }
    void setDesktopNotifier(DesktopNotifier* notifier);

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
    // The person goes to the questions (Ctrl+Shift+A, the toolbar's badge): the focus goes to the
    // question being answered, or else to the most urgent one (or the list, when none waits).
    void goToQuestions();

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

protected:
    void changeEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    InteractionWidget* createWidget(const PendingInteraction& interaction);
    void updateLeastWidth();
    // Gives the current question the keyboard focus (within the window; never raises or activates
    // it), or the list when the question has nothing to focus. Only for the person going there.
    void focusCurrentQuestion();
    // Selects the queue's top unless the person is answering the selected question, and gives it
    // the focus only when the focus was in this dock waiting for one (`wasEmpty`: no question was
    // pending before this one came).
    void followQueue(bool wasEmpty);
    void updateTray();
    QSystemTrayIcon* ensureTray();
    // Inserts or updates the row and its widget; true when the question is new.
    bool upsert(const PendingInteraction& interaction);
    void removeInteraction(const QString& interactionId);
    void onCurrentRowChanged();
    void updateTitle();
    void notify(int newCount, const PendingInteraction& latest);
    // A button of a question's desktop notification: an approval's answer, or the window.
    void onNotificationAction(const QString& tag, const QString& key);
    void raiseWindow();

    InteractionModel* m_model;
    QTableView* m_list;
    QStackedWidget* m_stack;
    QWidget* m_placeholder;
    QHash<QString, InteractionWidget*> m_widgets;
    QHash<QString, QWidget*> m_pages; // the scroll area holding each widget in the stack
    QString m_secretStorage;
    bool m_backendsShown = false;
    QSet<QString> m_unanswerableBackends;
    QSystemTrayIcon* m_tray = nullptr; // created when the first question arrives, where there is a tray
    DesktopNotifier* m_notifier = nullptr;
    std::function<bool(const QUrl&)> m_openUrl;
};
