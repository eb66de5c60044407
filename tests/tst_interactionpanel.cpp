// InteractionPanel: questions queue up with a count in the title, the first is selected by itself,
// each has its own widget whose answers leave through the panel's signals, resolved ones leave and
// the next is selected, refusals reach the right widget, a listing replaces what is shown, and a
// question that arrives while the window is in the background raises a notification.

#include "approvalwidget.h"
#include "connectwidget.h"
#include "interactionmodel.h"
#include "interactionpanel.h"
#include "modelroles.h"

#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

constexpr int TimeoutMs = 10'000;

PendingInteraction approval(const QString& id, qint64 callId)
{
    PendingInteraction interaction;
    interaction.id = id;
    interaction.kind = InteractionKind::Approval;
    interaction.render = RenderHint::Approval;
    interaction.tool = QStringLiteral("echo");
    interaction.route = ToolRoute::builtin();
    interaction.arguments = R"({"message":"hi"})";
    interaction.renderSpec = R"({"render":"approval","rule":"permissions.tools.echo: ask"})";
    interaction.sessionId = QStringLiteral("session-1");
    interaction.clientName = QStringLiteral("claude-code");
    interaction.clientVersion = QStringLiteral("2.0.31");
    interaction.callId = callId;
    interaction.waiting = true;
    interaction.createdAtMs = 1'700'000'000'000;
    interaction.key = QStringLiteral("echo\n") + QString::fromLatin1(interaction.arguments);
    return interaction;
}

PendingInteraction connectQuestion(const QString& id, qint64 callId)
{
    PendingInteraction interaction = approval(id, callId);
    interaction.kind = InteractionKind::ClientTool;
    interaction.render = RenderHint::Connect;
    interaction.tool = QStringLiteral("request_connection");
    interaction.toolTitle = QStringLiteral("Request a connection");
    interaction.route = ToolRoute::client();
    interaction.renderSpec = QByteArray::fromStdString(json{{"render", "connect"}, {"provider", "github"},
        {"kind", "api_key"}, {"reason", "to file issues"}, {"scopes", json::array()},
        {"oauthAvailable", false}}.dump());
    return interaction;
}

template<typename T>
T* child(QWidget* parent, const char* name)
{
    return parent ? parent->findChild<T*>(QLatin1String(name)) : nullptr;
}

} // namespace

class TestInteractionPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<InteractionAnswer>();
        qRegisterMetaType<PendingInteraction>();
    }

    void questionsQueueAndAreAnsweredInTurn()
    {
        QMainWindow window;
        auto* panel = new InteractionPanel;
        window.addDockWidget(Qt::RightDockWidgetArea, panel);
        window.resize(900, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(panel->windowTitle(), QStringLiteral("Questions"));
        auto* stack = panel->findChild<QStackedWidget*>();
        QVERIFY(stack);
        QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("interactionPlaceholder"));

        QSignalSpy counts(panel, &InteractionPanel::countChanged);
        QSignalSpy answers(panel, &InteractionPanel::answerRequested);
        QSignalSpy keys(panel, &InteractionPanel::apiKeyEntered);
        QSignalSpy resolved(panel, &InteractionPanel::interactionResolved);
        panel->setSecretStorage(QStringLiteral("desktop keychain (Secret Service)"));
        panel->addInteraction(approval(QStringLiteral("ia-1"), 11));
        panel->addInteraction(connectQuestion(QStringLiteral("ia-2"), 12));
        QCOMPARE(panel->count(), 2);
        QCOMPARE(panel->windowTitle(), QStringLiteral("Questions (2)"));
        QCOMPARE(counts.last().at(0).toInt(), 2);
        QCOMPARE(panel->model()->index(1, InteractionModel::KindColumn).data().toString(), QStringLiteral("Connect"));

        // The first question is selected by itself, and its widget is the one shown.
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-1"));
        QVERIFY(qobject_cast<ApprovalWidget*>(panel->currentWidget()));
        QVERIFY(stack->currentWidget()->isAncestorOf(panel->currentWidget()));
        QVERIFY(panel->listView()->selectionModel()->isRowSelected(0, {}));

        QTest::mouseClick(child<QPushButton>(panel->currentWidget(), "allowOnceButton"), Qt::LeftButton);
        QCOMPARE(answers.size(), 1);
        QCOMPARE(answers.at(0).at(0).toString(), QStringLiteral("ia-1"));
        QCOMPARE(answers.at(0).at(1).value<InteractionAnswer>().decision, InteractionAnswer::Decision::AllowOnce);

        // Answered: it leaves, and the next one comes up.
        panel->resolveInteraction(QStringLiteral("ia-1"), InteractionOutcome::Answered);
        QCOMPARE(resolved.size(), 1);
        QCOMPARE(resolved.at(0).at(0).value<PendingInteraction>().id, QStringLiteral("ia-1"));
        QCOMPARE(resolved.at(0).at(1).value<InteractionOutcome>(), InteractionOutcome::Answered);
        QCOMPARE(panel->windowTitle(), QStringLiteral("Questions (1)"));
        QVERIFY(!panel->widgetFor(QStringLiteral("ia-1")));
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-2"));
        auto* connectWidget = qobject_cast<ConnectWidget*>(panel->currentWidget());
        QVERIFY(connectWidget);
        QVERIFY(stack->currentWidget()->isAncestorOf(connectWidget));
        QCOMPARE(child<QLabel>(connectWidget, "secretStorageLabel")->text(),
            QStringLiteral("Saved to: desktop keychain (Secret Service)"));

        QTest::keyClicks(child<QLineEdit>(connectWidget, "apiKeyEdit"), QStringLiteral("k-123"));
        QTest::mouseClick(child<QPushButton>(connectWidget, "connectButton"), Qt::LeftButton);
        QCOMPARE(keys.size(), 1);
        QCOMPARE(keys.at(0).at(0).toString(), QStringLiteral("ia-2"));
        QCOMPARE(keys.at(0).at(3).toByteArray(), QByteArray("k-123"));

        // Failures reach the widget they belong to.
        panel->showConnectFailed(QStringLiteral("ia-2"), QStringLiteral("no keychain"));
        QCOMPARE(connectWidget->errorText(), QStringLiteral("no keychain"));
        panel->showAnswerFailed(QStringLiteral("ia-2"), QStringLiteral("not well-formed"));
        QCOMPARE(connectWidget->errorText(), QStringLiteral("The answer was not accepted: not well-formed"));
        panel->showAnswerFailed(QStringLiteral("ia-unknown"), QStringLiteral("ignored"));

        panel->resolveInteraction(QStringLiteral("ia-2"), InteractionOutcome::Stored);
        QCOMPARE(panel->count(), 0);
        QCOMPARE(panel->windowTitle(), QStringLiteral("Questions"));
        QCOMPARE(counts.last().at(0).toInt(), 0);
        QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("interactionPlaceholder"));
        panel->resolveInteraction(QStringLiteral("ia-2"), InteractionOutcome::Answered); // twice: nothing happens
        QCOMPARE(resolved.size(), 2);
    }

    void aChangeKeepsWhatThePersonTyped()
    {
        InteractionPanel panel;
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.addInteraction(approval(QStringLiteral("ia-1"), 11));
        InteractionWidget* widget = panel.widgetFor(QStringLiteral("ia-1"));
        QTest::keyClicks(child<QLineEdit>(widget, "reasonEdit"), QStringLiteral("half-typed"));

        PendingInteraction retried = approval(QStringLiteral("ia-1"), 30);
        retried.earlierCallIds = {11};
        panel.updateInteraction(retried);
        QCOMPARE(panel.widgetFor(QStringLiteral("ia-1")), widget);
        QCOMPARE(child<QLineEdit>(widget, "reasonEdit")->text(), QStringLiteral("half-typed"));
        QCOMPARE(child<QPushButton>(widget, "showCallButton")->text(), QStringLiteral("S&how call #30"));
        QCOMPARE(panel.model()->index(0, 0).data(CallIdRole).toLongLong(), qint64(30));

        QSignalSpy showCall(&panel, &InteractionPanel::showCallRequested);
        QTest::mouseClick(child<QPushButton>(widget, "showCallButton"), Qt::LeftButton);
        QCOMPARE(showCall.size(), 1);
        QCOMPARE(showCall.at(0).at(0).toLongLong(), qint64(30));
    }

    void aListingReplacesTheQueue()
    {
        InteractionPanel panel;
        panel.addInteraction(approval(QStringLiteral("ia-1"), 1));
        panel.addInteraction(approval(QStringLiteral("ia-2"), 2));
        panel.selectInteraction(QStringLiteral("ia-2"));
        QCOMPARE(panel.currentInteractionId(), QStringLiteral("ia-2"));

        // ia-1 was resolved while the window did not listen; ia-3 was restored after a restart.
        panel.setInteractions({approval(QStringLiteral("ia-2"), 2), connectQuestion(QStringLiteral("ia-3"), 3)});
        QCOMPARE(panel.count(), 2);
        QVERIFY(!panel.widgetFor(QStringLiteral("ia-1")));
        QVERIFY(qobject_cast<ConnectWidget*>(panel.widgetFor(QStringLiteral("ia-3"))));
        QCOMPARE(panel.currentInteractionId(), QStringLiteral("ia-2"));
        QCOMPARE(panel.windowTitle(), QStringLiteral("Questions (2)"));

        panel.setInteractions({});
        QCOMPARE(panel.count(), 0);
        QVERIFY(panel.currentInteractionId().isEmpty());
    }

    void notifiesOnlyWhileTheWindowIsInTheBackground()
    {
        QMainWindow window;
        auto* panel = new InteractionPanel;
        window.addDockWidget(Qt::RightDockWidgetArea, panel);
        QSignalSpy notified(panel, &InteractionPanel::notificationShown);

        // Not shown, so not the active window: a person elsewhere must hear of it.
        panel->addInteraction(approval(QStringLiteral("ia-1"), 1));
        QCOMPARE(notified.size(), 1);
        QCOMPARE(notified.at(0).at(0).toString(), QStringLiteral("Switchboard: a question is waiting"));
        QCOMPARE(notified.at(0).at(1).toString(), QStringLiteral("echo from claude-code 2.0.31"));
        // A change of a known question is not news.
        panel->updateInteraction(approval(QStringLiteral("ia-1"), 5));
        panel->addInteraction(approval(QStringLiteral("ia-1"), 6));
        QCOMPARE(notified.size(), 1);
        panel->setInteractions({approval(QStringLiteral("ia-1"), 6), approval(QStringLiteral("ia-2"), 7),
            approval(QStringLiteral("ia-3"), 8)});
        QCOMPARE(notified.size(), 2);
        QCOMPARE(notified.at(1).at(0).toString(), QStringLiteral("Switchboard: 2 questions are waiting"));

        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        panel->addInteraction(approval(QStringLiteral("ia-4"), 9));
        QCOMPARE(panel->count(), 4);
        QCOMPARE(notified.size(), 2);
    }

    void aSignInPageThatNoBrowserOpenedIsShownToCopy()
    {
        InteractionPanel panel;
        QList<QUrl> opened;
        panel.setUrlOpener([&opened](const QUrl& url) {
            opened.append(url);
            return false; // no browser, no desktop session
        });
        PendingInteraction interaction = connectQuestion(QStringLiteral("ia-1"), 1);
        interaction.renderSpec = QByteArray::fromStdString(json{{"render", "connect"}, {"provider", "github"},
            {"providerTitle", "GitHub"}, {"kind", "oauth"}, {"scopes", json::array()},
            {"oauthAvailable", true}}.dump());
        panel.addInteraction(interaction);
        auto* widget = qobject_cast<ConnectWidget*>(panel.widgetFor(QStringLiteral("ia-1")));
        QVERIFY(widget);
        QCOMPARE(child<QPushButton>(widget, "signInButton")->text(), QStringLiteral("Sign &in with GitHub"));
        QSignalSpy requested(&panel, &InteractionPanel::oauthRequested);
        child<QPushButton>(widget, "signInButton")->click();
        QCOMPARE(requested.size(), 1);
        const QUrl page(QStringLiteral("https://github.com/login/oauth/authorize?state=s"));
        panel.showAuthorizationUrl(QStringLiteral("ia-1"), page);
        QCOMPARE(opened, QList<QUrl>{page});
        QVERIFY(!widget->browserOpened());
        QVERIFY(child<QLabel>(widget, "waitingForBrowserLabel")->text().contains(QLatin1String("No browser")));
        QCOMPARE(child<QLineEdit>(widget, "authorizationUrlEdit")->text(), page.toString(QUrl::FullyEncoded));
    }

    void rowsTellLookAlikesApartInQueueOrder()
    {
        InteractionPanel panel;
        PendingInteraction parked = approval(QStringLiteral("ia-1"), 1);
        parked.waiting = false;
        parked.mode = PauseMode::Park;
        PendingInteraction held = approval(QStringLiteral("ia-2"), 2);
        held.arguments = R"({"message":"bye"})";
        held.createdAtMs = parked.createdAtMs + 1000;
        panel.addInteraction(parked);
        panel.addInteraction(held);
        // The waiting call first, though it came later; the arguments tell the two echo calls apart.
        QCOMPARE(
            panel.model()->index(0, InteractionModel::DetailsColumn).data().toString(), QStringLiteral("message: bye"));
        QCOMPARE(
            panel.model()->index(1, InteractionModel::DetailsColumn).data().toString(), QStringLiteral("message: hi"));
        QVERIFY(!panel.listView()->isColumnHidden(InteractionModel::TimeLeftColumn));
        QCOMPARE(panel.property("count").toInt(), 2);
        // No system tray on the offscreen platform: no icon, and nothing else breaks.
        QCOMPARE(panel.trayIcon() != nullptr, QSystemTrayIcon::isSystemTrayAvailable());
    }
};

QTEST_MAIN(TestInteractionPanel)
#include "tst_interactionpanel.moc"
