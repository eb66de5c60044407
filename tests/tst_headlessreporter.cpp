// HeadlessReporter: the headless log's lines reach the output in order; an output that does not
// keep up (a pipe nobody reads) never blocks the reporting thread nor grows memory past the bound,
// and says how many lines it left out; a reader that goes away ends the output, not the process.

#include "headlessreporter.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTest>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <memory>

namespace {

ToolCall finishedCall(qint64 id, const QString& tool = QStringLiteral("echo"))
{
    ToolCall call;
    call.id = id;
    call.tool = tool;
    call.route = ToolRoute::builtin();
    call.clientName = QStringLiteral("tester");
    call.startedAtMs = 1'700'000'000'000;
    call.durationUs = 1500;
    call.status = CallStatus::Ok;
    return call;
}

// A pipe whose read end the test drains when it chooses.
struct Pipe
{
    Pipe()
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) == 0) {
            readEnd = fds[0];
            writeEnd = fds[1];
            ::fcntl(readEnd, F_SETFL, O_NONBLOCK);
        }
    }
    ~Pipe()
    {
        closeRead();
        if (writeEnd >= 0)
            ::close(writeEnd);
    }
    void closeRead()
    {
        if (readEnd >= 0)
            ::close(readEnd);
        readEnd = -1;
    }
    // Everything readable now.
    QByteArray drain()
    {
        QByteArray all;
        char buffer[65536];
        for (;;) {
            const ssize_t got = ::read(readEnd, buffer, sizeof buffer);
            if (got <= 0)
                return all;
            all.append(buffer, got);
        }
    }
    // Reads until `text` has arrived (or the time is up); returns all that was read.
    QByteArray readUntil(const QByteArray& text, int timeoutMs = 30'000)
    {
        QByteArray all;
        QElapsedTimer timer;
        timer.start();
        while (!all.contains(text) && timer.elapsed() < timeoutMs) {
            const QByteArray got = drain();
            if (got.isEmpty())
                waitReadable(int(timeoutMs - timer.elapsed()));
            all += got;
        }
        return all;
    }
    // Waits until the pipe has something to read (or the writer closed it), at most `timeoutMs`.
    void waitReadable(int timeoutMs)
    {
        pollfd readable{readEnd, POLLIN, 0};
        (void)::poll(&readable, 1, qMax(0, timeoutMs));
    }

    int readEnd = -1;
    int writeEnd = -1;
};

} // namespace

class TestHeadlessReporter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void linesReachTheOutputInOrder();
    void everyOutcomeIsPrintedByItsName();
    void slowOutputNeitherBlocksNorGrowsAndSaysWhatItLeftOut();
    void readerThatGoesAwayEndsTheOutputNotTheProcess();
    void destructionGivesUpOnAReaderThatNeverReads();
};

void TestHeadlessReporter::linesReachTheOutputInOrder()
{
    Pipe pipe;
    QVERIFY(pipe.writeEnd >= 0);
    HeadlessReporter reporter(pipe.writeEnd);
    ToolCall running = finishedCall(6);
    running.status = CallStatus::Running;
    running.durationUs = -1;
    ToolCall approved = finishedCall(9);
    approved.durationUs = 21'003'000;
    approved.waitedUs = 21'000'000;
    reporter.report({running, finishedCall(7), finishedCall(8, QStringLiteral("two\nlines")), approved});
    reporter.reportResolved(QStringLiteral("ia-1"), InteractionOutcome::Answered);
    const QByteArray out = pipe.readUntil("question ia-1 answered\n");
    const QList<QByteArray> lines = out.split('\n');
    QCOMPARE(lines.size(), 5); // four lines and what follows the last newline
    // The time a person took apart from the tool's.
    QVERIFY2(lines.at(2).contains(" #9 ok echo via builtin waited 21000.00 ms, ran 3.00 ms from tester"),
        lines.at(2).constData());
    QVERIFY2(lines.at(0).contains(" #7 ok echo via builtin in 1.50 ms from tester"), lines.at(0).constData());
    QVERIFY2(lines.at(1).contains(" #8 ok two\\nlines via builtin"), lines.at(1).constData()); // never a forged line
    QCOMPARE(lines.at(3), QByteArray("question ia-1 answered"));
    QCOMPARE(reporter.linesLeftOut(), qint64(0));
}

// Each finished status is printed by the name history stores (timed_out, upstream_error, …); a call
// that is running or waiting for a person is not printed until it ends.
void TestHeadlessReporter::everyOutcomeIsPrintedByItsName()
{
    Pipe pipe;
    QVERIFY(pipe.writeEnd >= 0);
    HeadlessReporter reporter(pipe.writeEnd);
    ToolCallList calls;
    QStringList expected;
    for (const CallStatus status : allCallStatuses()) {
        ToolCall call = finishedCall(100 + int(status));
        call.status = status;
        if (!call.isFinished())
            call.durationUs = -1;
        else
            expected << QStringLiteral(" #%1 %2 echo ").arg(call.id).arg(callStatusName(status));
        calls.append(call);
    }
    reporter.report(calls);
    reporter.reportResolved(QStringLiteral("ia-end"), InteractionOutcome::Answered);
    const QString out = QString::fromUtf8(pipe.readUntil("question ia-end answered\n"));
    QCOMPARE(out.count(QLatin1Char('\n')), expected.size() + 1);
    for (const QString& line : std::as_const(expected))
        QVERIFY2(out.contains(line), qPrintable(line + QStringLiteral(" in:\n") + out));
    QVERIFY(out.contains(QStringLiteral(" parked echo ")));
    QVERIFY(!out.contains(QStringLiteral(" paused ")));
    QVERIFY(!out.contains(QStringLiteral(" running ")));
}

void TestHeadlessReporter::slowOutputNeitherBlocksNorGrowsAndSaysWhatItLeftOut()
{
    Pipe pipe;
    QVERIFY(pipe.writeEnd >= 0);
    constexpr qint64 maxBytes = 256 * 1024;
    HeadlessReporter reporter(pipe.writeEnd, maxBytes);
    // Nobody reads: the pipe fills (64 KiB), then the buffer; the reporting thread goes on.
    constexpr int batches = 200;
    constexpr int perBatch = 1000;
    qint64 id = 0;
    qint64 largestBuffer = 0;
    for (int batch = 0; batch < batches; ++batch) {
        ToolCallList calls;
        for (int n = 0; n < perBatch; ++n)
            calls.append(finishedCall(++id));
        reporter.report(calls);
        largestBuffer = qMax(largestBuffer, reporter.bufferedBytes());
    }
    QVERIFY2(largestBuffer <= maxBytes, qPrintable(QString::number(largestBuffer)));
    const qint64 leftOut = reporter.linesLeftOut();
    QVERIFY(leftOut > 0);
    QVERIFY(leftOut < batches * perBatch);

    // The reader catches up: what was kept arrives, then a line saying how many were left out,
    // before the next call's line.
    QByteArray out;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 30'000) {
        const QByteArray got = pipe.drain();
        out += got;
        if (got.isEmpty()) {
            if (reporter.bufferedBytes() == 0)
                break;
            // Until the reporter writes more; its buffer is looked at again at least this often.
            pipe.waitReadable(50);
        }
    }
    out += pipe.drain();
    QCOMPARE(reporter.bufferedBytes(), qint64(0));
    reporter.report({finishedCall(++id, QStringLiteral("after"))});
    out += pipe.readUntil(" ok after via builtin");
    // Each gap is said where it is, with its count; together the counts are every line left out.
    const QRegularExpression note(
        QStringLiteral("switchboard: (\\d+) lines were left out here: the output did not keep up\n"));
    qint64 said = 0;
    qsizetype lastNote = -1;
    for (auto match = note.globalMatch(QString::fromUtf8(out)); match.hasNext();) {
        const auto found = match.next();
        said += found.captured(1).toLongLong();
        lastNote = found.capturedStart();
    }
    QCOMPARE(said, leftOut);
    QVERIFY2(lastNote >= 0, out.right(300).constData());
    QVERIFY(lastNote < QString::fromUtf8(out).indexOf(QStringLiteral(" ok after via builtin")));
    QCOMPARE(reporter.linesLeftOut(), leftOut);
    // The first lines were kept, in order.
    QVERIFY(out.indexOf(" #1 ok echo") >= 0);
    QVERIFY(out.indexOf(" #1 ok echo") < out.indexOf(" #2 ok echo"));
}

void TestHeadlessReporter::readerThatGoesAwayEndsTheOutputNotTheProcess()
{
    Pipe pipe;
    QVERIFY(pipe.writeEnd >= 0);
    pipe.closeRead();
    HeadlessReporter reporter(pipe.writeEnd);
    // Without the writer blocking SIGPIPE the process would die here.
    for (int n = 0; n < 100; ++n)
        reporter.report({finishedCall(n)});
    QTRY_COMPARE(reporter.bufferedBytes(), qint64(0));
    reporter.report({finishedCall(1000)}); // after the output ended: dropped, nothing kept
    QCOMPARE(reporter.bufferedBytes(), qint64(0));
}

void TestHeadlessReporter::destructionGivesUpOnAReaderThatNeverReads()
{
    Pipe pipe;
    QVERIFY(pipe.writeEnd >= 0);
    auto reporter = std::make_unique<HeadlessReporter>(pipe.writeEnd, 1024 * 1024);
    for (int n = 0; n < 20'000; ++n)
        reporter->report({finishedCall(n)});
    QTRY_VERIFY(reporter->bufferedBytes() > 0); // the pipe is full, lines wait
    QElapsedTimer timer;
    timer.start();
    reporter.reset();
    // DrainMs, and a generous margin for a loaded machine; without the deadline it never returns.
    QVERIFY2(timer.elapsed() < HeadlessReporter::DrainMs + 20'000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(timer.elapsed() >= HeadlessReporter::DrainMs - 200);
}

QTEST_GUILESS_MAIN(TestHeadlessReporter)
#include "tst_headlessreporter.moc"
