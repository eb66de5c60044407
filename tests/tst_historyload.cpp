// History under load, against the real switchboard binary: every call answered at full speed from
// several connections is in history; after kill -9, every call answered more than 100 ms before
// the kill is in history; the state directory and its files are owner-only whatever the umask.
//
// The clients are plain blocking sockets on threads of their own, so they go as fast as the server
// answers. Where the machine has two cores or more, the server runs on one core and the clients on
// another (the setting in which history used to lose calls), with the server's core kept busy by a
// thread of this test meanwhile. Sizes can be raised for measurements:
// HISTORY_LOAD_CALLS (default 20000), HISTORY_LOAD_CONNECTIONS (8), HISTORY_LOAD_KILLS (3); and
// SWITCHBOARD_BINARY_UNDER_TEST runs another build (an older one, for figures before a change).

#include "testpaths.h"
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

const QByteArray token = "history-load-test-token-0123456789abcdefghijklmnop";

int envInt(const char* name, int fallback)
{
    bool ok = false;
    const int value = qEnvironmentVariableIntValue(name, &ok);
    return ok && value > 0 ? value : fallback;
}

// The CPUs this process may use, in order.
std::vector<int> allowedCpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (CPU_ISSET(cpu, &set))
                cpus.push_back(cpu);
        }
    }
    return cpus;
}

void pinThread(pthread_t thread, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(thread, sizeof set, &set);
}

// Moves every thread of a running process to one CPU.
void pinProcess(qint64 pid, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    const QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    for (const QString& task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        sched_setaffinity(pid_t(task.toInt()), sizeof set, &set);
}

// One keep-alive HTTP/1.1 connection with blocking reads; just enough HTTP for the server's answers.
class Connection
{
public:
    explicit Connection(quint16 port)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address = {};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(0x7f000001U); // 127.0.0.1
        if (::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            ::close(m_fd);
            m_fd = -1;
        }
        int one = 1;
        if (m_fd >= 0)
            ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ~Connection()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Sends one POST to /mcp and reads its response; false when the connection failed.
    bool post(const QByteArray& body, const QByteArray& session, int* status, QByteArray* responseBody,
        QByteArray* sessionOut = nullptr)
    {
        QByteArray request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             "Accept: application/json, text/event-stream\r\nAuthorization: Bearer "
            + token + "\r\n";
        if (!session.isEmpty())
            request += "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: 2025-06-18\r\n";
        request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        qsizetype sent = 0;
        while (sent < request.size()) {
            const ssize_t n = ::send(m_fd, request.constData() + sent, size_t(request.size() - sent), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            sent += n;
        }
        qsizetype headEnd;
        while ((headEnd = m_buffer.indexOf("\r\n\r\n")) < 0) {
            if (!fill())
                return false;
        }
        const QByteArray head = m_buffer.left(headEnd);
        m_buffer.remove(0, headEnd + 4);
        *status = head.mid(9, 3).toInt();
        qsizetype length = 0;
        bool chunked = false;
        for (const QByteArray& line : head.split('\n')) {
            const QByteArray lower = line.trimmed().toLower();
            if (lower.startsWith("content-length:"))
                length = lower.mid(15).trimmed().toLongLong();
            else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked"))
                chunked = true;
            else if (sessionOut && lower.startsWith("mcp-session-id:"))
                *sessionOut = line.trimmed().mid(15).trimmed();
        }
        responseBody->clear();
        if (!chunked) {
            while (m_buffer.size() < length) {
                if (!fill())
                    return false;
            }
            *responseBody = m_buffer.left(length);
            m_buffer.remove(0, length);
            return true;
        }
        for (;;) {
            qsizetype lineEnd;
            while ((lineEnd = m_buffer.indexOf("\r\n")) < 0) {
                if (!fill())
                    return false;
            }
            const qsizetype size = m_buffer.left(lineEnd).toLongLong(nullptr, 16);
            while (m_buffer.size() < lineEnd + 2 + size + 2) {
                if (!fill())
                    return false;
            }
            *responseBody += m_buffer.mid(lineEnd + 2, size);
            m_buffer.remove(0, lineEnd + 2 + size + 2);
            if (size == 0)
                return true;
        }
    }

    bool isOpen() const { return m_fd >= 0; }

private:
    bool fill()
    {
        char chunk[16384];
        const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
        if (n <= 0)
            return false;
        m_buffer.append(chunk, n);
        return true;
    }

    int m_fd = -1;
    QByteArray m_buffer;
};

struct Answered
{
    QByteArray marker; // the echo message, unique per call
    Clock::time_point at; // when the client had read the whole response
};

// Several connections calling echo as fast as the server answers, until `callsPerConnection`
// each (0: until the server goes away).
class Load
{
public:
    Load(quint16 port, int connections, int callsPerConnection, int cpu)
    {
        const QByteArray run = QUuid::createUuid().toByteArray(QUuid::Id128).left(8);
        for (int c = 0; c < connections; ++c) {
            m_threads.emplace_back([this, port, c, callsPerConnection, run] {
                std::vector<Answered> answered;
                Connection connection(port);
                QByteArray session;
                int status = 0;
                QByteArray body;
                const bool opened = connection.isOpen()
                    && connection.post(
                        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"load","version":"1"}}})",
                        {}, &status, &body, &session)
                    && status == 200 && !session.isEmpty()
                    && connection.post(
                        R"({"jsonrpc":"2.0","method":"notifications/initialized"})", session, &status, &body);
                if (!opened) {
                    m_failures.fetch_add(1);
                    return;
                }
                for (int i = 0; callsPerConnection == 0 || i < callsPerConnection; ++i) {
                    const QByteArray marker = run + '-' + QByteArray::number(c) + '-' + QByteArray::number(i);
                    const QByteArray call = R"({"jsonrpc":"2.0","id":)" + QByteArray::number(i + 1)
                        + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":")" + marker
                        + R"("}}})";
                    if (!connection.post(call, session, &status, &body))
                        break; // the server went away
                    if (status != 200 || !body.contains(marker)) {
                        m_failures.fetch_add(1);
                        break;
                    }
                    answered.push_back({marker, Clock::now()});
                    m_answeredSoFar.fetch_add(1);
                }
                std::lock_guard lock(m_mutex);
                m_answered.insert(m_answered.end(), answered.begin(), answered.end());
            });
            if (cpu >= 0)
                pinThread(m_threads.back().native_handle(), cpu);
        }
    }
    ~Load() { join(); }

    void join()
    {
        for (std::thread& thread : m_threads) {
            if (thread.joinable())
                thread.join();
        }
    }
    const std::vector<Answered>& answered() const { return m_answered; }
    // While the load runs: how many calls have been answered.
    qint64 answeredSoFar() const { return m_answeredSoFar.load(); }
    int failures() const { return m_failures.load(); }

private:
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::vector<Answered> m_answered;
    std::atomic<int> m_failures = 0;
    std::atomic<qint64> m_answeredSoFar = 0;
};

// Keeps one CPU busy at normal priority, as other work on the server's core would: a thread that
// may starve (idle priority) gets nothing meanwhile.
class CoreHog
{
public:
    explicit CoreHog(int cpu)
    {
        if (cpu < 0)
            return;
        m_thread = std::thread([this] {
            while (!m_stop.load(std::memory_order_relaxed)) {}
        });
        pinThread(m_thread.native_handle(), cpu);
    }
    ~CoreHog()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    std::atomic<bool> m_stop = false;
    std::thread m_thread;
};

struct Server
{
    std::unique_ptr<QProcess> process;
    quint16 port = 0;
};

Server startServer(const QString& stateDirectory)
{
    static int startCount = 0;
    Server server;
    server.process = std::make_unique<QProcess>();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QString::fromLatin1(token));
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    server.process->setProcessEnvironment(environment);
    // The per-call lines go to a file: nothing reads a pipe while the clients run.
    const QString log
        = QFileInfo(stateDirectory).dir().filePath(QStringLiteral("switchboard-%1.log").arg(++startCount));
    server.process->setStandardOutputFile(log);
    server.process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    server.process->start(qEnvironmentVariable("SWITCHBOARD_BINARY_UNDER_TEST", TestPaths::switchboardBinary()),
        {QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--state-dir"),
            stateDirectory, QStringLiteral("--config"), QStringLiteral("/nonexistent/switchboard-test.yaml")});
    if (!server.process->waitForStarted(10'000))
        return server;
    static const QRegularExpression listening(QStringLiteral("^listening on http://127\\.0\\.0\\.1:(\\d+)/mcp"));
    // The first line of its log says where it listens (a file: nothing to be told by, so it is read
    // again until the line is there).
    (void)QTest::qWaitFor(
        [&] {
            QFile file(log);
            if (server.process->state() != QProcess::Running || !file.open(QIODevice::ReadOnly))
                return server.process->state() != QProcess::Running;
            const auto match = listening.match(QString::fromUtf8(file.readLine()));
            if (match.hasMatch())
                server.port = quint16(match.captured(1).toUInt());
            return match.hasMatch();
        },
        30'000);
    return server;
}

// Every echo message in history (a fresh connection, as after a restart).
QSet<QByteArray> markersInHistory(const QString& databasePath, qint64* rows)
{
    QSet<QByteArray> markers;
    const QString name = QUuid::createUuid().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(databasePath);
        if (db.open()) {
            QSqlQuery q(db);
            q.setForwardOnly(true);
            q.exec(QStringLiteral("SELECT request FROM calls WHERE tool = 'echo' AND status = 'ok'"));
            static const QRegularExpression message(QStringLiteral("\"message\":\"([^\"]+)\""));
            *rows = 0;
            while (q.next()) {
                ++*rows;
                const auto match = message.match(QString::fromUtf8(q.value(0).toByteArray()));
                if (match.hasMatch())
                    markers.insert(match.captured(1).toUtf8());
            }
        }
    }
    QSqlDatabase::removeDatabase(name);
    return markers;
}

} // namespace

class TestHistoryLoad : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everyAnsweredCallIsInHistory();
    void killKeepsEveryCallAnsweredBeforeIt();
    void stateDirectoryAndFilesAreOwnerOnly();

private:
    int m_serverCpu = -1;
    int m_clientCpu = -1;
};

void TestHistoryLoad::initTestCase()
{
    const std::vector<int> cpus = allowedCpus();
    if (cpus.size() >= 2) {
        m_serverCpu = cpus.at(0);
        m_clientCpu = cpus.at(1);
    }
    qInfo("server on cpu %d, clients on cpu %d (-1: not pinned)", m_serverCpu, m_clientCpu);
}

void TestHistoryLoad::everyAnsweredCallIsInHistory()
{
    const int calls = envInt("HISTORY_LOAD_CALLS", 20'000);
    const int connections = envInt("HISTORY_LOAD_CONNECTIONS", 8);
    QTemporaryDir dir;
    const QString state = dir.filePath(QStringLiteral("state"));
    Server server = startServer(state);
    QVERIFY(server.port);
    if (m_serverCpu >= 0)
        pinProcess(server.process->processId(), m_serverCpu);

    CoreHog busyServerCore(m_serverCpu);
    QElapsedTimer timer;
    timer.start();
    Load load(server.port, connections, (calls + connections - 1) / connections, m_clientCpu);
    load.join();
    const double seconds = double(timer.elapsed()) / 1000.0;
    QCOMPARE(load.failures(), 0);
    const qint64 answered = qint64(load.answered().size());
    QCOMPARE(answered, qint64((calls + connections - 1) / connections) * connections);

    // While the server still runs: history catches up with every answered call.
    const QString database = QDir(state).filePath(QStringLiteral("history.sqlite"));
    qint64 rows = 0;
    QElapsedTimer waited;
    waited.start();
    (void)QTest::qWaitFor([&] { return (markersInHistory(database, &rows), rows >= answered); }, 60'000);
    qInfo("%lld of %lld answered calls in history %.1f s after the last answer, the server still running", rows,
        answered, double(waited.elapsed()) / 1000.0);
    QCOMPARE(rows, answered);
    ::kill(pid_t(server.process->processId()), SIGTERM);
    QVERIFY(server.process->waitForFinished(30'000));
    QCOMPARE(server.process->exitCode(), 0);

    const QSet<QByteArray> stored = markersInHistory(database, &rows);
    qint64 missing = 0;
    for (const Answered& call : load.answered())
        missing += stored.contains(call.marker) ? 0 : 1;
    qInfo("%lld calls answered in %.1f s (%.0f/s) over %d connections; %lld rows in history; %lld answered calls "
          "missing",
        answered, seconds, double(answered) / seconds, connections, rows, missing);
    QCOMPARE(missing, qint64(0));
    QCOMPARE(rows, answered);
}

void TestHistoryLoad::killKeepsEveryCallAnsweredBeforeIt()
{
    const int kills = envInt("HISTORY_LOAD_KILLS", 3);
    const int connections = envInt("HISTORY_LOAD_CONNECTIONS", 8);
    QTemporaryDir dir;
    const QString state = dir.filePath(QStringLiteral("state"));
    const QString database = QDir(state).filePath(QStringLiteral("history.sqlite"));
    std::vector<Answered> everAnswered;
    qint64 mustBeThere = 0;
    QList<qint64> missingPerKill;
    for (int kill = 0; kill < kills; ++kill) {
        Server server = startServer(state);
        QVERIFY(server.port);
        if (m_serverCpu >= 0)
            pinProcess(server.process->processId(), m_serverCpu);
        CoreHog busyServerCore(m_serverCpu);
        Load load(server.port, connections, 0, m_clientCpu);
        // Load until a number of calls were answered (a different number each time), then kill in
        // the middle of it.
        const qint64 killAfter = 1'000 + 1'500 * qint64(kill);
        QVERIFY2(QTest::qWaitFor([&] { return load.answeredSoFar() >= killAfter || load.failures() > 0; }, 120'000),
            qPrintable(QStringLiteral("only %1 calls answered").arg(load.answeredSoFar())));
        const Clock::time_point killedAt = Clock::now();
        ::kill(pid_t(server.process->processId()), SIGKILL);
        load.join();
        QVERIFY(server.process->waitForFinished(30'000));
        QCOMPARE(load.failures(), 0);
        QVERIFY2(!load.answered().empty(), "no call was answered before the kill");

        qint64 rows = 0;
        const QSet<QByteArray> stored = markersInHistory(database, &rows);
        qint64 before = 0;
        qint64 missing = 0;
        qint64 missingAtAll = 0;
        for (const Answered& call : load.answered()) {
            const bool there = stored.contains(call.marker);
            missingAtAll += there ? 0 : 1;
            if (killedAt - call.at > std::chrono::milliseconds(100)) {
                ++before;
                missing += there ? 0 : 1;
            }
        }
        qInfo("kill %d: %zu calls answered, %lld of them more than 100 ms before the kill; missing from history: %lld "
              "of those, %lld of all answered",
            kill + 1, load.answered().size(), before, missing, missingAtAll);
        mustBeThere += before;
        missingPerKill << missing;
        everAnswered.insert(everAnswered.end(), load.answered().begin(), load.answered().end());
    }
    QCOMPARE(missingPerKill, QList<qint64>(kills, 0));
    QVERIFY(mustBeThere > 0);
}

void TestHistoryLoad::stateDirectoryAndFilesAreOwnerOnly()
{
    const mode_t previous = ::umask(022);
    QTemporaryDir dir;
    const QString state = dir.filePath(QStringLiteral("state"));
    Server server = startServer(state);
    ::umask(previous);
    QVERIFY(server.port);
    Load load(server.port, 1, 10, -1); // history, its WAL and shared memory exist
    load.join();
    QCOMPARE(load.answered().size(), std::size_t(10));

    const auto modeOf = [](const QString& path) {
        struct stat info = {};
        return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? int(info.st_mode & 07777) : -1;
    };
    QCOMPARE(modeOf(state), 0700);
    const QStringList files = QDir(state).entryList(QDir::Files | QDir::Hidden);
    for (const QString& name :
        {QStringLiteral("history.sqlite"), QStringLiteral("history.sqlite-wal"), QStringLiteral("history.sqlite-shm")})
        QVERIFY2(files.contains(name), qPrintable(files.join(QLatin1Char(' '))));
    for (const QString& name : files)
        QVERIFY2(modeOf(QDir(state).filePath(name)) == 0600,
            qPrintable(QStringLiteral("%1 is %2").arg(name).arg(modeOf(QDir(state).filePath(name)), 4, 8)));
    ::kill(pid_t(server.process->processId()), SIGTERM);
    QVERIFY(server.process->waitForFinished(30'000));
}

QTEST_GUILESS_MAIN(TestHistoryLoad)
#include "tst_historyload.moc"
