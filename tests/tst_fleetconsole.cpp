// One window on several backends (issue 26, item 4): two real Backends, each serving the operator API
// on port 0, and the real MainWindow on a FleetOperator of two RemoteOperators (and, in one case, of
// the first Backend in-process beside a RemoteOperator of the second). Calls of both show in the log
// named with their backend and with ids of their own; a question from each, answered with a click,
// reaches the backend that asked (the call's decision there says who answered); one backend stopped
// is said by name while the other keeps working and its questions stay answerable; a history search
// returns both backends' calls, newest first.

#include "adapterhealthmodel.h"
#include "adapterhealthview.h"
#include "approvalwidget.h"
#include "boundedjson.h"
#include "callcolumns.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "core/backend.h"
#include "dashboardview.h"
#include "fleetoperator.h"
#include "interactionmodel.h"
#include "interactionpanel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "permissionsmodel.h"
#include "permissionsview.h"
#include "remoteoperator.h"
#include "sessionlistmodel.h"
#include "statuswarning.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

const QByteArray OperatorToken = "sbop_operator-token-for-the-fleet-console-test";
constexpr int TimeoutMs = 20'000;

// One Backend of the fleet and what its own interface says of its calls.
struct Served
{
    std::unique_ptr<QTemporaryDir> dir;
    std::unique_ptr<Backend> backend;
    QMap<qint64, ToolCall> calls;
};

} // namespace

class TestFleetConsole : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void showsAndAnswersBothBackends();
    void keepsTheOtherBackendWhenOneStops();
    void searchesTheHistoryOfBoth();
    void holdsThisMachineBesideAnAttachedOne();

private:
    void serve(Served& served);
    // The fleet on both backends, the first in-process when `local`; the window on it.
    void openWindow(bool local);
    RemoteOperator* attach(Served& served);
    // The approval of an echo call the backend's console made, once it shows in the window.
    ApprovalWidget* raiseApproval(Served& served, const QString& backendName, const QString& text);
    // Clicks Allow once, and checks the call finished on `served` with the operator's decision.
    void allowOnce(ApprovalWidget* widget, Served& served, const QString& text);
    QString nameOf(const Served& served) const;

    Served m_first;
    Served m_second;
    std::unique_ptr<FleetOperator> m_fleet;
    std::unique_ptr<MainWindow> m_window;
    QList<QAbstractItemModelTester*> m_testers;
};

void TestFleetConsole::init()
{
    serve(m_first);
    serve(m_second);
}

void TestFleetConsole::cleanup()
{
    qDeleteAll(m_testers);
    m_testers.clear();
    m_window.reset();
    m_fleet.reset();
    for (Served* served : {&m_first, &m_second}) {
        served->backend.reset();
        served->dir.reset();
        served->calls.clear();
    }
}

void TestFleetConsole::serve(Served& served)
{
    served.dir = std::make_unique<QTemporaryDir>();
    QVERIFY(served.dir->isValid());
    const QString configPath = served.dir->filePath(QStringLiteral("config.yaml"));
    QFile file(configPath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("permissions:\n  tools:\n    echo: ask\n");
    file.close();
    BackendOptions options;
    QString error;
    QVERIFY2(SwitchboardConfig::load(configPath, &options.config, &error), qPrintable(error));
    options.configPath = configPath;
    options.stateDirectory = served.dir->filePath(QStringLiteral("state"));
    options.server.port = 0;
    options.server.bearerToken = "sb_client-token-for-the-fleet-console-test";
    options.operatorTokens = OperatorTokens(OperatorToken, {});
    served.backend = std::make_unique<Backend>(options);
    QVERIFY2(served.backend->start(&error), qPrintable(error));
    connect(served.backend.get(), &OperatorInterface::callsUpdated, this, [&served](const ToolCallList& calls) {
        for (const ToolCall& call : calls)
            served.calls.insert(call.id, call);
    });
}

RemoteOperator* TestFleetConsole::attach(Served& served)
{
    RemoteOperator::Settings settings;
    settings.url = served.backend->serverUrl();
    settings.token = OperatorToken;
    settings.firstRetryMs = 100;
    settings.maxRetryMs = 500;
    auto* remote = new RemoteOperator(settings);
    if (!m_fleet->addBackend(remote, remote->backendName(), true, true)) {
        delete remote;
        return nullptr;
    }
    return remote;
}

QString TestFleetConsole::nameOf(const Served& served) const
{
    if (m_fleet->backend(FleetOperator::localName()) == served.backend.get())
        return FleetOperator::localName();
    const QUrl url = served.backend->serverUrl();
    return QStringLiteral("%1:%2").arg(url.host()).arg(url.port());
}

void TestFleetConsole::openWindow(bool local)
{
    m_fleet = std::make_unique<FleetOperator>();
    QList<RemoteOperator*> remotes;
    if (local)
        QVERIFY(m_fleet->addBackend(m_first.backend.get(), FleetOperator::localName(), false, false));
    else
        remotes.append(attach(m_first));
    remotes.append(attach(m_second));
    QVERIFY(!remotes.contains(nullptr));
    QCOMPARE(m_fleet->backendNames().size(), 2);
    m_window = std::make_unique<MainWindow>(m_fleet.get(), 1000, false);
    m_testers.append(
        new QAbstractItemModelTester(m_window->callLogModel(), QAbstractItemModelTester::FailureReportingMode::QtTest));
    m_testers.append(new QAbstractItemModelTester(
        m_window->interactionPanel()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest));
    m_testers.append(new QAbstractItemModelTester(
        m_window->adapterHealthView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest));
    m_testers.append(new QAbstractItemModelTester(
        m_window->findChild<PermissionsView*>()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest));
    m_testers.append(new QAbstractItemModelTester(
        m_window->findChild<DashboardView*>()->sessionModel(), QAbstractItemModelTester::FailureReportingMode::QtTest));
    m_window->show();
    for (RemoteOperator* remote : std::as_const(remotes))
        remote->start();
    QTRY_VERIFY_WITH_TIMEOUT(m_fleet->isBackendConnected(), TimeoutMs);
    // Two backends: the log names each row's.
    QVERIFY(!m_window->callLogView()->tableView()->horizontalHeader()->isSectionHidden(CallColumns::BackendColumn));
}

ApprovalWidget* TestFleetConsole::raiseApproval(Served& served, const QString& backendName, const QString& text)
{
    const QByteArray arguments = QByteArray::fromStdString(nlohmann::json{{"text", text.toStdString()}}.dump());
    served.backend->callTool(QStringLiteral("echo"), arguments);
    InteractionPanel* panel = m_window->interactionPanel();
    ApprovalWidget* found = nullptr;
    const bool shown = QTest::qWaitFor(
        [&] {
            for (int row = 0; row < panel->model()->rowCount(); ++row) {
                const PendingInteraction interaction = panel->model()->interactionAt(row);
                if (interaction.backend == backendName && interaction.arguments.contains(text.toUtf8()))
                    found = qobject_cast<ApprovalWidget*>(panel->widgetFor(interaction.id));
            }
            return found != nullptr;
        },
        TimeoutMs);
    if (!shown)
        return nullptr;
    panel->selectInteraction(found->interactionId());
    return found;
}

void TestFleetConsole::allowOnce(ApprovalWidget* widget, Served& served, const QString& text)
{
    // The question's header names the backend that asks.
    auto* backendLabel = widget->findChild<QLabel*>(QStringLiteral("backendLabel"));
    QVERIFY(backendLabel);
    QCOMPARE(backendLabel->text(), widget->interaction().backend);
    QVERIFY(!backendLabel->isHidden());
    auto* allow = widget->findChild<QPushButton*>(QStringLiteral("allowOnceButton"));
    QVERIFY(allow);
    QTRY_VERIFY_WITH_TIMEOUT(allow->isEnabled() && widget->isEnabled(), TimeoutMs);
    const QString id = widget->interactionId();
    QTest::mouseClick(allow, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->interactionPanel()->widgetFor(id), TimeoutMs);
    // The backend that asked ran the call, and says the operator allowed it.
    const auto finished = [&served, &text]() -> std::optional<ToolCall> {
        for (const ToolCall& call : std::as_const(served.calls)) {
            if (call.request.contains(text.toUtf8()) && call.isFinished())
                return call;
        }
        return std::nullopt;
    };
    QTRY_VERIFY_WITH_TIMEOUT(finished().has_value(), TimeoutMs);
    const ToolCall call = *finished();
    QCOMPARE(call.status, CallStatus::Ok);
    const BoundedJson::Result<nlohmann::json> decision
        = BoundedJson::parse(call.decision, BoundedJson::Limits::message());
    QVERIFY(decision.ok);
    // Remote answers are the operator token's; the in-process backend's are the console user's.
    QCOMPARE(decision.value.value("what", std::string()), std::string("allow_once"));
    if (nameOf(served) != FleetOperator::localName())
        QCOMPARE(decision.value.value("by", std::string()), std::string("operator:default"));
}

void TestFleetConsole::showsAndAnswersBothBackends()
{
    openWindow(false);
    const QString firstName = nameOf(m_first);
    const QString secondName = nameOf(m_second);
    QVERIFY(firstName != secondName);
    QVERIFY(m_window->windowTitle().contains(firstName));
    QVERIFY(m_window->windowTitle().contains(secondName));

    ApprovalWidget* fromFirst = raiseApproval(m_first, firstName, QStringLiteral("from the first"));
    QVERIFY(fromFirst);
    ApprovalWidget* fromSecond = raiseApproval(m_second, secondName, QStringLiteral("from the second"));
    QVERIFY(fromSecond);
    QVERIFY(fromFirst->interactionId() != fromSecond->interactionId());
    QCOMPARE(m_window->interactionPanel()->count(), 2);

    // Both calls in the log, each named with its backend, with ids of their own.
    CallLogModel* log = m_window->callLogModel();
    const auto rowsOf = [log](const QString& backend) {
        QList<ToolCall> calls;
        for (int row = 0; row < log->rowCount(); ++row) {
            const ToolCall call = log->index(row, 0).data(CallRole).value<ToolCall>();
            if (call.backend == backend)
                calls.append(call);
        }
        return calls;
    };
    QTRY_VERIFY_WITH_TIMEOUT(!rowsOf(firstName).isEmpty() && !rowsOf(secondName).isEmpty(), TimeoutMs);
    QSet<qint64> ids;
    for (int row = 0; row < log->rowCount(); ++row) {
        const QModelIndex backendCell = log->index(row, CallColumns::BackendColumn);
        const QString shown = backendCell.data().toString();
        QVERIFY2(shown == firstName || shown == secondName, qPrintable(shown));
        ids.insert(log->index(row, 0).data(CallIdRole).toLongLong());
    }
    QCOMPARE(ids.size(), log->rowCount());
    // The second backend's first call is its id 1, as the first backend's is: apart in the window.
    QVERIFY(rowsOf(secondName).first().id > FleetOperator::SlotStride);
    QCOMPARE(m_fleet->backendCallId(rowsOf(secondName).first().id).first, secondName);

    // Each backend's configured rule (echo: ask) shows in Permissions, named with its backend.
    PermissionsModel* permissions = m_window->findChild<PermissionsView*>()->model();
    m_fleet->listGrants();
    const auto ruleOf = [permissions](const QString& backend) {
        for (int row = 0; row < permissions->rowCount(); ++row) {
            const QString where = permissions->index(row, PermissionsModel::WhereColumn).data().toString();
            if (permissions->entry(row).subject == QLatin1String("echo") && where.endsWith(backend))
                return true;
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(ruleOf(firstName) && ruleOf(secondName), TimeoutMs);

    // Answered with a click, each reaches its own backend: the second's first, out of order.
    allowOnce(fromSecond, m_second, QStringLiteral("from the second"));
    allowOnce(fromFirst, m_first, QStringLiteral("from the first"));
}

void TestFleetConsole::keepsTheOtherBackendWhenOneStops()
{
    openWindow(false);
    const QString firstName = nameOf(m_first);
    const QString secondName = nameOf(m_second);
    ApprovalWidget* waiting = raiseApproval(m_second, secondName, QStringLiteral("asked before the stop"));
    QVERIFY(waiting);
    const QString waitingId = waiting->interactionId();

    m_second.backend.reset();
    // The status bar says which backend is lost; the window is not live as a whole.
    QTRY_VERIFY_WITH_TIMEOUT(!m_fleet->backendProblem(secondName).isEmpty(), TimeoutMs);
    QVERIFY(m_fleet->backendProblem(firstName).isEmpty());
    QVERIFY(!m_fleet->isBackendConnected());
    QTRY_COMPARE_WITH_TIMEOUT(m_window->backendStatus()->state(), StatusWarning::State::Problem, TimeoutMs);
    QVERIFY2(m_window->backendStatus()->text().contains(secondName), qPrintable(m_window->backendStatus()->text()));
    QVERIFY(!m_window->backendStatus()->text().contains(firstName));
    QVERIFY(m_window->windowTitle().contains(QLatin1String("disconnected")));
    // Its question waits, not answerable; the panel is.
    QVERIFY(m_window->interactionPanel()->isEnabled());
    if (InteractionWidget* stale = m_window->interactionPanel()->widgetFor(waitingId))
        QVERIFY(!stale->isEnabled());

    // The other keeps working: its question shows and is answered.
    ApprovalWidget* fromFirst = raiseApproval(m_first, firstName, QStringLiteral("asked after the stop"));
    QVERIFY(fromFirst);
    QVERIFY(fromFirst->isEnabled());
    allowOnce(fromFirst, m_first, QStringLiteral("asked after the stop"));
}

void TestFleetConsole::searchesTheHistoryOfBoth()
{
    openWindow(false);
    const QString firstName = nameOf(m_first);
    const QString secondName = nameOf(m_second);
    allowOnce(
        raiseApproval(m_first, firstName, QStringLiteral("first history")), m_first, QStringLiteral("first history"));
    allowOnce(raiseApproval(m_second, secondName, QStringLiteral("second history")), m_second,
        QStringLiteral("second history"));

    HistoryQuery query;
    query.limit = 50;
    QSignalSpy loaded(m_fleet.get(), &OperatorInterface::historyLoaded);
    QSignalSpy counted(m_fleet.get(), &OperatorInterface::historyCounted);
    // History is written a moment after a call ends: ask until both backends' calls are there.
    ToolCallList calls;
    const bool found = QTest::qWaitFor(
        [&] {
            loaded.clear();
            const quint64 request = m_fleet->queryHistory(query);
            if (!QTest::qWaitFor([&] { return !loaded.isEmpty(); }, TimeoutMs))
                return false;
            if (loaded.first().at(0).toULongLong() != request)
                return false;
            calls = loaded.first().at(1).value<ToolCallList>();
            const auto has = [&calls](const QString& backend) {
                return std::any_of(calls.cbegin(), calls.cend(), [&backend](const ToolCall& call) {
                    return call.backend == backend && call.tool == QLatin1String("echo");
                });
            };
            return has(firstName) && has(secondName);
        },
        TimeoutMs);
    QVERIFY(found);
    for (qsizetype i = 1; i < calls.size(); ++i)
        QVERIFY(calls.at(i - 1).startedAtMs >= calls.at(i).startedAtMs);
    // A call's whole record comes from its own backend, by the window's id.
    const ToolCall second = *std::find_if(
        calls.cbegin(), calls.cend(), [&secondName](const ToolCall& call) { return call.backend == secondName; });
    HistoryQuery byId;
    byId.callId = second.id;
    loaded.clear();
    const quint64 request = m_fleet->queryHistory(byId);
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), TimeoutMs);
    QCOMPARE(loaded.first().at(0).toULongLong(), request);
    const ToolCallList one = loaded.first().at(1).value<ToolCallList>();
    QCOMPARE(one.size(), 1);
    QCOMPARE(one.first().id, second.id);
    QCOMPARE(one.first().backend, secondName);
    // Counted over both.
    const quint64 countRequest = m_fleet->countHistory(HistoryQuery());
    QTRY_VERIFY_WITH_TIMEOUT(!counted.isEmpty(), TimeoutMs);
    QCOMPARE(counted.first().at(0).toULongLong(), countRequest);
    QVERIFY(counted.first().at(1).toLongLong() >= 2);
}

void TestFleetConsole::holdsThisMachineBesideAnAttachedOne()
{
    openWindow(true);
    const QString localName = FleetOperator::localName();
    const QString secondName = nameOf(m_second);
    QCOMPARE(nameOf(m_first), localName);
    ApprovalWidget* local = raiseApproval(m_first, localName, QStringLiteral("asked here"));
    QVERIFY(local);
    ApprovalWidget* remote = raiseApproval(m_second, secondName, QStringLiteral("asked there"));
    QVERIFY(remote);
    allowOnce(remote, m_second, QStringLiteral("asked there"));
    allowOnce(local, m_first, QStringLiteral("asked here"));
    // Detached, the attached one's questions leave and the log names no backend again.
    m_fleet->detachBackend(secondName);
    QCOMPARE(m_fleet->backendNames(), QStringList{localName});
    QVERIFY(m_window->callLogView()->tableView()->horizontalHeader()->isSectionHidden(CallColumns::BackendColumn));
}

QTEST_MAIN(TestFleetConsole)
#include "tst_fleetconsole.moc"
