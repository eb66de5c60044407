// The window under large calls, as the issue measured it: a real Backend on port 0 and the real
// MainWindow (offscreen), 300 echo calls of one megabyte each over HTTP, then the process's RSS;
// then one 3 MB call selected in the call log while a 10 ms timer measures how late the event loop
// runs (the longest stall). Prints figures; asserts nothing about time.
//
//   QT_QPA_PLATFORM=offscreen build/ci/tests/bench_window [calls] [megabytes-per-call]

#include "callinspector.h"
#include "calllogmodel.h"
#include "core/backend.h"
#include "mainwindow.h"
#include "processstatus.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <malloc.h>

#include <algorithm>

#include <cstdio>

namespace {

const QByteArray token = "sb_benchWindowToken_0123456789abcdefghijklmnopq";

qint64 rssKiB()
{
    const qint64 bytes = processStatusBytes("VmRSS");
    return bytes < 0 ? -1 : bytes / 1024;
}

class Client
{
public:
    explicit Client(QUrl url)
        : m_url(std::move(url))
    {}

    QJsonObject post(const QJsonObject& body)
    {
        QNetworkRequest request(m_url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("Accept", "application/json, text/event-stream");
        request.setRawHeader("Authorization", "Bearer " + token);
        if (!m_session.isEmpty())
            request.setRawHeader("Mcp-Session-Id", m_session);
        if (!m_version.isEmpty())
            request.setRawHeader("MCP-Protocol-Version", m_version);
        QNetworkReply* reply = m_network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 120'000))
            qFatal("no answer");
        if (reply->hasRawHeader("Mcp-Session-Id"))
            m_session = reply->rawHeader("Mcp-Session-Id");
        const QByteArray bytes = reply->readAll();
        reply->deleteLater();
        return QJsonDocument::fromJson(bytes).object();
    }

    void initialize()
    {
        const QJsonObject answer = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), 1}, {QStringLiteral("method"), QStringLiteral("initialize")},
            {QStringLiteral("params"),
                QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                    {QStringLiteral("capabilities"), QJsonObject()},
                    {QStringLiteral("clientInfo"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("bench")},
                            {QStringLiteral("version"), QStringLiteral("1")}}}}}});
        m_version = answer[QLatin1String("result")].toObject()[QLatin1String("protocolVersion")].toString().toUtf8();
        post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("method"), QStringLiteral("notifications/initialized")}});
    }

    void echo(int id, const QString& message)
    {
        const QJsonObject answer = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id}, {QStringLiteral("method"), QStringLiteral("tools/call")},
            {QStringLiteral("params"),
                QJsonObject{{QStringLiteral("name"), QStringLiteral("echo")},
                    {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("message"), message}}}}}});
        if (!answer.contains(QLatin1String("result")))
            qFatal("echo %d failed: %s", id, QJsonDocument(answer).toJson().constData());
    }

private:
    QUrl m_url;
    QNetworkAccessManager m_network;
    QByteArray m_session;
    QByteArray m_version;
};

QString messageOf(qsizetype bytes, int seed)
{
    QString text;
    text.reserve(bytes);
    for (int i = 0; text.size() < bytes; ++i)
        text += QStringLiteral("w%1-%2 ").arg(seed).arg(i);
    text.truncate(bytes);
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    const int calls = argc > 1 ? std::atoi(argv[1]) : 300;
    const qsizetype megabytes = argc > 2 ? std::atoi(argv[2]) : 1;

    QTemporaryDir stateDir;
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = token;
    options.stateDirectory = stateDir.path();
    Backend backend(options);
    QString error;
    if (!backend.start(&error))
        qFatal("%s", qPrintable(error));
    MainWindow window(&backend, 10'000, false);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        qFatal("window not shown");
    QTest::qWait(500); // time passing is the point: the window's first layout and history load settle
    malloc_trim(0);
    const qint64 baseline = rssKiB();

    Client client(backend.serverUrl());
    client.initialize();
    QElapsedTimer sending;
    sending.start();
    for (int i = 0; i < calls; ++i)
        client.echo(10 + i, messageOf(megabytes * 1024 * 1024, i));
    CallLogModel* model = window.callLogModel();
    if (!QTest::qWaitFor([&] { return model->rowCount() >= calls; }, 120'000))
        qFatal("the calls did not reach the log");
    QTest::qWait(1000); // time passing is the point: what the window frees after its batches is freed
    const qint64 after = rssKiB();
    malloc_trim(0);
    const qint64 afterTrim = rssKiB();
    std::printf("memory: %d calls of %lld MB over HTTP in %.1f s: RSS %lld MB before, %lld MB after "
                "(%lld MB after malloc_trim); the log holds %d rows\n",
        calls, qlonglong(megabytes), double(sending.elapsed()) / 1000.0, baseline / 1024, after / 1024,
        afterTrim / 1024, model->rowCount());
    std::fflush(stdout);

    // One 3 MB call, selected in the log while a 10 ms timer measures the event loop's lateness.
    client.echo(5, messageOf(3 * 1024 * 1024, 999));
    if (!QTest::qWaitFor([&] { return model->rowCount() >= calls + 1; }, 120'000))
        qFatal("the 3 MB call did not reach the log");
    const qint64 bigId = model->callAt(model->rowCount() - 1).id;
    // History has written it (the inspector then shows the whole call, not a preview).
    QSignalSpy loaded(&backend, &OperatorInterface::historyLoaded);
    const bool written = QTest::qWaitFor(
        [&] {
            const quint64 request = backend.loadRecentCalls(1);
            const auto answered = [&] {
                return std::any_of(loaded.cbegin(), loaded.cend(),
                    [request](const QList<QVariant>& signal) { return signal.at(0).toULongLong() == request; });
            };
            if (!QTest::qWaitFor(answered, 10'000))
                return false;
            for (const QList<QVariant>& signal : std::as_const(loaded)) {
                const auto newest = signal.at(1).value<ToolCallList>();
                if (signal.at(0).toULongLong() == request)
                    return !newest.isEmpty() && newest.first().id == bigId && newest.first().isFinished();
            }
            return false;
        },
        60'000);
    if (!written)
        qFatal("history did not write the 3 MB call");

    QElapsedTimer clock;
    qint64 last = 0;
    qint64 longest = 0;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        longest = qMax(longest, now - last);
        last = now;
    });
    auto* response = window.inspector()->findChild<QPlainTextEdit*>(QStringLiteral("responseText"));
    auto* arguments = window.inspector()->findChild<QPlainTextEdit*>(QStringLiteral("argumentsText"));
    clock.start();
    ticker.start();
    QTest::qWait(200); // time passing is the point: the ticker's gaps before the selection
    const qint64 selectedAt = clock.elapsed();
    window.showCall(bigId);
    // Until the panes have stopped changing for two seconds.
    qint64 lastChange = clock.elapsed();
    int lastChars = -1;
    while (clock.elapsed() - lastChange < 2000 && clock.elapsed() < 120'000) {
        QTest::qWait(50);
        const int chars = response->document()->characterCount() + arguments->document()->characterCount();
        if (chars != lastChars) {
            lastChars = chars;
            lastChange = clock.elapsed();
        }
    }
    ticker.stop();
    std::printf("stall: selecting a %lld-byte call: longest gap between 10 ms ticks %lld ms; panes complete "
                "%lld ms after selecting (%d characters)\n",
        qlonglong(window.inspector()->call().request.size()), qlonglong(longest), qlonglong(lastChange - selectedAt),
        lastChars);
    std::fflush(stdout);
    backend.stop();
    return 0;
}
