// The questions dock answered with the keyboard alone, in the whole window against a test double of
// the OperatorInterface: each question that comes up takes the focus, Return and the mnemonics
// answer an approval, a connect question (with an API key) and a form, the focus moves on to the
// next question after each answer, and the answers reach the operator interface. No clicks. Also:
// the window title carries the count, Tab leaves the question list, Escape goes back to it, and a
// question does not take the focus from a field the person is typing in, nor ever activates the
// window when it is in the background.

#include "fakeoperator.h"

#include "calllogview.h"
#include "formwidget.h"
#include "interactionmodel.h"
#include "interactionpanel.h"
#include "interactionwidget.h"
#include "mainwindow.h"

#include <QApplication>
#include <QLineEdit>
#include <QPushButton>
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

        // The first question took the focus: its default button, Allow once. Return answers it.
        QCOMPARE(panel->currentInteractionId(), QStringLiteral("ia-approval"));
        QTRY_COMPARE_WITH_TIMEOUT(focused(), panel->currentWidget()->defaultButton(), TimeoutMs);
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
        QTRY_VERIFY_WITH_TIMEOUT(panel->currentWidget()->focusIsWithin(), TimeoutMs);
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

    void aQuestionDoesNotTakeTheFocusFromTyping()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        QLineEdit* filter = window.callLogView()->filterEdit();
        filter->setFocus();
        QTRY_COMPARE_WITH_TIMEOUT(focused(), filter, TimeoutMs);
        QTest::keyClicks(filter, QStringLiteral("ech"));

        Q_EMIT backend.interactionPending(question(QStringLiteral("ia-1"), Now));
        QCOMPARE(window.interactionPanel()->count(), 1);
        QCOMPARE(focused(), filter);
        QTest::keyClick(filter, Qt::Key_O);
        QTest::keyClick(filter, Qt::Key_Return);
        QCOMPARE(filter->text(), QStringLiteral("echo"));
        QCOMPARE(backend.answers.size(), 0);

        // Ctrl+Shift+A goes to the questions.
        QTest::keyClick(focused(), Qt::Key_A, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(focused(), window.interactionPanel()->listView());
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
        // The question only marks where the focus goes when the person comes back.
        QCOMPARE(QApplication::activeWindow(), &elsewhere);
        QCOMPARE(focused(), &elsewhere);
        QPushButton* allowOnce = window.interactionPanel()->currentWidget()->defaultButton();
        QCOMPARE(window.focusWidget(), allowOnce);
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window, TimeoutMs));
        QTRY_COMPARE_WITH_TIMEOUT(focused(), allowOnce, TimeoutMs);
    }
};

QTEST_MAIN(TestQuestionKeys)
#include "tst_questionkeys.moc"
