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
#include "attachdialog.h"
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
#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
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
    void attachesFromTheFileMenu();
    void namesEveryRowRight();

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

    // The second backend asks first: its call comes first in the log, though the first backend was
    // added first.
    ApprovalWidget* fromSecond = raiseApproval(m_second, secondName, QStringLiteral("from the second"));
    QVERIFY(fromSecond);
    ApprovalWidget* fromFirst = raiseApproval(m_first, firstName, QStringLiteral("from the first"));
    QVERIFY(fromFirst);
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
    // In the order they came, whichever backend they came from.
    const ToolCall secondCall = rowsOf(secondName).first();
    const ToolCall firstCall = rowsOf(firstName).first();
    QVERIFY(log->indexOfCall(secondCall.id).row() < log->indexOfCall(firstCall.id).row());
    // Both backends' first call is their id 1: each has an id of its own in the window, which maps back.
    QVERIFY(secondCall.id != firstCall.id);
    QCOMPARE(m_fleet->backendCallId(secondCall.id).first, secondName);
    QCOMPARE(m_fleet->backendCallId(firstCall.id).first, firstName);
    QVERIFY(m_second.calls.contains(m_fleet->backendCallId(secondCall.id).second));
    QVERIFY(m_second.calls.value(m_fleet->backendCallId(secondCall.id).second).request.contains("from the second"));
    QVERIFY(m_first.calls.value(m_fleet->backendCallId(firstCall.id).second).request.contains("from the first"));
    // The question's "Show call" is the log's row.
    QCOMPARE(fromSecond->interaction().callId, secondCall.id);

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
    // Paged one at a time: each page goes on where each backend stopped, through both and no further.
    const auto page = [&](qint64 beforeId) {
        HistoryQuery paged;
        paged.limit = 1;
        paged.beforeId = beforeId;
        loaded.clear();
        const quint64 id = m_fleet->queryHistory(paged);
        [&] { QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), TimeoutMs); }();
        if (loaded.isEmpty() || loaded.first().at(0).toULongLong() != id)
            return std::pair(ToolCallList(), false);
        return std::pair(loaded.first().at(1).value<ToolCallList>(), loaded.first().at(2).toBool());
    };
    const auto [newest, moreAfterNewest] = page(0);
    QCOMPARE(newest.size(), 1);
    QVERIFY(moreAfterNewest);
    const auto [older, moreAfterOlder] = page(newest.first().id);
    QCOMPARE(older.size(), 1);
    QVERIFY(older.first().backend != newest.first().backend);
    QVERIFY(!moreAfterOlder);
    const auto [none, moreAfterNone] = page(older.first().id);
    QVERIFY(none.isEmpty());
    QVERIFY(!moreAfterNone);

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

void TestFleetConsole::attachesFromTheFileMenu()
{
    // A window started with its own backend only: nothing is named yet.
    m_fleet = std::make_unique<FleetOperator>();
    QVERIFY(m_fleet->addBackend(m_first.backend.get(), FleetOperator::localName(), false, false));
    m_window = std::make_unique<MainWindow>(m_fleet.get(), 1000, false);
    m_window->show();
    QVERIFY(m_window->callLogView()->tableView()->horizontalHeader()->isSectionHidden(CallColumns::BackendColumn));
    // Its calls are its own, as in a window without a fleet.
    m_first.backend->callTool(QStringLiteral("echo"), R"({"text":"before attaching"})");
    CallLogModel* log = m_window->callLogModel();
    QTRY_COMPARE_WITH_TIMEOUT(log->rowCount(), 1, TimeoutMs);
    const ToolCall before = log->index(0, 0).data(CallRole).value<ToolCall>();
    QVERIFY(before.backend.isEmpty());
    QVERIFY(m_first.calls.contains(before.id));

    // File ▸ Attach…: the URL as a person pastes it, the token masked.
    auto* attachAction = m_window->findChild<QAction*>(QStringLiteral("attachAction"));
    QVERIFY(attachAction);
    QVERIFY(m_window->menu(MainWindow::Menu::File)->actions().contains(attachAction));
    attachAction->trigger();
    auto* dialog = m_window->findChild<AttachDialog*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->tokenEdit()->echoMode(), QLineEdit::Password);
    dialog->urlEdit()->setText(m_second.backend->serverUrl().toString());
    dialog->tokenEdit()->setText(QString::fromLatin1(OperatorToken));
    dialog->accept();
    QTRY_COMPARE_WITH_TIMEOUT(m_fleet->backendNames().size(), 2, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(m_fleet->isBackendConnected(), TimeoutMs);
    QVERIFY(!m_window->callLogView()->tableView()->horizontalHeader()->isSectionHidden(CallColumns::BackendColumn));
    // The log started again: the call from before names this machine now.
    const auto named = [log](const QByteArray& text, const QString& backend) {
        for (int row = 0; row < log->rowCount(); ++row) {
            const ToolCall call = log->index(row, 0).data(CallRole).value<ToolCall>();
            if (call.request.contains(text))
                return call.backend == backend;
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(named("before attaching", FleetOperator::localName()), TimeoutMs);

    const QString secondName = nameOf(m_second);
    ApprovalWidget* remote = raiseApproval(m_second, secondName, QStringLiteral("asked after attaching"));
    QVERIFY(remote);
    allowOnce(remote, m_second, QStringLiteral("asked after attaching"));

    // The same backend twice is refused; this machine cannot be detached.
    QSignalSpy failed(m_fleet.get(), &OperatorInterface::commandFailed);
    m_fleet->attachBackend(m_second.backend->serverUrl(), OperatorToken, QString());
    m_fleet->detachBackend(FleetOperator::localName());
    QCOMPARE(failed.size(), 2);
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("attachBackend"));
    QCOMPARE(failed.at(1).at(0).toString(), QStringLiteral("detachBackend"));
    QCOMPARE(m_fleet->backendNames().size(), 2);
    // Detached, it is gone from the window.
    m_fleet->detachBackend(secondName);
    QCOMPARE(m_fleet->backendNames(), QStringList{FleetOperator::localName()});
}

void TestFleetConsole::namesEveryRowRight()
{
    openWindow(false);
    const QString firstName = nameOf(m_first);
    const QString secondName = nameOf(m_second);
    // Calls on both, one after the other, without waiting for the window between them.
    for (int round = 0; round < 3; ++round) {
        for (Served* served : {&m_first, &m_second}) {
            const QString text = QStringLiteral("%1 round %2").arg(nameOf(*served)).arg(round);
            served->backend->callTool(
                QStringLiteral("echo"), QByteArray::fromStdString(nlohmann::json{{"text", text.toStdString()}}.dump()));
        }
    }
    CallLogModel* log = m_window->callLogModel();
    QTRY_COMPARE_WITH_TIMEOUT(log->rowCount(), 6, TimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->interactionPanel()->count(), 6, TimeoutMs);
    for (int row = 0; row < log->rowCount(); ++row) {
        const ToolCall call = log->index(row, 0).data(CallRole).value<ToolCall>();
        QVERIFY2(call.request.contains(QByteArray(call.backend.toUtf8() + " round")), call.request.constData());
    }
    for (int row = 0; row < m_window->interactionPanel()->model()->rowCount(); ++row) {
        const PendingInteraction interaction = m_window->interactionPanel()->model()->interactionAt(row);
        QVERIFY2(interaction.arguments.contains(QByteArray(interaction.backend.toUtf8() + " round")),
            interaction.arguments.constData());
        QVERIFY(log->indexOfCall(interaction.callId).isValid());
        const ToolCall call = log->indexOfCall(interaction.callId).data(CallRole).value<ToolCall>();
        QCOMPARE(call.backend, interaction.backend);
    }
}

QTEST_MAIN(TestFleetConsole)
#include "tst_fleetconsole.moc"
