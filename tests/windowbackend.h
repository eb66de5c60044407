#pragma once

// WindowBackend: what a GUI test's window runs on, so that the same test functions run against both
// implementations of OperatorInterface (issue 26, item 5). With SWITCHBOARD_TEST_INTERFACE unset the
// window is on the in-process Backend, as the app's own window is; with it set to "remote" (the
// tests' second ctest entries, named *_attached) the window is on a RemoteOperator attached over
// HTTP to that same Backend, which then serves the operator API. Tests drive the window through
// operatorInterface() and keep asserting on the Backend's own signals where the backend emits them.

#include "calllogmodel.h"
#include "core/backend.h"
#include "operator/operatorfeed.h"
#include "remoteoperator.h"

#include <QTest>

#include <memory>

class WindowBackend
{
public:
    static bool attached() { return qEnvironmentVariable("SWITCHBOARD_TEST_INTERFACE") == QLatin1String("remote"); }

    // The operator token the attached window sends: the Backend's default (admin) one.
    static QByteArray operatorToken() { return QByteArrayLiteral("sbop_operator-token-of-the-attached-window-tests"); }

    // Lets the Backend serve the operator API when the window attaches to it.
    static void prepare(BackendOptions* options)
    {
        if (attached())
            options->operatorTokens = OperatorTokens(operatorToken(), {});
    }

    // For a window on `backend` (started, with prepare()'s options): construct the window on
    // operatorInterface(), then attach().
    explicit WindowBackend(Backend* backend)
        : m_backend(backend)
    {
        if (!attached())
            return;
        RemoteOperator::Settings settings;
        settings.url = backend->serverUrl(); // the /mcp URL, as a person would paste it
        settings.token = operatorToken();
        settings.firstRetryMs = 100;
        settings.maxRetryMs = 500;
        m_remote = std::make_unique<RemoteOperator>(settings);
    }

    OperatorInterface* operatorInterface() const
    {
        return m_remote ? static_cast<OperatorInterface*>(m_remote.get()) : m_backend;
    }
    RemoteOperator* remote() const { return m_remote.get(); }

    // Opens the event stream and waits until the window has the backend's whole state (at once for
    // the backend in this process).
    [[nodiscard]] bool attach(int timeoutMs = 20'000)
    {
        if (!m_remote)
            return true;
        m_remote->start();
        return QTest::qWaitFor([this] { return m_remote->isBackendConnected(); }, timeoutMs);
    }

    // How much of a live call's request and response the window's log keeps: an attached one has
    // what the operator API's event stream sends (OperatorFeed::PreviewBytes), less than the log's own.
    static qsizetype livePreviewBytes()
    {
        return attached() ? std::min(OperatorFeed::PreviewBytes, CallLogModel::PreviewBytes)
                          : CallLogModel::PreviewBytes;
    }

    // What the window's title says before any question: the backend's name when attached.
    QString windowTitle() const
    {
        const QString name = operatorInterface()->backendName();
        return name.isEmpty() ? QStringLiteral("Switchboard") : QStringLiteral("Switchboard — ") + name;
    }

private:
    Backend* m_backend;
    std::unique_ptr<RemoteOperator> m_remote;
};
