// CallInspector and JsonHighlighter: pretty JSON (raw text when it does not parse), a running call
// that says so, in-place refreshes that keep the scroll position, distinguishable colours, large
// bodies formatted off the GUI thread and added in pages, and previews that ask for the whole call.

#include "callcolumns.h"
#include "callinspector.h"
#include "jsonhighlighter.h"

#include <QAbstractEventDispatcher>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>

namespace {

ToolCall runningCall()
{
    ToolCall call;
    call.id = 42;
    call.sessionId = QStringLiteral("session-abc");
    call.clientName = QStringLiteral("claude-code");
    call.clientVersion = QStringLiteral("1.2.3");
    call.tool = QStringLiteral("echo");
    call.route = ToolRoute::builtin();
    call.request
        = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}})";
    call.startedAtMs = 1'700'000'000'123;
    call.status = CallStatus::Running;
    return call;
}

// The call as a 2026-07-28 client sends it: no session (one of its own), the revision and trace in _meta.
ToolCall statelessCall(ToolCall call)
{
    call.sessionId = QStringLiteral("request-abc");
    call.request
        = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},)"
          R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
          R"("io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},)"
          R"("traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"vendor=1"}}})";
    return call;
}

const QString TaskId = QStringLiteral("task-0123456789abcdef0123456789abcdef");

// A task's life as TaskHost notes it on its call's timeline (created waiting, handed out, polled three
// times, then running, polled again), with a progress notification sent on the wire in between.
QByteArray taskTimeline(const QByteArray& more = {})
{
    QByteArray entries;
    const auto add = [&entries](int atMs, const char* event, const char* message = nullptr) {
        entries += (entries.isEmpty() ? "" : ",") + QByteArray(R"({"atMs":)") + QByteArray::number(atMs)
            + R"(,"method":"switchboard/task","params":{"event":")" + event
            + R"(","taskId":"task-0123456789abcdef0123456789abcdef","status":"working")"
            + (message ? QByteArray(",\"statusMessage\":\"") + message + '"' : QByteArray()) + "}}";
    };
    const char* waiting = "Waiting for a person at the Switchboard console to answer the question of echo";
    add(1001, "created", waiting);
    add(1003, "handed-out", waiting);
    entries
        += R"(,{"atMs":1200,"method":"notifications/progress","params":{"progressToken":1,"progress":1,"total":2,"message":"asked"}})";
    add(2010, "polled", waiting);
    add(3010, "polled", waiting);
    add(4010, "polled", waiting);
    add(5500, "running", "echo is running");
    add(5600, "polled", "echo is running");
    return '[' + entries + more + ']';
}

// A finished call whose response is about `bytes` of JSON in many short lines once pretty-printed.
ToolCall largeCall(qint64 id, qsizetype bytes, char fill = 'x')
{
    ToolCall call = runningCall();
    call.id = id;
    call.status = CallStatus::Ok;
    call.durationUs = 1000;
    QByteArray items;
    const QByteArray item = QByteArray("{\"n\":1,\"s\":\"") + QByteArray(40, fill) + "\"}";
    while (items.size() < bytes)
        items += (items.isEmpty() ? "" : ",") + item;
    call.response = R"({"jsonrpc":"2.0","id":7,"result":{"items":[)" + items + "]}}";
    return call;
}

template<typename T>
T* child(const QWidget& widget, const char* name)
{
    auto* found = widget.findChild<T*>(QLatin1String(name));
    if (!found)
        qFatal("no child %s", name);
    return found;
}

// The format the highlighter gave the character at `position` of the first block.
QTextCharFormat formatAt(const QTextDocument& document, int position)
{
    const QList<QTextLayout::FormatRange> ranges = document.firstBlock().layout()->formats();
    for (const QTextLayout::FormatRange& range : ranges) {
        if (position >= range.start && position < range.start + range.length)
            return range.format;
    }
    return {};
}

// Delivers what is pending (posted events, zero-time timers, and what they post in turn) until
// nothing is: a layout settles without any time passing.
void settle()
{
    for (int round = 0; round < 100; ++round) {
        QCoreApplication::sendPostedEvents();
        if (!QCoreApplication::eventDispatcher()->processEvents(QEventLoop::AllEvents))
            return;
    }
}

} // namespace

class TestCallInspector : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void prettyJson_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("object") << QByteArray(R"({"a":1,"b":[true,null]})")
                                << QStringLiteral("{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}");
        QTest::newRow("order kept") << QByteArray(R"({"z":1,"a":2})")
                                    << QStringLiteral("{\n  \"z\": 1,\n  \"a\": 2\n}");
        QTest::newRow("not json") << QByteArray("<html>oops") << QStringLiteral("<html>oops");
        QTest::newRow("truncated") << QByteArray(R"({"a":)") << QStringLiteral("{\"a\":");
        QTest::newRow("unicode") << QByteArray(R"({"m":"h\u00e9 ✓"})") << QStringLiteral("{\n  \"m\": \"hé ✓\"\n}");
    }

    void prettyJson()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, expected);
        QCOMPARE(CallInspector::prettyJson(input), expected);
    }

    void aLongSessionIdDoesNotWidenTheInspector()
    {
        // Selecting a call must not push the log aside: a session id is one long word.
        CallInspector inspector;
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        ToolCall call = runningCall();
        inspector.setCall(call);
        settle(); // the header's layout
        const int width = inspector.minimumSizeHint().width();
        call.sessionId = QString(200, QLatin1Char('S'));
        inspector.setCall(call);
        settle();
        QCOMPARE(inspector.minimumSizeHint().width(), width);
        QCOMPARE(child<QLabel>(inspector, "sessionLabel")->toolTip(), call.sessionId);
    }

    // A 2026-07-28 call has no session: the revision the request named takes the session's line,
    // saying so, and the trace id (W3C traceparent in _meta) has a line of its own, whole.
    void aStatelessCallShowsItsRevisionAndTrace()
    {
        CallInspector inspector;
        ToolCall call = statelessCall(runningCall());
        inspector.setCall(call);
        auto* session = child<QLabel>(inspector, "sessionLabel");
        auto* protocol = child<QLabel>(inspector, "protocolLabel");
        auto* trace = child<QLabel>(inspector, "traceLabel");
        QVERIFY(session->isHidden());
        QVERIFY(!protocol->isHidden());
        QCOMPARE(protocol->text(), QStringLiteral("MCP 2026-07-28 · stateless (no session)"));
        QVERIFY(protocol->toolTip().contains(QStringLiteral("request-abc")));
        QVERIFY(!trace->isHidden());
        QCOMPARE(trace->text(), QStringLiteral("4bf92f3577b34da6a3ce929d0e0e4736"));
        QVERIFY(trace->toolTip().contains(QStringLiteral("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")));
        QVERIFY(trace->toolTip().contains(QStringLiteral("tracestate vendor=1")));
        // Without a trace, the revision alone; a 2025 call keeps its session id and shows neither.
        call.request.replace(R"("traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",)", "");
        inspector.setCall(call);
        QCOMPARE(protocol->text(), QStringLiteral("MCP 2026-07-28 · stateless (no session)"));
        QVERIFY(trace->isHidden());
        inspector.setCall(runningCall());
        QVERIFY(!session->isHidden());
        QCOMPARE(session->text(), QStringLiteral("session-abc"));
        QVERIFY(protocol->isHidden());
        QVERIFY(trace->isHidden());
        QVERIFY(child<QLabel>(inspector, "taskLabel")->isHidden());
        QVERIFY(child<QLabel>(inspector, "inputLabel")->isHidden());
    }

    // A call carried by a task stays one call: the task's life (created, handed out, polled, waiting,
    // running, and how it ended) is on its timeline as Switchboard's own steps, apart from the
    // notifications sent on the wire, and a Task line says which task it is and how it stands.
    void aTaskCallShowsTheTasksLifeOnItsTimeline()
    {
        CallInspector inspector;
        inspector.resize(700, 600);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        ToolCall call = statelessCall(runningCall());
        call.status = CallStatus::Paused;
        inspector.setCall(call);
        settle();
        const int width = inspector.minimumSizeHint().width();

        call.timeline = taskTimeline();
        inspector.setCall(call);
        QTRY_VERIFY(!inspector.isRendering());
        auto* tabs = child<QTabWidget>(inspector, "inspectorTabs");
        auto* timeline = child<QPlainTextEdit>(inspector, "timelineText");
        QVERIFY(tabs->isTabVisible(tabs->indexOf(timeline)));
        const QString waiting = QStringLiteral("Waiting for a person at the Switchboard console to answer the "
                                               "question of echo");
        QStringList lines = timeline->toPlainText().split(QLatin1Char('\n'));
        // Each step says what changed: the status and what it waits on when they do, not on every poll.
        QCOMPARE(lines,
            (QStringList{
                QStringLiteral("  +1.001 s  [task]  Created task-0123…cdef — working: ") + waiting,
                QStringLiteral("  +1.003 s  [task]  Handed out to the client"),
                QStringLiteral("  +1.200 s  progress 1/2  asked"),
                QStringLiteral("  +2.010 s  [task]  Polled by the client ×3, the last at +4.010 s"),
                QStringLiteral("  +5.500 s  [task]  echo is running"),
                QStringLiteral("  +5.600 s  [task]  Polled by the client"),
            }));
        auto* task = child<QLabel>(inspector, "taskLabel");
        QVERIFY(!task->isHidden());
        QCOMPARE(task->text(), QStringLiteral("working · polled 4 times\n") + TaskId);
        QVERIFY(task->toolTip().startsWith(QStringLiteral("echo is running")));
        // A task id is one long word: it wraps or is cut, it never widens the inspector.
        settle();
        QCOMPARE(inspector.minimumSizeHint().width(), width);

        // Finished: the call's end is the task's, the last step on the timeline and in the Task line.
        call.status = CallStatus::Ok;
        call.durationUs = 6'000'000;
        call.waitedUs = 5'432'100;
        call.response = R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}})";
        inspector.setCall(call);
        QTRY_VERIFY(!inspector.isRendering());
        // "waited 5.43 s, ran 568 ms" wraps too, rather than widening the inspector.
        settle();
        QVERIFY(inspector.minimumSizeHint().width() <= width);
        lines = timeline->toPlainText().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 7);
        QCOMPARE(lines.last(), QStringLiteral("  +6.000 s  [task]  Ended — completed: The call completed"));
        QCOMPARE(task->text(), QStringLiteral("completed · polled 4 times\n") + TaskId);

        // Cancelled by the client: asked, then the call ended with nothing to answer.
        call.status = CallStatus::Cancelled;
        call.response.clear();
        call.error = QStringLiteral("cancelled by the client (tasks/cancel)");
        call.timeline
            = taskTimeline(R"(,{"atMs":5700,"method":"switchboard/task","params":{"event":"cancel-requested",)"
                           R"("taskId":"task-0123456789abcdef0123456789abcdef","status":"working"}})");
        inspector.setCall(call);
        QTRY_VERIFY(!inspector.isRendering());
        lines = timeline->toPlainText().split(QLatin1Char('\n'));
        QCOMPARE(lines.at(lines.size() - 2), QStringLiteral("  +5.700 s  [task]  Cancel requested by the client"));
        QCOMPARE(lines.last(),
            QStringLiteral("  +6.000 s  [task]  Ended — cancelled: cancelled by the client (tasks/cancel)"));
        QVERIFY(task->text().startsWith(QStringLiteral("cancelled · polled 4 times\n")));

        // Stopped otherwise (Switchboard stopped; the task waits again after the restart, in a call of
        // its own): the call says it stopped, and claims no end for the task.
        call.timeline = taskTimeline();
        call.error = QStringLiteral("Switchboard stopped before anyone answered its question.");
        inspector.setCall(call);
        QTRY_VERIFY(!inspector.isRendering());
        lines = timeline->toPlainText().split(QLatin1Char('\n'));
        QCOMPARE(lines.last(),
            QStringLiteral(
                "  +6.000 s  [task]  The call stopped: Switchboard stopped before anyone answered its question."));
        QCOMPARE(task->text(), QStringLiteral("working when its call stopped · polled 4 times\n") + TaskId);

        // A JSON-RPC error fails the task; a task resumed after a restart says so.
        call.status = CallStatus::Error;
        call.response = R"({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}})";
        call.timeline = R"([{"atMs":0,"method":"switchboard/task","params":{"event":"resumed",)"
                        R"("taskId":"task-0123456789abcdef0123456789abcdef","status":"working",)"
                        R"("statusMessage":"Waiting for a person"}}])";
        inspector.setCall(call);
        QTRY_VERIFY(!inspector.isRendering());
        QCOMPARE(timeline->toPlainText(),
            QStringLiteral(
                "  +0.000 s  [task]  Resumed after a restart (task-0123…cdef) — working: Waiting for a person\n"
                "  +6.000 s  [task]  Ended — failed: The call failed: boom"));
    }

    // input_required: a call that asked the client's user says for what, in which round; its retry,
    // a call of its own, says which round it is and links to the call it answers.
    void inputRoundsShowAsOneCall()
    {
        // As McpSession notes them: the call that asked ends parked, its retry (a call of its own)
        // carries inputResponses, and the backend notes the round it answers and the call that asked.
        CallInspector inspector;
        QSignalSpy shown(&inspector, &CallInspector::showCallRequested);
        ToolCall asked = statelessCall(runningCall());
        asked.id = 41;
        asked.status = CallStatus::Parked;
        asked.durationUs = 3000;
        asked.timeline = R"([{"atMs":2,"method":"switchboard/input","params":{"event":"asked","round":1,)"
                         R"("keys":["github_login"],"requestKinds":["elicitation/create"]}}])";
        inspector.setCall(asked);
        QTRY_VERIFY(!inspector.isRendering());
        auto* timeline = child<QPlainTextEdit>(inspector, "timelineText");
        QCOMPARE(timeline->toPlainText(),
            QStringLiteral("  +0.002 s  [input] Asked the client's user (round 1): github_login — elicitation/create"));
        auto* input = child<QLabel>(inspector, "inputLabel");
        QVERIFY(!input->isHidden());
        QCOMPARE(input->text(), QStringLiteral("round 1: asked the client's user for github_login"));
        QVERIFY(child<QLabel>(inspector, "taskLabel")->isHidden());

        ToolCall retry = statelessCall(runningCall());
        retry.id = 42;
        retry.request.replace(R"("arguments":{"message":"hi"})",
            R"("arguments":{"message":"hi"},"inputResponses":{"github_login":{"action":"accept"}},"requestState":"x")");
        inspector.setCall(retry);
        // Before the backend has noted the round, the request alone says it answers an earlier call.
        QVERIFY(!input->isHidden());
        QVERIFY2(input->text().contains(QStringLiteral("answers an earlier input_required call")),
            qPrintable(input->text()));
        retry.status = CallStatus::Ok;
        retry.durationUs = 2000;
        retry.response = R"({"jsonrpc":"2.0","id":1,"result":{"content":[]}})";
        retry.decision = R"({"what":"answered","via":"client","by":"the user of agent","round":1})";
        retry.timeline = R"([{"atMs":1,"method":"switchboard/input","params":{"event":"answered","round":1,)"
                         R"("keys":["github_login"],"previousCallId":41}}])";
        inspector.setCall(retry);
        QTRY_VERIFY(!inspector.isRendering());
        QCOMPARE(timeline->toPlainText(),
            QStringLiteral("  +0.001 s  [input] Answered by the client's user (round 1), asked in call #41"));
        QCOMPARE(input->text(), QStringLiteral("answers round 1, asked in <a href=\"call:41\">call #41</a>"));
        QCOMPARE(child<QLabel>(inspector, "decisionLabel")->text(),
            QStringLiteral("Answered by the user of agent, through input_required (round 1)."));
        Q_EMIT input->linkActivated(QStringLiteral("call:41"));
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.first().first().toLongLong(), qint64(41));

        // A refused requestState says why (it names no round: it could not be read).
        retry.status = CallStatus::Error;
        retry.decision.clear();
        retry.timeline = R"([{"atMs":1,"method":"switchboard/input","params":{"event":"refused",)"
                         R"("reason":"the requestState has expired"}}])";
        inspector.setCall(retry);
        QTRY_VERIFY(!inspector.isRendering());
        QCOMPARE(timeline->toPlainText(),
            QStringLiteral("  +0.001 s  [input] The client's answer was refused: the requestState has expired"));
        QVERIFY2(input->text().contains(QStringLiteral("the answer was refused: the requestState has expired")),
            qPrintable(input->text()));
    }

    // A task that is already running asks its client's user through the task (input_required status,
    // answered by tasks/update): both steps, and the status they changed, are on its timeline.
    void aRunningTasksQuestionIsOnItsTimeline()
    {
        const QByteArray timeline
            = R"([{"atMs":1000,"method":"switchboard/task","params":{"event":"created",)"
              R"("taskId":"task-0123456789abcdef0123456789abcdef","status":"working","statusMessage":"sync is running"}},)"
              R"({"atMs":1500,"method":"switchboard/task","params":{"event":"input-requested",)"
              R"("taskId":"task-0123456789abcdef0123456789abcdef","status":"input_required",)"
              R"("statusMessage":"Waiting for the client's user to answer: Overwrite?"}},)"
              R"({"atMs":2500,"method":"switchboard/task","params":{"event":"polled",)"
              R"("taskId":"task-0123456789abcdef0123456789abcdef","status":"input_required",)"
              R"("statusMessage":"Waiting for the client's user to answer: Overwrite?"}},)"
              R"({"atMs":3000,"method":"switchboard/task","params":{"event":"input-answered",)"
              R"("taskId":"task-0123456789abcdef0123456789abcdef","status":"working","statusMessage":"sync is running"}}])";
        QCOMPARE(CallInspector::timelineText(timeline).split(QLatin1Char('\n')),
            (QStringList{
                QStringLiteral("  +1.000 s  [task]  Created task-0123…cdef — working: sync is running"),
                QStringLiteral("  +1.500 s  [task]  Asked the client's user (tasks/update answers) — input required: "
                               "Waiting for the client's user to answer: Overwrite?"),
                QStringLiteral("  +2.500 s  [task]  Polled by the client"),
                QStringLiteral(
                    "  +3.000 s  [task]  The client's user answered (tasks/update) — working: sync is running"),
            }));
    }

    void showsARunningCallThenItsResult()
    {
        CallInspector inspector;
        inspector.show();
        QVERIFY(!inspector.hasCall());
        QVERIFY(child<QLabel>(inspector, "inspectorPlaceholder")->isVisible());

        ToolCall call = runningCall();
        inspector.setCall(call);
        QVERIFY(inspector.hasCall());
        QCOMPARE(child<QLabel>(inspector, "toolLabel")->text(), QStringLiteral("echo"));
        QCOMPARE(child<QLabel>(inspector, "statusLabel")->text(), QStringLiteral("Running"));
        QCOMPARE(child<QLabel>(inspector, "clientLabel")->text(), QStringLiteral("claude-code 1.2.3"));
        QCOMPARE(child<QLabel>(inspector, "sessionLabel")->text(), QStringLiteral("session-abc"));
        QCOMPARE(child<QLabel>(inspector, "routeLabel")->text(), QStringLiteral("builtin"));
        QCOMPARE(child<QLabel>(inspector, "durationLabel")->text(), QStringLiteral("running…"));
        // A day before today's shows its date; today's, the time alone (the tooltip has both).
        QCOMPARE(child<QLabel>(inspector, "startedLabel")->text(),
            QDateTime::fromMSecsSinceEpoch(call.startedAtMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")));
        ToolCall today = call;
        today.startedAtMs = QDateTime(QDate::currentDate(), QTime(9, 15, 1, 123)).toMSecsSinceEpoch();
        inspector.setCall(today);
        QCOMPARE(child<QLabel>(inspector, "startedLabel")->text(), QStringLiteral("09:15:01.123"));
        inspector.setCall(call);
        QVERIFY(!child<QLabel>(inspector, "errorLabel")->isVisible());
        auto* response = child<QPlainTextEdit>(inspector, "responseText");
        QVERIFY(response->toPlainText().isEmpty());
        QVERIFY(response->placeholderText().contains(QStringLiteral("running")));
        QCOMPARE(child<QPlainTextEdit>(inspector, "argumentsText")->toPlainText(),
            QStringLiteral("{\n  \"message\": \"hi\"\n}"));
        QVERIFY(child<QPlainTextEdit>(inspector, "requestText")
                    ->toPlainText()
                    .contains(QStringLiteral("\"method\": \"tools/call\"")));

        call.status = CallStatus::Ok;
        call.durationUs = 2500;
        call.response = R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}})";
        inspector.setCall(call);
        QCOMPARE(child<QLabel>(inspector, "statusLabel")->text(), QStringLiteral("OK"));
        QCOMPARE(child<QLabel>(inspector, "durationLabel")->text(), QStringLiteral("2.50 ms"));
        QVERIFY(response->toPlainText().contains(QStringLiteral("\"text\": \"hi\"")));
    }

    // Time a person took is told apart from the time the tool ran, in the inspector and in the
    // log's (and history's) Duration column alike.
    void waitingIsToldApartFromRunning()
    {
        CallInspector inspector;
        inspector.show();
        ToolCall call = runningCall();
        call.status = CallStatus::Paused;
        inspector.setCall(call);
        QCOMPARE(child<QLabel>(inspector, "durationLabel")->text(), QStringLiteral("waiting for a person…"));

        call.status = CallStatus::Ok;
        call.durationUs = 21'003'000;
        call.waitedUs = 21'000'000;
        inspector.setCall(call);
        QCOMPARE(child<QLabel>(inspector, "durationLabel")->text(), QStringLiteral("waited 21.00 s, ran 3.00 ms"));
        QVERIFY(child<QLabel>(inspector, "durationLabel")->toolTip().contains(QStringLiteral("waiting for a person")));
        QCOMPARE(CallColumns::data(call, CallColumns::DurationColumn, Qt::DisplayRole).toString(),
            QStringLiteral("waited 21.00 s, ran 3.00 ms"));
        QVERIFY(CallColumns::data(call, CallColumns::DurationColumn, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("21.00 s waiting for a person")));

        // A call no one was asked about shows its duration alone.
        call.waitedUs = 0;
        call.durationUs = 2500;
        inspector.setCall(call);
        QCOMPARE(child<QLabel>(inspector, "durationLabel")->text(), QStringLiteral("2.50 ms"));
        QCOMPARE(CallColumns::data(call, CallColumns::DurationColumn, Qt::DisplayRole).toString(),
            QStringLiteral("2.50 ms"));
    }

    void showsTheError()
    {
        CallInspector inspector;
        inspector.show();
        ToolCall call = runningCall();
        call.status = CallStatus::Error;
        call.durationUs = 0;
        call.error = QStringLiteral("Unknown tool \"ech\"");
        call.response = "not json at all";
        inspector.setCall(call);
        QVERIFY(child<QLabel>(inspector, "errorLabel")->isVisible());
        QCOMPARE(child<QLabel>(inspector, "errorLabel")->text(), call.error);
        QCOMPARE(child<QPlainTextEdit>(inspector, "responseText")->toPlainText(), QStringLiteral("not json at all"));

        inspector.clear();
        QVERIFY(!inspector.hasCall());
        QVERIFY(child<QLabel>(inspector, "inspectorPlaceholder")->isVisible());
    }

    // A call's details (a command tool's) get a tab of their own, one section per item, text as it
    // was printed; a call without details shows no such tab.
    // Each status in words, with what it means, so a denial reads differently from a crash.
    void showsTheStatusInWords()
    {
        CallInspector inspector;
        inspector.show();
        auto* status = child<QLabel>(inspector, "statusLabel");
        auto* meaning = child<QLabel>(inspector, "statusMeaningLabel");
        QSet<QString> shown;
        for (const CallStatus each : allCallStatuses()) {
            ToolCall call = runningCall();
            call.id = 100 + int(each);
            call.status = each;
            call.durationUs = call.isFinished() ? 10 : -1;
            inspector.setCall(call);
            QCOMPARE(status->text(), callStatusLabel(each));
            QVERIFY(status->toolTip().startsWith(callStatusName(each)));
            QCOMPARE(meaning->text(), callStatusDescription(each));
            QVERIFY(meaning->isVisible());
            shown.insert(status->text());
        }
        QCOMPARE(shown.size(), allCallStatuses().size());
    }

    void showsDetailsOnlyForCallsThatHaveThem()
    {
        CallInspector inspector;
        inspector.show();
        auto* tabs = child<QTabWidget>(inspector, "inspectorTabs");
        auto* details = child<QPlainTextEdit>(inspector, "detailsText");
        ToolCall call = runningCall();
        call.status = CallStatus::Error;
        call.durationUs = 1000;
        call.details = R"({"envelope":{"tool":"wc","input":{"text":"a b"}},"exit":"exit status 3",)"
                       R"("stderr":"line one\nline two\n"})";
        inspector.setCall(call);
        QVERIFY(tabs->isTabVisible(tabs->indexOf(details)));
        const QString text = details->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("── stderr ──\nline one\nline two")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("── exit ──\nexit status 3")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("\"tool\": \"wc\"")), qPrintable(text));

        call.id += 1;
        call.details.clear();
        inspector.setCall(call);
        QVERIFY(!tabs->isTabVisible(tabs->indexOf(details)));
    }

    void refreshKeepsTheScrollPosition()
    {
        CallInspector inspector;
        inspector.resize(500, 300);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        child<QTabWidget>(inspector, "inspectorTabs")->setCurrentIndex(1);
        ToolCall call = runningCall();
        call.status = CallStatus::Ok;
        QByteArray items;
        for (int i = 0; i < 200; ++i)
            items += (i ? "," : "") + QByteArray::number(i);
        call.response = R"({"jsonrpc":"2.0","id":7,"result":{"items":[)" + items + "]}}";
        inspector.setCall(call);
        QScrollBar* scrollBar = child<QPlainTextEdit>(inspector, "responseText")->verticalScrollBar();
        QTRY_VERIFY(scrollBar->maximum() > 50);
        scrollBar->setValue(50);

        call.durationUs = 99; // same bodies, newer state
        inspector.setCall(call);
        QCOMPARE(scrollBar->value(), 50);

        ToolCall other = call;
        other.id = 43;
        other.response = R"({"jsonrpc":"2.0","id":8,"result":{}})";
        inspector.setCall(other);
        QCOMPARE(scrollBar->value(), 0);
    }

    void largeBodyIsFormattedOffTheGuiThreadAndAddedInPages()
    {
        CallInspector inspector;
        inspector.resize(600, 400);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        child<QTabWidget>(inspector, "inspectorTabs")->setCurrentIndex(1);
        auto* response = child<QPlainTextEdit>(inspector, "responseText");
        qsizetype largestInsert = 0;
        connect(response->document(), &QTextDocument::contentsChange, &inspector,
            [&largestInsert](int, int, int added) { largestInsert = qMax<qsizetype>(largestInsert, added); });
        QSignalSpy finished(&inspector, &CallInspector::renderingFinished);

        const ToolCall call = largeCall(1, 3 * 1024 * 1024);
        inspector.setCall(call);
        // setCall returns before the formatting is done: the header is there, the body follows.
        QCOMPARE(child<QLabel>(inspector, "statusLabel")->text(), QStringLiteral("OK"));
        QVERIFY(inspector.isRendering());
        QVERIFY(response->document()->characterCount() < 100);
        QVERIFY(response->placeholderText().startsWith(QStringLiteral("Formatting")));

        QVERIFY(finished.wait(60'000));
        QVERIFY(!inspector.isRendering());
        const QString expected = CallInspector::prettyJson(call.response);
        QCOMPARE(response->toPlainText(), expected);
        // The text arrived a page at a time, never the whole of it in one event-loop iteration.
        QVERIFY2(largestInsert <= CallInspector::PageChars, qPrintable(QString::number(largestInsert)));
        QVERIFY(response->document()->blockCount() > 1000);

        // Only the top is coloured.
        const QTextBlock first = response->document()->firstBlock();
        QTRY_VERIFY(!first.layout()->formats().isEmpty());
        const QTextBlock late = response->document()->findBlock(int(CallInspector::MaxHighlightedChars) + 1000);
        QVERIFY(late.isValid());
        QVERIFY(late.layout()->formats().isEmpty());
    }

    void staleFormattingNeverReplacesTheSelectedCall()
    {
        CallInspector inspector;
        inspector.show();
        QSignalSpy finished(&inspector, &CallInspector::renderingFinished);
        auto* response = child<QPlainTextEdit>(inspector, "responseText");

        // Two large calls in a row: formatting is first in, first out, so when the second is shown
        // the first has finished too, and was dropped.
        const ToolCall first = largeCall(1, 1024 * 1024, 'a');
        const ToolCall second = largeCall(2, 1024 * 1024, 'b');
        inspector.setCall(first);
        inspector.setCall(second);
        QTRY_VERIFY_WITH_TIMEOUT(!inspector.isRendering(), 60'000);
        QCOMPARE(response->toPlainText(), CallInspector::prettyJson(second.response));
        QCOMPARE(finished.size(), 1); // the second call's; the first one's formatting ended unannounced

        // A small call selected while a large one formats shows at once and stays.
        inspector.setCall(largeCall(3, 1024 * 1024, 'c'));
        ToolCall small = runningCall();
        small.id = 4;
        small.status = CallStatus::Ok;
        small.response = R"({"jsonrpc":"2.0","id":4,"result":{"small":true}})";
        finished.clear();
        inspector.setCall(small);
        QVERIFY(!inspector.isRendering());
        QCOMPARE(finished.size(), 1); // done as it was set
        QCOMPARE(response->toPlainText(), CallInspector::prettyJson(small.response));
        // The cancelled work ends before a later call's (one formatting thread, first in, first
        // out); its result never shows.
        const ToolCall later = largeCall(5, 200 * 1024, 'd');
        inspector.setCall(later);
        QVERIFY(finished.wait(60'000));
        QVERIFY(!inspector.isRendering());
        QCOMPARE(finished.size(), 2); // the small call's, then the later one's: none for the cancelled work
        QCOMPARE(response->toPlainText(), CallInspector::prettyJson(later.response));
    }

    void longLinesAreBrokenForDisplay()
    {
        CallInspector inspector;
        ToolCall call = runningCall();
        call.status = CallStatus::Ok;
        const QString text(3 * CallInspector::MaxLineChars + 5, QLatin1Char('z'));
        call.response = "{\"result\":\"" + text.toUtf8() + "\"}";
        QSignalSpy finished(&inspector, &CallInspector::renderingFinished);
        inspector.setCall(call);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60'000);
        QVERIFY(!inspector.isRendering());
        auto* response = child<QPlainTextEdit>(inspector, "responseText");
        const QString shown = response->toPlainText();
        QVERIFY(shown.size() > text.size());
        QString joined = shown;
        joined.remove(QLatin1Char('\n'));
        QVERIFY(joined.contains(text));
        for (QTextBlock block = response->document()->firstBlock(); block.isValid(); block = block.next())
            QVERIFY(block.length() <= CallInspector::MaxLineChars + 1);
    }

    void previewSaysSoAndAsksForTheWholeCall()
    {
        CallInspector inspector;
        inspector.show();
        ToolCall preview = largeCall(9, 200 * 1024);
        preview.request = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                          "\"arguments\":{\"message\":\"hello, this is cut";
        preview.response = preview.response.left(4096);
        QSignalSpy requested(&inspector, &CallInspector::fullCallRequested);
        inspector.setCallPreview(preview, QStringLiteral("Loading… <a href=\"load\">Load it again</a>"));
        QVERIFY(inspector.isPreview());
        auto* note = child<QLabel>(inspector, "previewNote");
        QVERIFY(note->isVisible());
        QVERIFY(note->text().contains(QStringLiteral("Loading")));
        // The cut request's arguments show as the text that follows "arguments".
        QCOMPARE(child<QPlainTextEdit>(inspector, "argumentsText")->toPlainText(),
            QStringLiteral("{\"message\":\"hello, this is cut"));
        QCOMPARE(child<QPlainTextEdit>(inspector, "responseText")->toPlainText(), QString::fromUtf8(preview.response));

        Q_EMIT note->linkActivated(QStringLiteral("load"));
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.at(0).at(0).toLongLong(), qint64(9));

        // The whole call replaces the preview and the note goes.
        inspector.setCall(largeCall(9, 200 * 1024));
        QVERIFY(!inspector.isPreview());
        QVERIFY(!note->isVisible());
    }

    void longErrorIsShortenedInTheLabel()
    {
        CallInspector inspector;
        inspector.show();
        ToolCall call = runningCall();
        call.status = CallStatus::Error;
        call.error = QString(100'000, QLatin1Char('e'));
        inspector.setCall(call);
        QCOMPARE(child<QLabel>(inspector, "errorLabel")->text().size(), CallInspector::MaxErrorChars + 1);
    }

    void highlighterColoursEachKindOfToken()
    {
        QTextDocument document;
        JsonHighlighter highlighter(&document);
        const QString text = QStringLiteral(R"({"key": "value", "n": -1.5e3, "t": true, "z": null})");
        document.setPlainText(text);
        // Attaching a highlighter schedules its first pass for the event loop; run it now.
        highlighter.rehighlight();

        const auto colourAt
            = [&](const QString& token) { return formatAt(document, int(text.indexOf(token))).foreground().color(); };
        const QColor key = highlighter.format(JsonHighlighter::Token::Key).foreground().color();
        const QColor string = highlighter.format(JsonHighlighter::Token::String).foreground().color();
        const QColor number = highlighter.format(JsonHighlighter::Token::Number).foreground().color();
        const QColor keyword = highlighter.format(JsonHighlighter::Token::Keyword).foreground().color();
        const QColor punctuation = highlighter.format(JsonHighlighter::Token::Punctuation).foreground().color();
        const QList<QColor> all{key, string, number, keyword, punctuation};
        for (qsizetype i = 0; i < all.size(); ++i) {
            for (qsizetype j = i + 1; j < all.size(); ++j)
                QVERIFY(all.at(i) != all.at(j));
        }

        QCOMPARE(colourAt(QStringLiteral("\"key\"")), key);
        QCOMPARE(colourAt(QStringLiteral("\"value\"")), string);
        QCOMPARE(colourAt(QStringLiteral("-1.5e3")), number);
        QCOMPARE(colourAt(QStringLiteral("true")), keyword);
        QCOMPARE(colourAt(QStringLiteral("null")), keyword);
        QCOMPARE(colourAt(QStringLiteral("{")), punctuation);
        QCOMPARE(colourAt(QStringLiteral(":")), punctuation);
        // A colon inside a string value is part of the string, not punctuation; an escaped quote does
        // not end the string.
        const QString tricky = QStringLiteral("[\"a: \\\"b\\\": c\", 1]");
        document.setPlainText(tricky);
        highlighter.rehighlight();
        QCOMPARE(formatAt(document, int(tricky.indexOf(QLatin1Char(':')))).foreground().color(), string);
        QCOMPARE(formatAt(document, int(tricky.indexOf(QStringLiteral(" c")))).foreground().color(), string);
        QCOMPARE(formatAt(document, int(tricky.indexOf(QLatin1Char('1')))).foreground().color(), number);
    }
};

QTEST_MAIN(TestCallInspector)
#include "tst_callinspector.moc"
