// The console's own calls in the window (offscreen, with a test double of the backend): the
// inspector's Replay and Edit and resend send the selected call's tool and arguments through
// callTool with the original's id, select the new call when it arrives and link it back to the
// original; the Tools dock lists the tools, filters them, and calls one through a form generated
// from its input schema, or JSON text for a schema a form cannot show.

#include <QTest>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QContextMenuEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>

#include "callinspector.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "editresenddialog.h"
#include "fakeoperator.h"
#include "historydialog.h"
#include "jsoneditor.h"
#include "jsontestsupport.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "replaybar.h"
#include "schemaform.h"
#include "statusnote.h"
#include "toollistmodel.h"
#include "toolsview.h"

using nlohmann::json;

namespace {

ToolCall echoCall(qint64 id, const json& arguments, qint64 replayOf = 0)
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("s1");
    call.clientName = replayOf ? OperatorInterface::consoleClientName() : QStringLiteral("claude-code");
    call.tool = QStringLiteral("echo");
    call.route = ToolRoute::builtin();
    call.request = QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
        {"params", {{"name", "echo"}, {"arguments", arguments}}}}
                                                 .dump());
    call.response = R"({"jsonrpc":"2.0","id":1,"result":{"content":[]}})";
    call.status = CallStatus::Ok;
    call.startedAtMs = 1'700'000'000'000 + id;
    call.durationUs = 100;
    call.replayOf = replayOf;
    return call;
}

ToolInfo toolInfo(const QString& name, const json& schema)
{
    ToolInfo tool;
    tool.name = name;
    tool.route = ToolRoute::builtin();
    tool.description = QStringLiteral("The %1 tool").arg(name);
    tool.inputSchema = QByteArray::fromStdString(schema.dump());
    tool.annotations = R"({"readOnlyHint":true})";
    return tool;
}

json argumentsOf(const FakeOperator::ToolCallRequest& request)
{
    return json::parse(request.arguments.toStdString(), nullptr, false);
}

} // namespace

class TestConsoleTools : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void replayFromTheInspectorIsLinkedToItsOriginal();
    void replayByShortcut();
    void editAndResendSendsTheEditedArguments();
    void editAndResendOffersTheFormWhenItHoldsTheArguments();
    void cutRequestCannotBeReplayed();
    void toolsViewListsAndFilters();
    void toolsViewCallsThroughItsForm();
    void toolsViewFallsBackToJson();
    void toolsViewCallsByReturnAndKeepsItsButtonInView();
    void callLogRowMenuFiltersReplaysAndShowsInHistory();

private:
    std::unique_ptr<FakeOperator> m_backend;
    std::unique_ptr<MainWindow> m_window;
};

void TestConsoleTools::init()
{
    m_backend = std::make_unique<FakeOperator>();
    m_window = std::make_unique<MainWindow>(m_backend.get(), 100, false);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestConsoleTools::cleanup()
{
    m_window.reset();
    m_backend.reset();
}

void TestConsoleTools::replayFromTheInspectorIsLinkedToItsOriginal()
{
    Q_EMIT m_backend->callsUpdated({echoCall(10, {{"message", "hi"}})});
    QTRY_VERIFY(m_window->callLogModel()->indexOfCall(10).isValid());
    QVERIFY(m_window->showCall(10));
    ReplayBar* bar = m_window->inspector()->replayBar();
    QCOMPARE(m_window->inspector()->call().id, 10);
    QVERIFY(bar->replayButton()->isEnabled());
    QVERIFY(bar->replayButton()->isVisible());
    QVERIFY(!bar->replayOfLabel()->isVisible());

    QTest::mouseClick(bar->replayButton(), Qt::LeftButton);
    QCOMPARE(m_backend->toolCalls.size(), 1);
    const FakeOperator::ToolCallRequest sent = m_backend->toolCalls.first();
    QCOMPARE(sent.tool, QStringLiteral("echo"));
    QCOMPARE(sent.replayOf, 10);
    QCOMPARE_JSON(argumentsOf(sent), (json{{"message", "hi"}}));

    // The backend says the call started before the call reaches the log: it is selected once it does.
    Q_EMIT m_backend->toolCallStarted(sent.requestId, 11);
    QCOMPARE(m_window->inspector()->call().id, 10);
    Q_EMIT m_backend->callsUpdated({echoCall(11, {{"message", "hi"}}, 10)});
    QTRY_COMPARE(m_window->inspector()->call().id, 11);
    QVERIFY(bar->replayOfLabel()->isVisible());
    QVERIFY2(
        bar->replayOfLabel()->text().contains(QStringLiteral(">#10</a>")), qPrintable(bar->replayOfLabel()->text()));

    // The link selects the original.
    Q_EMIT bar->replayOfLabel()->linkActivated(QStringLiteral("call:10"));
    QCOMPARE(m_window->inspector()->call().id, 10);
    QVERIFY(!bar->replayOfLabel()->isVisible());
}

void TestConsoleTools::replayByShortcut()
{
    Q_EMIT m_backend->callsUpdated({echoCall(20, {{"message", "again"}})});
    QTRY_VERIFY(m_window->showCall(20));
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    auto* replay = m_window->findChild<QAction*>(QStringLiteral("replayAction"));
    QVERIFY(replay);
    QCOMPARE(replay->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    QTest::keyClick(m_window->callLogView()->tableView(), Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(m_backend->toolCalls.size(), 1);
    QCOMPARE(m_backend->toolCalls.first().replayOf, 20);
}

void TestConsoleTools::editAndResendSendsTheEditedArguments()
{
    Q_EMIT m_backend->callsUpdated({echoCall(30, {{"message", "first"}})});
    QTRY_VERIFY(m_window->showCall(30));
    QTest::mouseClick(m_window->inspector()->replayBar()->editButton(), Qt::LeftButton);
    auto* dialog = m_window->findChild<EditResendDialog*>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    JsonEditor* editor = dialog->editor();
    QCOMPARE_JSON(json::parse(editor->toPlainText().toStdString()), (json{{"message", "first"}}));

    // Text that is not a JSON object cannot be sent, and the dialog says why.
    editor->setFocus();
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("{\"message\": "));
    QVERIFY(!dialog->sendButton()->isEnabled());
    QVERIFY(dialog->problemLabel()->isVisible());
    QVERIFY2(dialog->problemLabel()->text().contains(QStringLiteral("not valid JSON")),
        qPrintable(dialog->problemLabel()->text()));
    QTest::keyClicks(editor, QStringLiteral("\"changed\", \"n\": 2}"));
    QVERIFY(dialog->sendButton()->isEnabled());
    QVERIFY(!dialog->problemLabel()->isVisible());
    QTest::mouseClick(dialog->sendButton(), Qt::LeftButton);

    QCOMPARE(m_backend->toolCalls.size(), 1);
    QCOMPARE(m_backend->toolCalls.first().tool, QStringLiteral("echo"));
    QCOMPARE(m_backend->toolCalls.first().replayOf, 30);
    QCOMPARE_JSON(argumentsOf(m_backend->toolCalls.first()), (json{{"message", "changed"}, {"n", 2}}));

    Q_EMIT m_backend->toolCallStarted(m_backend->toolCalls.first().requestId, 31);
    Q_EMIT m_backend->callsUpdated({echoCall(31, {{"message", "changed"}, {"n", 2}}, 30)});
    QTRY_COMPARE(m_window->inspector()->call().id, 31);
    QVERIFY(m_window->inspector()->replayBar()->replayOfLabel()->text().contains(QStringLiteral("Replay of")));
}

void TestConsoleTools::editAndResendOffersTheFormWhenItHoldsTheArguments()
{
    // The tool's schema as offered now gives the form, filled with the recorded arguments.
    const json schema{{"type", "object"},
        {"properties", {{"message", {{"type", "string"}}}, {"n", {{"type", "integer"}, {"minimum", 0}}}}},
        {"required", {"message"}}};
    Q_EMIT m_backend->toolsListed({toolInfo(QStringLiteral("echo"), schema)});
    Q_EMIT m_backend->callsUpdated({echoCall(50, {{"message", "first"}, {"n", 3}})});
    QTRY_VERIFY(m_window->showCall(50));
    m_window->findChild<QAction*>(QStringLiteral("editResendAction"))->trigger();
    auto* dialog = m_window->findChild<EditResendDialog*>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QVERIFY(dialog->form());
    QVERIFY(!dialog->isJsonMode());
    auto* message = qobject_cast<QLineEdit*>(dialog->form()->editorFor(QStringLiteral("message")));
    QVERIFY(message);
    QCOMPARE(message->text(), QStringLiteral("first"));
    QCOMPARE(qobject_cast<QSpinBox*>(dialog->form()->editorFor(QStringLiteral("n")))->value(), 3);
    // Edited by keyboard and sent with Return.
    message->setFocus();
    message->selectAll();
    QTest::keyClicks(message, QStringLiteral("second"));

    QTest::keyClick(message, Qt::Key_Return);
    QCOMPARE(m_backend->toolCalls.size(), 1);
    QCOMPARE(m_backend->toolCalls.first().replayOf, 50);
    QCOMPARE_JSON(argumentsOf(m_backend->toolCalls.first()), (json{{"message", "second"}, {"n", 3}}));
    QTRY_VERIFY(!m_window->findChild<EditResendDialog*>());

    // Arguments the form cannot hold as recorded (a property it does not have) start as JSON,
    // saying why; switching to the form is refused while the text says what the form cannot.
    Q_EMIT m_backend->callsUpdated({echoCall(51, {{"message", "x"}, {"extra", true}})});
    QTRY_VERIFY(m_window->showCall(51));
    m_window->findChild<QAction*>(QStringLiteral("editResendAction"))->trigger();
    dialog = m_window->findChild<EditResendDialog*>();
    QVERIFY(dialog);
    QVERIFY(dialog->isJsonMode());
    QVERIFY(dialog->jsonToggle()->isChecked());
    QVERIFY(dialog->formNote()->isVisibleTo(dialog));
    QVERIFY2(dialog->formNote()->text().contains(QStringLiteral("extra")), qPrintable(dialog->formNote()->text()));
    dialog->jsonToggle()->click();
    QVERIFY(dialog->isJsonMode());
    QVERIFY(dialog->jsonToggle()->isChecked());
    // Once the text fits the form, the form takes it; and back to JSON, the text is the form's.
    dialog->editor()->setPlainText(QStringLiteral("{\"message\": \"fits\"}"));
    dialog->jsonToggle()->click();
    QVERIFY(!dialog->isJsonMode());
    QCOMPARE(
        qobject_cast<QLineEdit*>(dialog->form()->editorFor(QStringLiteral("message")))->text(), QStringLiteral("fits"));
    dialog->jsonToggle()->click();
    QVERIFY(dialog->isJsonMode());
    QCOMPARE_JSON(json::parse(dialog->editor()->toPlainText().toStdString()), (json{{"message", "fits"}}));
    dialog->reject();
}

void TestConsoleTools::cutRequestCannotBeReplayed()
{
    ReplayBar bar;
    ToolCall preview = echoCall(40, {{"message", std::string(100, 'x')}});
    preview.request = preview.request.left(60);
    bar.setCall(preview, true);
    QVERIFY(!bar.replayButton()->isEnabled());
    QVERIFY(!bar.editButton()->isEnabled());
    QVERIFY2(
        bar.replayButton()->toolTip().contains(QStringLiteral("history")), qPrintable(bar.replayButton()->toolTip()));
    // The whole call arrives: it can be sent again.
    bar.setCall(echoCall(40, {{"message", "x"}}), false);
    QVERIFY(bar.replayButton()->isEnabled());
    // Only tools/call requests.
    ToolCall list = echoCall(41, json::object());
    list.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})";
    bar.setCall(list, false);
    QVERIFY(!bar.replayButton()->isEnabled());
}

void TestConsoleTools::toolsViewListsAndFilters()
{
    ToolsView* view = m_window->toolsView();
    QVERIFY(view);
    QCOMPARE(m_backend->toolLists, 1);
    Q_EMIT m_backend->toolsListed({toolInfo(QStringLiteral("echo"), {{"type", "object"}}),
        toolInfo(QStringLiteral("github.create_issue"), {{"type", "object"}})});
    QCOMPARE(view->table()->model()->rowCount(), 2);
    view->filterEdit()->setFocus();
    QTest::keyClicks(view->filterEdit(), QStringLiteral("GITHUB"));
    QCOMPARE(view->table()->model()->rowCount(), 1);
    view->filterEdit()->clear();
    QCOMPARE(view->table()->model()->rowCount(), 2);

    // The list follows the backend's tools: asked again (once) after a burst of changes.
    Q_EMIT m_backend->toolsChanged();
    Q_EMIT m_backend->toolsChanged();
    QTRY_COMPARE(m_backend->toolLists, 2);
    // Time passing is the point: a second list, had the burst asked twice, would be asked within the
    // view's 200 ms.
    QTest::qWait(300);
    QCOMPARE(m_backend->toolLists, 2);

    // The Tools dock is in the View menu with its shortcut.
    auto* toggle = m_window->findChild<QAction*>(QStringLiteral("toolsDockAction"));
    QVERIFY(toggle);
    QCOMPARE(toggle->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_T));
}

void TestConsoleTools::toolsViewCallsThroughItsForm()
{
    ToolsView* view = m_window->toolsView();
    const json schema{{"type", "object"},
        {"properties", {{"message", {{"type", "string"}}}, {"count", {{"type", "integer"}, {"minimum", 1}}}}},
        {"required", {"message"}}};
    Q_EMIT m_backend->toolsListed({toolInfo(QStringLiteral("echo"), schema)});
    QTRY_COMPARE(view->table()->model()->rowCount(), 1);
    QTest::mouseClick(view->table()->viewport(), Qt::LeftButton, {},
        view->table()->visualRect(view->table()->model()->index(0, ToolListModel::NameColumn)).center());
    QCOMPARE(view->currentTool().name, QStringLiteral("echo"));
    QVERIFY(view->form());
    QVERIFY(!view->jsonToggle()->isChecked());

    // A required field left empty: nothing is called, and the view says why.
    QTest::mouseClick(view->callButton(), Qt::LeftButton);
    QCOMPARE(m_backend->toolCalls.size(), 0);
    QVERIFY2(view->statusLabel()->text().contains(QStringLiteral("message")), qPrintable(view->statusLabel()->text()));

    auto* message = qobject_cast<QLineEdit*>(view->form()->editorFor(QStringLiteral("message")));
    QVERIFY(message);
    QTest::keyClicks(message, QStringLiteral("hello"));
    auto* count = qobject_cast<QSpinBox*>(view->form()->editorFor(QStringLiteral("count")));
    QVERIFY(count);
    count->setFocus();
    count->selectAll();
    QTest::keyClicks(count, QStringLiteral("3"));
    QTest::mouseClick(view->callButton(), Qt::LeftButton);
    QCOMPARE(m_backend->toolCalls.size(), 1);
    QCOMPARE(m_backend->toolCalls.first().tool, QStringLiteral("echo"));
    QCOMPARE(m_backend->toolCalls.first().replayOf, 0);
    QCOMPARE_JSON(argumentsOf(m_backend->toolCalls.first()), (json{{"message", "hello"}, {"count", 3}}));

    // The new call is selected in the log when it arrives.
    Q_EMIT m_backend->toolCallStarted(m_backend->toolCalls.first().requestId, 50);
    ToolCall made = echoCall(50, {{"message", "hello"}, {"count", 3}});
    made.clientName = OperatorInterface::consoleClientName();
    Q_EMIT m_backend->callsUpdated({made});
    QTRY_COMPARE(m_window->inspector()->call().id, 50);
    QVERIFY(view->statusLabel()->text().contains(QStringLiteral("#50")));

    // A refusal is said in the view.
    QTest::mouseClick(view->callButton(), Qt::LeftButton);
    Q_EMIT m_backend->commandFailed(QStringLiteral("callTool"), QStringLiteral("echo was not called: stopped"));
    QCOMPARE(view->statusLabel()->text(), QStringLiteral("echo was not called: stopped"));

    // Edit as JSON starts from what the form holds.
    QTest::mouseClick(view->jsonToggle(), Qt::LeftButton);
    QVERIFY(view->jsonToggle()->isChecked());
    QCOMPARE_JSON(
        json::parse(view->jsonEditor()->toPlainText().toStdString()), (json{{"message", "hello"}, {"count", 3}}));
}

void TestConsoleTools::toolsViewFallsBackToJson()
{
    ToolsView* view = m_window->toolsView();
    const json schema{{"type", "object"}, {"oneOf", {{{"required", {"a"}}}, {{"required", {"b"}}}}}};
    Q_EMIT m_backend->toolsListed({toolInfo(QStringLiteral("either"), schema)});
    QVERIFY(view->selectTool(QStringLiteral("either")));
    QVERIFY(!view->form());
    QVERIFY(view->jsonToggle()->isChecked());
    QVERIFY(!view->jsonToggle()->isEnabled());
    JsonEditor* editor = view->jsonEditor();
    editor->setFocus();
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("[1]"));
    QTest::mouseClick(view->callButton(), Qt::LeftButton);
    QCOMPARE(m_backend->toolCalls.size(), 0);
    QVERIFY2(
        view->statusLabel()->text().contains(QStringLiteral("JSON object")), qPrintable(view->statusLabel()->text()));
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("{\"a\": true}"));
    QTest::mouseClick(view->callButton(), Qt::LeftButton);
    QCOMPARE(m_backend->toolCalls.size(), 1);
    QCOMPARE_JSON(argumentsOf(m_backend->toolCalls.first()), (json{{"a", true}}));
}

// Return in a field of the form calls (as it submits a dialog), Ctrl+Return anywhere in the view
// (the JSON editor, where Return is a new line); Return in the tool table does not. The Call button
// stays in view however short the dock, below the scrolled details.
void TestConsoleTools::toolsViewCallsByReturnAndKeepsItsButtonInView()
{
    ToolsView view(m_backend.get());
    view.resize(700, 260);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QApplication::setActiveWindow(&view);
    const json schema{
        {"type", "object"}, {"properties", {{"message", {{"type", "string"}}}}}, {"required", {"message"}}};
    Q_EMIT m_backend->toolsListed({toolInfo(QStringLiteral("echo"), schema),
        toolInfo(QStringLiteral("either"),
            json{{"type", "object"}, {"oneOf", {{{"required", {"a"}}}, {{"required", {"b"}}}}}})});
    QVERIFY(view.selectTool(QStringLiteral("echo")));
    QVERIFY(view.callButton()->isEnabled());
    QVERIFY2(!view.callButton()->visibleRegion().isEmpty(), "the Call button is out of view");
    QVERIFY(view.rect().contains(QRect(view.callButton()->mapTo(&view, QPoint(0, 0)), view.callButton()->size())));

    auto* message = qobject_cast<QLineEdit*>(view.form()->editorFor(QStringLiteral("message")));
    QVERIFY(message);
    message->setFocus();
    QTest::keyClicks(message, QStringLiteral("hello"));
    QTest::keyClick(message, Qt::Key_Return);
    QCOMPARE(m_backend->toolCalls.size(), 1);
    QCOMPARE_JSON(argumentsOf(m_backend->toolCalls.first()), (json{{"message", "hello"}}));
    QTest::keyClick(message, Qt::Key_Enter, Qt::KeypadModifier);
    QCOMPARE(m_backend->toolCalls.size(), 2);

    // Return on the table picks, it does not call.
    view.table()->setFocus();
    QTest::keyClick(view.table(), Qt::Key_Return);
    QCOMPARE(m_backend->toolCalls.size(), 2);

    // In the JSON editor Return is a new line; Ctrl+Return calls.
    QVERIFY(view.selectTool(QStringLiteral("either")));
    JsonEditor* editor = view.jsonEditor();
    editor->setFocus();
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("{\"a\": true}"));
    QTest::keyClick(editor, Qt::Key_Return);
    QCOMPARE(m_backend->toolCalls.size(), 2);
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(m_backend->toolCalls.size(), 3);
    QCOMPARE_JSON(argumentsOf(m_backend->toolCalls.last()), (json{{"a", true}}));
}

// A row's context menu: filter by its client or its tool, replay it, show it in History.
void TestConsoleTools::callLogRowMenuFiltersReplaysAndShowsInHistory()
{
    ToolCall other = echoCall(11, {{"message", "b"}});
    other.tool = QStringLiteral("git_status");
    other.request.replace("\"echo\"", "\"git_status\""); // its request names its own tool
    other.clientName = QStringLiteral("inspector");
    // Calls that only resemble them: a tool and a client whose names hold the others', arguments
    // that say echo, a client name with a space.
    ToolCall louder = echoCall(8, {{"message", "c"}});
    louder.tool = QStringLiteral("echo_loud");
    louder.clientName = QStringLiteral("inspector-dev");
    ToolCall mentions = echoCall(9, {{"message", "echo"}});
    mentions.tool = QStringLiteral("git_status");
    mentions.clientName = QStringLiteral("Claude \"Desktop\" 2");
    Q_EMIT m_backend->callsUpdated({louder, mentions, echoCall(10, {{"message", "a"}}), other});
    QTRY_VERIFY(m_window->callLogModel()->indexOfCall(11).isValid());
    CallLogView* log = m_window->callLogView();
    QTableView* table = log->tableView();
    const auto rowOf = [&](qint64 id) {
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            if (table->model()->index(row, 0).data(CallIdRole).toLongLong() == id)
                return table->model()->index(row, 0);
        }
        return QModelIndex();
    };
    const auto trigger = [&](qint64 id, const char* action) {
        std::unique_ptr<QMenu> menu(log->contextMenuFor(rowOf(id)));
        QVERIFY(menu);
        auto* found = menu->findChild<QAction*>(QLatin1String(action));
        QVERIFY2(found, action);
        QVERIFY2(found->isEnabled(), action);
        found->trigger();
    };

    // Each shows that client's or that tool's calls and nothing that merely contains its name.
    const auto shownIds = [&] {
        QList<qint64> ids;
        for (int row = 0; row < table->model()->rowCount(); ++row)
            ids << table->model()->index(row, 0).data(CallIdRole).toLongLong();
        std::sort(ids.begin(), ids.end());
        return ids;
    };
    trigger(11, "filterByClientAction");
    QCOMPARE(log->filterEdit()->text(), QStringLiteral("client:inspector"));
    QCOMPARE(shownIds(), QList<qint64>{11});
    log->filterEdit()->clear();
    trigger(10, "filterByToolAction");
    QCOMPARE(log->filterEdit()->text(), QStringLiteral("tool:echo"));
    QCOMPARE(shownIds(), QList<qint64>{10});
    log->filterEdit()->clear();
    trigger(9, "filterByClientAction");
    QCOMPARE(log->filterEdit()->text(), QStringLiteral("client:\"Claude \\\"Desktop\\\" 2\""));
    QCOMPARE(shownIds(), QList<qint64>{9});
    // With a word beside it, both hold; and the qualifier typed by hand, in any case, is the same.
    log->filterEdit()->setText(QStringLiteral("TOOL:git_status echo"));
    QCOMPARE(shownIds(), QList<qint64>{9});
    log->filterEdit()->setText(QStringLiteral("tool:git_status client:inspector"));
    QCOMPARE(shownIds(), QList<qint64>{11});
    log->filterEdit()->setText(QStringLiteral("tool:")); // still being typed: asks nothing yet
    QCOMPARE(shownIds(), (QList<qint64>{8, 9, 10, 11}));
    log->filterEdit()->clear();

    trigger(10, "replayCallAction");
    QCOMPARE(m_backend->toolCalls.size(), 1);
    QCOMPARE(m_backend->toolCalls.first().tool, QStringLiteral("echo"));
    QCOMPARE(m_backend->toolCalls.first().replayOf, 10);

    const int queriesBefore = int(m_backend->queries.size());
    trigger(11, "showInHistoryAction");
    auto* history = m_window->findChild<HistoryDialog*>();
    QVERIFY(history);
    QTRY_VERIFY(history->isVisible());
    QVERIFY(int(m_backend->queries.size()) > queriesBefore);
    QCOMPARE(m_backend->queries.last().beforeId, 12); // the call and everything older
    QVERIFY(m_backend->queries.last().search.isEmpty());

    // Right-clicking a row opens the menu on that row.
    const QRect cell = table->visualRect(rowOf(10));
    QContextMenuEvent click(QContextMenuEvent::Mouse, cell.center(), table->viewport()->mapToGlobal(cell.center()));
    QTimer::singleShot(0, [] {
        if (QWidget* popup = QApplication::activePopupWidget())
            popup->close();
    });
    QApplication::sendEvent(table->viewport(), &click);
    QCOMPARE(table->currentIndex().data(CallIdRole).toLongLong(), 10);
}

QTEST_MAIN(TestConsoleTools)
#include "tst_consoletools.moc"
