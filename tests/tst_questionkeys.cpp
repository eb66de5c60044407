// The questions dock answered with the keyboard alone, in the whole window against a test double of
// the OperatorInterface: Ctrl+Shift+A goes to the most urgent question, Return and the mnemonics
// answer an approval, a connect question (with an API key) and a form, the focus moves on to the
// next live question after each answer, and the answers reach the operator interface. No clicks.
// Also: keys pressed in the call log, the Permissions table or the filter while a question arrives
// answer nothing (the question never takes the focus from them), answer keys wait a moment after a
// question appears, a new live question is selected ahead of a parked one, the window title carries
// the count, Tab leaves the question list, Escape goes back to it, and a question never activates
// the window when it is in the background.

#include "fakeoperator.h"

#include "calllogview.h"
#include "formwidget.h"
#include "interactionmodel.h"
#include "interactionpanel.h"
#include "interactionwidget.h"
#include "mainwindow.h"
#include "permissionsview.h"

#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

constexpr int TimeoutMs = 10'000;
constexpr qint64 Now = 1'700'000'000'000;

PendingInteraction question(const QString& id, qint64 createdAtMs)
{
    PendingInteraction interaction;
    interaction.id = id;
    interaction.kind = InteractionKind::Approval;
    interaction.render = RenderHint::Approval;
    interaction.tool = QStringLiteral("write_file");
    interaction.route = ToolRoute::builtin();
    interaction.arguments = R"({"path":"/tmp/notes.txt","content":"hello"})";
    interaction.renderSpec = R"({"render":"approval","rule":"permissions.default: ask"})";
    interaction.sessionId = QStringLiteral("session-1");
    interaction.clientName = QStringLiteral("claude-code");
    interaction.callId = createdAtMs % 1000;
    interaction.waiting = true;
    interaction.createdAtMs = createdAtMs;
    interaction.key = id;
    return interaction;
}

PendingInteraction connectQuestion(const QString& id, qint64 createdAtMs)
{
    PendingInteraction interaction = question(id, createdAtMs);
    interaction.kind = InteractionKind::ClientTool;
    interaction.render = RenderHint::Connect;
    interaction.tool = QStringLiteral("request_connection");
    interaction.route = ToolRoute::client();
    interaction.arguments = R"({"provider":"github","kind":"api_key"})";
    interaction.renderSpec = QByteArray::fromStdString(json{{"render", "connect"}, {"provider", "github"},
        {"providerTitle", "GitHub"}, {"kind", "api_key"}, {"scopes", json::array()}, {"reason", "file issues"},
        {"oauthAvailable", false}}.dump());
    return interaction;
}

PendingInteraction formQuestion(const QString& id, qint64 createdAtMs)
{
    PendingInteraction interaction = question(id, createdAtMs);
    interaction.kind = InteractionKind::ClientTool;
    interaction.render = RenderHint::Form;
    interaction.tool = QStringLiteral("release_notes");
    interaction.route = ToolRoute::client();
    interaction.arguments = "{}";
    interaction.renderSpec = R"({"render":"form","schema":{"type":"object","properties":{
        "version":{"type":"string"},"highlights":{"type":"string"}},"required":["version"]}})";
    return interaction;
}

QWidget* focused()
{
    return QApplication::focusWidget();
}

QString focusedName()
{
    return focused() ? focused()->objectName() : QString();
}

ToolCall loggedCall(qint64 id)
{
    ToolCall call;
    call.id = id;
    call.tool = QStringLiteral("echo");
    call.route = ToolRoute::builtin();
    call.status = CallStatus::Ok;
    call.startedAtMs = Now + id;
    call.durationUs = 40;
    call.clientName = QStringLiteral("claude-code");
    return call;
}

// Goes to the questions as the person does (Ctrl+Shift+A) and waits until keys answer there.
void goToQuestions(MainWindow& window)
{
    QTest::keyClick(
        focused() ? focused() : static_cast<QWidget*>(&window), Qt::Key_A, Qt::ControlModifier | Qt::ShiftModifier);
    InteractionWidget* widget = window.interactionPanel()->currentWidget();
    QVERIFY(widget);
    QTRY_VERIFY_WITH_TIMEOUT(widget->focusIsWithin(), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(widget->acceptsKeys(), TimeoutMs);
}

} // namespace

class TestQuestionKeys : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<InteractionAnswer>();
        qRegisterMetaType<PendingInteraction>();
    }

    void everyKindIsAnsweredWithTheKeyboardAlone()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        InteractionPanel* panel = window.interactionPanel();
        QCOMPARE(window.windowTitle(), QStringLiteral("Switchboard"));

        Q_EMIT backend.interactionPending(question(QStringLiteral("ia-approval"), Now));
        Q_EMIT backend.interactionPending(connectQuestion(QStringLiteral("ia-connect"), Now + 1));
        Q_EMIT backend.interactionPending(formQuestion(QStringLiteral("ia-form"), Now + 2));
        QCOMPARE(panel->count(), 3);
        QCOMPARE(window.windowTitle(), QStringLiteral("Switchboard — 3 questions"));

        // The first question is selected but took no focus; Ctrl+Shift+A goes to it: its default
        // button, Allow once. Return answers it.
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-approval"));
        QVERIFY(!panel->currentWidget()->focusIsWithin());
        goToQuestions(window);
        QCOMPARE(focused(), panel->currentWidget()->defaultButton());
        QCOMPARE(focused()->objectName(), QStringLiteral("allowOnceButton"));
        QTest::keyClick(focused(), Qt::Key_Return);
        QCOMPARE(backend.answers.size(), 1);
        QCOMPARE(backend.answers.at(0).interactionId, QStringLiteral("ia-approval"));
        QCOMPARE(backend.answers.at(0).answer.decision, InteractionAnswer::Decision::AllowOnce);
        Q_EMIT backend.interactionResolved(QStringLiteral("ia-approval"), InteractionOutcome::Answered);
        QCOMPARE(window.windowTitle(), QStringLiteral("Switchboard — 2 questions"));

        // The focus moved on, to the connect question's key field.
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-connect"));
        QTRY_COMPARE_WITH_TIMEOUT(
            focused() ? focused()->objectName() : QString(), QStringLiteral("apiKeyEdit"), TimeoutMs);
        QTest::keyClicks(focused(), QStringLiteral("ghp_typed"));
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);
        QTest::keyClick(focused(), Qt::Key_Return);
        QCOMPARE(backend.apiKeys.size(), 1);
        QCOMPARE(backend.apiKeys.at(0).interactionId, QStringLiteral("ia-connect"));
        QCOMPARE(backend.apiKeys.at(0).provider, QStringLiteral("github"));
        QCOMPARE(backend.apiKeys.at(0).key, QByteArray("ghp_typed"));
        Q_EMIT backend.interactionResolved(QStringLiteral("ia-connect"), InteractionOutcome::Answered);

        // The form: its first field has the focus; Tab to the next, Return submits.
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-form"));
        auto* form = qobject_cast<FormWidget*>(panel->currentWidget());
        QVERIFY(form);
        QTRY_COMPARE_WITH_TIMEOUT(focused(), form->editorFor(QStringLiteral("version")), TimeoutMs);
        QTest::keyClicks(focused(), QStringLiteral("2.1"));
        QTest::keyClick(focused(), Qt::Key_Tab);
        QCOMPARE(focused(), form->editorFor(QStringLiteral("highlights")));
        QTest::keyClicks(focused(), QStringLiteral("faster"));
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);
        QTest::keyClick(focused(), Qt::Key_Return);
        QCOMPARE(backend.answers.size(), 2);
        QCOMPARE(backend.answers.at(1).interactionId, QStringLiteral("ia-form"));
        QCOMPARE(backend.answers.at(1).answer.decision, InteractionAnswer::Decision::Respond);
        QVERIFY(json::parse(backend.answers.at(1).answer.output.toStdString())
            == (json{{"submitted", true}, {"values", {{"version", "2.1"}, {"highlights", "faster"}}}}));
        Q_EMIT backend.interactionResolved(QStringLiteral("ia-form"), InteractionOutcome::Answered);

        // Nothing left: the focus waits in the list, not somewhere else in the window.
        QCOMPARE(panel->count(), 0);
        QCOMPARE(window.windowTitle(), QStringLiteral("Switchboard"));
        QCOMPARE(focused(), panel->listView());
    }

    void theListLetsTheKeyboardThrough()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        InteractionPanel* panel = window.interactionPanel();
        QSignalSpy counts(panel, &InteractionPanel::countChanged);
        Q_EMIT backend.interactionsListed(
            {question(QStringLiteral("ia-1"), Now), question(QStringLiteral("ia-2"), Now + 1)});
        QCOMPARE(panel->property("count").toInt(), 2);
        QCOMPARE(counts.last().at(0).toInt(), 2);
        QTableView* list = panel->listView();
        QVERIFY(!list->tabKeyNavigation());

        // Escape in a question answers nothing and goes back to the list; Tab leaves the list for
        // the question below (never cell by cell); Return on a row goes to its question.
        goToQuestions(window);
        QTest::keyClick(focused(), Qt::Key_Escape);
        QCOMPARE(focused(), list);
        QTest::keyClick(focused(), Qt::Key_Down);
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-2"));
        QTest::keyClick(focused(), Qt::Key_Tab);
        QVERIFY(focused() != list);
        QVERIFY(!list->isAncestorOf(focused()));
        list->setFocus();
        QTest::keyClick(focused(), Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->focusIsWithin(), TimeoutMs);
        QCOMPARE(panel->currentWidget()->interactionId(), QStringLiteral("ia-2"));
        QCOMPARE(backend.answers.size(), 0);
    }

    void keysMeantForTheWindowAnswerNothing_data()
    {
        QTest::addColumn<QString>("where");
        QTest::newRow("call log") << QStringLiteral("log");
        QTest::newRow("Permissions table") << QStringLiteral("permissions");
        QTest::newRow("filter with text") << QStringLiteral("filter");
        QTest::newRow("empty filter") << QStringLiteral("empty filter");
    }

    // The case from the issue: two arrow presses and Return meant for the call log opened the
    // Always-allow scope menu, and one more Return would have granted. Keys meant for the call log,
    // the Permissions table or the filter stay there while a question arrives, however long after.
    void keysMeantForTheWindowAnswerNothing()
    {
        QFETCH(QString, where);
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        Q_EMIT backend.callsUpdated({loggedCall(1), loggedCall(2), loggedCall(3), loggedCall(4)});
        QTableView* log = window.callLogView()->tableView();
        QTRY_COMPARE_WITH_TIMEOUT(log->model()->rowCount(), 4, TimeoutMs);
        PermissionEntry rule;
        rule.source = PermissionEntry::Source::Configuration;
        rule.subject = QStringLiteral("echo");
        rule.permission = QStringLiteral("allow");
        Q_EMIT backend.grantsListed({rule, rule});

        QWidget* target = nullptr;
        if (where == QLatin1String("log")) {
            target = log;
        } else if (where == QLatin1String("permissions")) {
            auto* dock = window.findChild<QDockWidget*>(QStringLiteral("permissionsDock"));
            QVERIFY(dock);
            dock->show();
            dock->raise();
            target = window.findChild<PermissionsView*>()->table();
        } else {
            target = window.callLogView()->filterEdit();
        }
        target->setFocus();
        QTRY_COMPARE_WITH_TIMEOUT(focused(), target, TimeoutMs);
        if (where == QLatin1String("filter"))
            QTest::keyClicks(target, QStringLiteral("ech"));

        Q_EMIT backend.interactionPending(question(QStringLiteral("ia-1"), Now));
        InteractionPanel* panel = window.interactionPanel();
        QCOMPARE(panel->count(), 1);
        InteractionWidget* widget = panel->currentWidget();
        QVERIFY(widget);
        // Long after the question appeared, so the key delay is not what protects: the focus is.
        QTRY_VERIFY_WITH_TIMEOUT(widget->acceptsKeys(), TimeoutMs);
        QCOMPARE(focused(), target);
        // The issue's keys; in the filter (where Down goes to the log) Return and Space.
        const bool filter = where.contains(QLatin1String("filter"));
        const QList<Qt::Key> keys = filter
            ? QList<Qt::Key>{Qt::Key_Return, Qt::Key_Return, Qt::Key_Space, Qt::Key_Return, Qt::Key_Return}
            : QList<Qt::Key>{Qt::Key_Down, Qt::Key_Down, Qt::Key_Return, Qt::Key_Return, Qt::Key_Space, Qt::Key_Return,
                Qt::Key_Down, Qt::Key_Return};
        for (const Qt::Key key : keys) {
            QTest::keyClick(focused(), key);
            QVERIFY(!QApplication::activePopupWidget());
        }
        // Where the keys took it: the target, or (Return and Down in the filter) the log it filters.
        QVERIFY2(focused() == target || (filter && window.callLogView()->isAncestorOf(focused())),
            qPrintable(focusedName()));
        QVERIFY(!panel->isAncestorOf(focused()));
        QVERIFY(!widget->focusIsWithin());
        QVERIFY(!window.findChild<QMenu*>(QStringLiteral("alwaysAllowScopeMenu"))->isVisible());
        QVERIFY(widget->findChild<QWidget*>(QStringLiteral("grantConfirmation"))->isHidden());
        QCOMPARE(backend.answers.size(), 0);
        QCOMPARE(panel->count(), 1);
        if (where == QLatin1String("filter"))
            QCOMPARE(window.callLogView()->filterEdit()->text(), QStringLiteral("ech")); // Return went on to the log
        if (where == QLatin1String("log"))
            QVERIFY(log->currentIndex().isValid()); // the arrows moved in the log

        // The question is announced: the dock's and the window's titles carry the count.
        QCOMPARE(panel->windowTitle(), QStringLiteral("Questions (1)"));
        QCOMPARE(window.windowTitle(), QStringLiteral("Switchboard — 1 question"));

        // The table the keys went to keeps its header in view: where the window is short and the
        // docks scroll, the Permissions dock scrolls only what does not fit (before, its area sized
        // its contents by their wrapped text's preferred height and scrolled the header away).
        if (auto* area = window.findChild<QScrollArea*>(QStringLiteral("permissionsDockScroll"));
            area && area->isVisible() && area->viewport()->height() >= area->widget()->minimumSizeHint().height()) {
            QCOMPARE(area->verticalScrollBar()->maximum(), 0);
            if (auto* table = qobject_cast<QTableView*>(target); table && area->isAncestorOf(table)) {
                const QHeaderView* header = table->horizontalHeader();
                const int top = header->mapTo(area->viewport(), QPoint(0, 0)).y();
                QVERIFY2(top >= 0 && top + header->height() <= area->viewport()->height(),
                    qPrintable(QStringLiteral("header at %1, %2 px tall, in a view %3 px tall")
                                   .arg(top)
                                   .arg(header->height())
                                   .arg(area->viewport()->height())));
            }
        }
        // Under a real display, SWITCHBOARD_HOLD_MS keeps the window up for a screenshot.
        if (const int hold = qEnvironmentVariableIntValue("SWITCHBOARD_HOLD_MS"); hold > 0)
            QTest::qWait(hold);

        // Ctrl+Shift+A goes to the question, on its narrowest answer.
        goToQuestions(window);
        QCOMPARE(focused(), widget->defaultButton());
        QCOMPARE(focusedName(), QStringLiteral("allowOnceButton"));
        QCOMPARE(backend.answers.size(), 0);
    }

    // Going to a question (its shortcut, or the selection moving to it) starts a short delay in
    // which Return, Space and the mnemonics answer nothing; then they do.
    void answerKeysWaitAMomentAfterAQuestionAppears()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        InteractionPanel* panel = window.interactionPanel();
        // Waiting in the dock for the next question: the focus is in the empty list.
        QTest::keyClick(
            focused() ? focused() : static_cast<QWidget*>(&window), Qt::Key_A, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(focused(), panel->listView(), TimeoutMs);

        Q_EMIT backend.interactionPending(question(QStringLiteral("ia-1"), Now));
        InteractionWidget* widget = panel->currentWidget();
        // The person was waiting here: the question takes the focus, but keys wait.
        QTRY_COMPARE_WITH_TIMEOUT(focused(), widget->defaultButton(), TimeoutMs);
        QVERIFY(!widget->acceptsKeys());
        QTest::keyClick(focused(), Qt::Key_Return);
        QTest::keyClick(focused(), Qt::Key_Space);
        QTest::keyClick(focused(), Qt::Key_A, Qt::AltModifier);
        QTest::keyClick(focused(), Qt::Key_W, Qt::AltModifier);
        QTest::keyClick(focused(), Qt::Key_S, Qt::AltModifier);
        QTest::keyClick(focused(), Qt::Key_D, Qt::AltModifier);
        QVERIFY(!QApplication::activePopupWidget());
        QVERIFY2(widget->acceptsKeys() == false, "the keys above took longer than the delay; nothing proven");
        QCOMPARE(backend.answers.size(), 0);
        // Once the moment has passed, Return answers.
        QTRY_VERIFY_WITH_TIMEOUT(widget->acceptsKeys(), TimeoutMs);
        QVERIFY2(focused() == widget->defaultButton(), qPrintable(focusedName()));
        QTest::keyClick(focused(), Qt::Key_Return);
        QCOMPARE(backend.answers.size(), 1);
        QCOMPARE(backend.answers.at(0).answer.decision, InteractionAnswer::Decision::AllowOnce);
    }

    // The list is the answering order, and the selection follows it: a new live question goes ahead
    // of a parked one that was selected, one being answered keeps its place, and after an answer
    // the focus goes to the next live question (a parked one is only selected).
    void theMostUrgentLiveQuestionIsSelected()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        InteractionPanel* panel = window.interactionPanel();
        PendingInteraction parked = question(QStringLiteral("ia-parked"), Now);
        parked.waiting = false;
        Q_EMIT backend.interactionPending(parked);
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-parked"));

        Q_EMIT backend.interactionPending(question(QStringLiteral("ia-live"), Now + 10));
        QCOMPARE(panel->model()->interactionAt(0).id, QStringLiteral("ia-live"));
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-live"));

        // Answering it: another live question arriving does not take its place.
        goToQuestions(window);
        PendingInteraction sooner = question(QStringLiteral("ia-sooner"), Now + 20);
        sooner.deadlineMs = Now + 1000; // gives up first: the top of the list
        Q_EMIT backend.interactionPending(sooner);
        QCOMPARE(panel->model()->interactionAt(0).id, QStringLiteral("ia-sooner"));
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-live"));
        QVERIFY(panel->currentWidget()->focusIsWithin());
        QTest::keyClick(focused(), Qt::Key_Return);
        QCOMPARE(backend.answers.last().interactionId, QStringLiteral("ia-live"));
        Q_EMIT backend.interactionResolved(QStringLiteral("ia-live"), InteractionOutcome::Answered);

        // Next: the most urgent live one, with the focus.
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-sooner"));
        QTRY_COMPARE_WITH_TIMEOUT(focused(), panel->currentWidget()->defaultButton(), TimeoutMs);
        // The offscreen platform lets the window go inactive while the test waits (no window
        // manager gives it back); a person's window stays active.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->acceptsKeys(), TimeoutMs);
        QCOMPARE(focused(), panel->currentWidget()->defaultButton());
        QTest::keyClick(focused(), Qt::Key_Return);
        QCOMPARE(backend.answers.last().interactionId, QStringLiteral("ia-sooner"));
        Q_EMIT backend.interactionResolved(QStringLiteral("ia-sooner"), InteractionOutcome::Answered);

        // Only the parked one is left: selected, but the focus waits in the list.
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-parked"));
        QCOMPARE(focused(), panel->listView());
        QCOMPARE(backend.answers.size(), 2);
    }

    // Quitting with questions pending asks first (Cancel the default: a stray Return keeps the
    // window); Quit then closes it. With none pending, it closes at once.
    void quittingWithQuestionsPendingAsksFirst()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        PendingInteraction parked = question(QStringLiteral("ia-parked"), Now);
        parked.waiting = false;
        Q_EMIT backend.interactionPending(parked);
        Q_EMIT backend.interactionPending(question(QStringLiteral("ia-held"), Now + 1));

        QVERIFY(!window.close());
        QVERIFY(window.isVisible());
        QMessageBox* box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (box = window.findChild<QMessageBox*>(QStringLiteral("quitConfirmation"))) && box->isVisible(), TimeoutMs);
        QVERIFY2(box->text().contains(QStringLiteral("1 call is waiting"))
                && box->text().contains(QStringLiteral("2 questions")),
            qPrintable(box->text()));
        QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
        QTRY_COMPARE_WITH_TIMEOUT(QApplication::activeModalWidget(), box, TimeoutMs);
        QTest::keyClick(box, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(!window.findChild<QMessageBox*>(QStringLiteral("quitConfirmation")), TimeoutMs);
        QVERIFY(window.isVisible());

        QVERIFY(!window.close());
        QTRY_VERIFY_WITH_TIMEOUT(
            (box = window.findChild<QMessageBox*>(QStringLiteral("quitConfirmation"))) && box->isVisible(), TimeoutMs);
        QTest::mouseClick(box->findChild<QPushButton*>(QStringLiteral("confirmQuitButton")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), TimeoutMs);
        QCOMPARE(backend.answers.size(), 0);

        MainWindow empty(&backend, 500, false);
        empty.show();
        QVERIFY(QTest::qWaitForWindowExposed(&empty));
        QVERIFY(empty.close());
    }

    void aWindowInTheBackgroundIsNeverActivated()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Another application's window, say, has the focus.
        QLineEdit elsewhere;
        elsewhere.show();
        elsewhere.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&elsewhere, TimeoutMs));
        elsewhere.setFocus();

        Q_EMIT backend.interactionPending(question(QStringLiteral("ia-1"), Now));
        // The question is announced (a notification, the title) and takes nothing: not the
        // desktop's focus, nor the window's, so the person comes back to where they were.
        QCOMPARE(QApplication::activeWindow(), &elsewhere);
        QCOMPARE(focused(), &elsewhere);
        QWidget* before = window.focusWidget();
        QPushButton* allowOnce = window.interactionPanel()->currentWidget()->defaultButton();
        QVERIFY(window.focusWidget() != allowOnce);
        QCOMPARE(window.windowTitle(), QStringLiteral("Switchboard — 1 question"));
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        QCOMPARE(window.focusWidget(), before);
        QVERIFY(!window.interactionPanel()->currentWidget()->focusIsWithin());
    }
};

QTEST_MAIN(TestQuestionKeys)
#include "tst_questionkeys.moc"
