// The adapter health view's models: one row per adapter joined by name from breaker states and
// adapter statuses (batches hold only changed adapters and merge by name), the state in words with
// the open breaker's countdown (refreshed once a second only while a breaker waits), the columns'
// texts, sorting through a proxy on SortRole, and the breaker's timeline, newest first. Every model
// runs under QAbstractItemModelTester.

#include "adapterhealthmodel.h"
#include "breakertimelinemodel.h"
#include "modelroles.h"

#include <QAbstractItemModelTester>
#include <QPalette>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

#include <cmath>

namespace {

constexpr qint64 Now = 1'700'000'000'000;
constexpr qint64 SecondMs = 1000;

BreakerState breaker(const QString& adapter, BreakerPhase phase, int failures = 0)
{
    BreakerState state;
    state.adapter = adapter;
    state.phase = phase;
    state.consecutiveFailures = failures;
    state.failureThreshold = 5;
    state.changedAtMs = Now - 5 * SecondMs;
    if (phase == BreakerPhase::Open)
        state.retryAtMs = Now + 12 * SecondMs;
    return state;
}

AdapterStatus status(const QString& name, AdapterConnection connection = AdapterConnection::Ready)
{
    AdapterStatus status;
    status.name = name;
    status.endpoint = QStringLiteral("http://%1:8080/mcp").arg(name);
    status.connection = connection;
    status.toolCount = 4;
    status.calls = 1234;
    status.rejectedCalls = 7;
    status.failures = 9;
    status.authenticationFailures = 2;
    status.latencyP50Us = 12'500;
    status.latencyP99Us = 340'000;
    status.lastSuccessAtMs = Now - 60 * SecondMs;
    return status;
}

BreakerTransitionRecord transition(BreakerPhase from, BreakerPhase to, const QString& reason, qint64 callId, qint64 at)
{
    BreakerTransitionRecord record;
    record.adapter = QStringLiteral("github");
    record.from = from;
    record.to = to;
    record.reason = reason;
    record.callId = callId;
    record.atMs = at;
    return record;
}

QStringList namesOf(const QAbstractItemModel& model)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(); ++row)
        names.append(model.index(row, 0).data(AdapterNameRole).toString());
    return names;
}

// WCAG's contrast ratio of two colours (1 to 21); text wants at least 4.5.
double contrast(const QColor& a, const QColor& b)
{
    const auto luminance = [](const QColor& colour) {
        const auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF());
    };
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QString text(const AdapterHealthModel& model, const QString& name, int column)
{
    return model.indexOfAdapter(name, column).data().toString();
}

} // namespace

class TestAdapterHealthModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void batchesMergeByName()
    {
        AdapterHealthModel model;
        model.setClock([] { return Now; });
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy counts(&model, &AdapterHealthModel::countChanged);

        model.applyBreakerStates({breaker(QStringLiteral("slack"), BreakerPhase::Closed),
            breaker(QStringLiteral("github"), BreakerPhase::Closed)});
        QCOMPARE(namesOf(model), (QStringList{QStringLiteral("github"), QStringLiteral("slack")}));
        QCOMPARE(inserted.size(), 2);
        QCOMPARE(counts.size(), 1);

        // The status of a known adapter joins its row; a new name inserts in name order.
        inserted.clear();
        changed.clear();
        model.applyAdapterStatuses({status(QStringLiteral("github")), status(QStringLiteral("filesystem"))});
        QCOMPARE(namesOf(model),
            (QStringList{QStringLiteral("filesystem"), QStringLiteral("github"), QStringLiteral("slack")}));
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(model.entryAt(1).name, QStringLiteral("github"));
        QVERIFY(model.entryAt(1).breaker.has_value());
        QVERIFY(model.entryAt(1).status.has_value());
        QVERIFY(!model.entryAt(0).breaker.has_value());
        QCOMPARE(counts.size(), 2);
        QCOMPARE(counts.last().at(0).toInt(), 3);

        // A batch holds only the adapters that changed: the others keep what they had.
        changed.clear();
        model.applyBreakerStates({breaker(QStringLiteral("github"), BreakerPhase::Open, 5)});
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
        QCOMPARE(text(model, QStringLiteral("github"), AdapterHealthModel::FailuresColumn), QStringLiteral("5 / 5"));
        QCOMPARE(text(model, QStringLiteral("github"), AdapterHealthModel::CallsColumn), QLocale().toString(1234));
        QCOMPARE(text(model, QStringLiteral("slack"), AdapterHealthModel::StateColumn), QStringLiteral("closed"));

        // The same state again changes nothing.
        changed.clear();
        model.applyBreakerStates({breaker(QStringLiteral("github"), BreakerPhase::Open, 5)});
        model.applyAdapterStatuses({status(QStringLiteral("github"))});
        QCOMPARE(changed.size(), 0);
        QCOMPARE(model.count(), 3);
    }

    void adapterTakenOutOfTheConfigurationStays()
    {
        // No event removes an adapter: after a reload it reports itself disabled with no tools, and
        // its row stays with its counts, so its calls in the log still have their adapter.
        AdapterHealthModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyAdapterStatuses({status(QStringLiteral("github"))});
        AdapterStatus gone = status(QStringLiteral("github"), AdapterConnection::Disabled);
        gone.toolCount = 0;
        model.applyAdapterStatuses({gone});
        QCOMPARE(model.count(), 1);
        QCOMPARE(text(model, QStringLiteral("github"), AdapterHealthModel::StateColumn), QStringLiteral("disabled"));
        QCOMPARE(text(model, QStringLiteral("github"), AdapterHealthModel::CallsColumn), QLocale().toString(1234));
    }

    void stateText_data()
    {
        QTest::addColumn<BreakerState>("breakerState");
        QTest::addColumn<bool>("hasBreaker");
        QTest::addColumn<AdapterStatus>("adapterStatus");
        QTest::addColumn<bool>("hasStatus");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("expectedHealth");

        const QString name = QStringLiteral("github");
        const BreakerState closed = breaker(name, BreakerPhase::Closed);
        const BreakerState open = breaker(name, BreakerPhase::Open, 5);
        BreakerState openDue = open;
        openDue.retryAtMs = Now - SecondMs;
        BreakerState openLong = open;
        openLong.retryAtMs = Now + 125 * SecondMs;
        BreakerState openPartSecond = open;
        openPartSecond.retryAtMs = Now + 11200;
        BreakerState openNoRetry = open;
        openNoRetry.retryAtMs = 0;
        BreakerState forced = open;
        forced.forcedOpen = true;
        forced.retryAtMs = 0;
        BreakerState forcedByAda = forced;
        forcedByAda.forcedBy = QStringLiteral("ada");
        const BreakerState halfOpen = breaker(name, BreakerPhase::HalfOpen);
        const AdapterStatus ready = status(name);
        const AdapterStatus connecting = status(name, AdapterConnection::Connecting);
        const AdapterStatus failing = status(name, AdapterConnection::Failing);
        const AdapterStatus disabled = status(name, AdapterConnection::Disabled);
        AdapterStatus disabledByOperator = disabled;
        disabledByOperator.disabledByOperator = true;

        const auto row = [&](const char* rowName, const BreakerState* b, const AdapterStatus* s, const char* expected,
                             AdapterHealth health) {
            QTest::newRow(rowName) << (b ? *b : BreakerState()) << (b != nullptr) << (s ? *s : AdapterStatus())
                                   << (s != nullptr) << QString::fromUtf8(expected) << int(health);
        };
        row("closed and ready", &closed, &ready, "closed", AdapterHealth::Healthy);
        row("closed, no status yet", &closed, nullptr, "closed", AdapterHealth::Healthy);
        row("ready, no breaker yet", nullptr, &ready, "ready", AdapterHealth::Healthy);
        row("connecting", &closed, &connecting, "connecting", AdapterHealth::Pending);
        row("connection failing", &closed, &failing, "failing", AdapterHealth::Failing);
        row("open with countdown", &open, &ready, "open — retry in 12 s", AdapterHealth::Failing);
        row("countdown rounds up", &openPartSecond, &ready, "open — retry in 12 s", AdapterHealth::Failing);
        row("countdown in minutes", &openLong, &ready, "open — retry in 2 min 05 s", AdapterHealth::Failing);
        row("open, retry due", &openDue, &ready, "open — retry due", AdapterHealth::Failing);
        row("open, no retry time", &openNoRetry, &failing, "open", AdapterHealth::Failing);
        row("half-open", &halfOpen, &ready, "half-open", AdapterHealth::Pending);
        row("forced open", &forced, &ready, "forced open", AdapterHealth::Operator);
        row("forced open by a named operator", &forcedByAda, &ready, "forced open by ada", AdapterHealth::Operator);
        row("disabled in the configuration", &closed, &disabled, "disabled", AdapterHealth::Off);
        row("disabled by the operator", &open, &disabledByOperator, "disabled by operator", AdapterHealth::Off);
    }

    void stateText()
    {
        QFETCH(BreakerState, breakerState);
        QFETCH(bool, hasBreaker);
        QFETCH(AdapterStatus, adapterStatus);
        QFETCH(bool, hasStatus);
        QFETCH(QString, expected);
        QFETCH(int, expectedHealth);

        AdapterHealthModel model;
        model.setClock([] { return Now; });
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        if (hasBreaker)
            model.applyBreakerStates({breakerState});
        if (hasStatus)
            model.applyAdapterStatuses({adapterStatus});
        const QModelIndex state = model.indexOfAdapter(QStringLiteral("github"), AdapterHealthModel::StateColumn);
        QCOMPARE(state.data().toString(), expected);
        QCOMPARE(state.data(HealthRole).toInt(), expectedHealth);
        QVERIFY(!state.data(Qt::ToolTipRole).toString().isEmpty());
        QVERIFY(state.data(FilterRole).toString().contains(expected.toLower()));
    }

    void columnsSayWhatAnOperatorNeeds()
    {
        AdapterHealthModel model;
        model.setClock([] { return Now; });
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        AdapterStatus github = status(QStringLiteral("github"), AdapterConnection::Failing);
        github.readOnly = true;
        github.lastError = QStringLiteral("connection refused\nwhile posting initialize");
        github.lastErrorAtMs = Now - 2 * SecondMs;
        model.applyAdapterStatuses({github});
        model.applyBreakerStates({breaker(QStringLiteral("github"), BreakerPhase::Closed, 3)});
        const auto cell = [&](int column, int role = Qt::DisplayRole) {
            return model.indexOfAdapter(QStringLiteral("github"), column).data(role).toString();
        };
        QCOMPARE(cell(AdapterHealthModel::AdapterColumn), QStringLiteral("github (read-only)"));
        QVERIFY(cell(AdapterHealthModel::AdapterColumn, Qt::ToolTipRole).contains(github.endpoint));
        QVERIFY(cell(AdapterHealthModel::AdapterColumn, Qt::ToolTipRole).contains(QStringLiteral("4 tools")));
        QCOMPARE(cell(AdapterHealthModel::FailuresColumn), QStringLiteral("3 / 5"));
        QVERIFY(cell(AdapterHealthModel::FailuresColumn, Qt::ToolTipRole).contains(QStringLiteral("9 failures")));
        QCOMPARE(cell(AdapterHealthModel::RejectedColumn), QStringLiteral("7"));
        QCOMPARE(cell(AdapterHealthModel::AuthFailuresColumn), QStringLiteral("2"));
        QCOMPARE(cell(AdapterHealthModel::LatencyColumn), QStringLiteral("12.5 ms / 340.0 ms"));
        QCOMPARE(cell(AdapterHealthModel::LastSuccessColumn), AdapterHealthModel::formatTime(Now - 60 * SecondMs));
        // The error's first line after its time; all of it in the tooltip.
        QCOMPARE(cell(AdapterHealthModel::LastErrorColumn),
            AdapterHealthModel::formatTime(Now - 2 * SecondMs) + QStringLiteral("  connection refused"));
        QVERIFY(cell(AdapterHealthModel::LastErrorColumn, Qt::ToolTipRole).contains(QStringLiteral("initialize")));
        QVERIFY(cell(AdapterHealthModel::StateColumn, Qt::ToolTipRole).contains(QStringLiteral("connection refused")));
        QCOMPARE(model.indexOfAdapter(QStringLiteral("github"), AdapterHealthModel::CallsColumn)
                     .data(Qt::TextAlignmentRole)
                     .toInt(),
            int(Qt::AlignRight | Qt::AlignVCenter));

        // Nothing measured yet.
        AdapterStatus fresh = status(QStringLiteral("slack"));
        fresh.latencyP50Us = 0;
        fresh.latencyP99Us = 0;
        fresh.lastSuccessAtMs = 0;
        model.applyAdapterStatuses({fresh});
        QCOMPARE(text(model, QStringLiteral("slack"), AdapterHealthModel::LatencyColumn), QStringLiteral("—"));
        QCOMPARE(text(model, QStringLiteral("slack"), AdapterHealthModel::LastSuccessColumn), QStringLiteral("never"));
        QCOMPARE(text(model, QStringLiteral("slack"), AdapterHealthModel::LastErrorColumn), QString());
        QCOMPARE(text(model, QStringLiteral("slack"), AdapterHealthModel::FailuresColumn), QString());
    }

    void countdownRefreshesOnlyWhileABreakerWaits()
    {
        AdapterHealthModel model;
        qint64 now = Now;
        model.setClock([&now] { return now; });
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyBreakerStates({breaker(QStringLiteral("github"), BreakerPhase::Closed),
            breaker(QStringLiteral("slack"), BreakerPhase::Closed)});
        QVERIFY(!model.isCountdownRunning());

        BreakerState open = breaker(QStringLiteral("github"), BreakerPhase::Open, 5);
        open.retryAtMs = Now + 2 * SecondMs;
        model.applyBreakerStates({open});
        QVERIFY(model.isCountdownRunning());
        QCOMPARE(text(model, QStringLiteral("github"), AdapterHealthModel::StateColumn),
            QStringLiteral("open — retry in 2 s"));

        // Each tick rewrites the open breaker's state cell, and only that one.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        now += SecondMs;
        model.refreshCountdowns();
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(),
            model.indexOfAdapter(QStringLiteral("github"), AdapterHealthModel::StateColumn));
        QCOMPARE(changed.at(0).at(1).toModelIndex(),
            model.indexOfAdapter(QStringLiteral("github"), AdapterHealthModel::StateColumn));
        QCOMPARE(text(model, QStringLiteral("github"), AdapterHealthModel::StateColumn),
            QStringLiteral("open — retry in 1 s"));
        QVERIFY(model.isCountdownRunning());

        // Due: one last refresh says so, then the timer stops until a breaker waits again.
        now += SecondMs;
        model.refreshCountdowns();
        QCOMPARE(
            text(model, QStringLiteral("github"), AdapterHealthModel::StateColumn), QStringLiteral("open — retry due"));
        QVERIFY(!model.isCountdownRunning());

        // The real timer, on the real clock.
        model.setClock([] { return QDateTime::currentMSecsSinceEpoch(); });
        open.retryAtMs = QDateTime::currentMSecsSinceEpoch() + 30 * SecondMs;
        model.applyBreakerStates({open});
        QVERIFY(model.isCountdownRunning());
        changed.clear();
        QVERIFY(changed.wait(3 * AdapterHealthModel::CountdownRefreshMs));

        // A forced-open breaker has no countdown; a half-open one neither.
        BreakerState forced = open;
        forced.forcedOpen = true;
        model.applyBreakerStates({forced});
        QVERIFY(!model.isCountdownRunning());
        model.applyBreakerStates({open});
        QVERIFY(model.isCountdownRunning());
        model.applyBreakerStates({breaker(QStringLiteral("github"), BreakerPhase::HalfOpen)});
        QVERIFY(!model.isCountdownRunning());
    }

    void sortsOnSortRole_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<QStringList>("ascending");

        QTest::newRow("name") << int(AdapterHealthModel::AdapterColumn)
                              << QStringList{QStringLiteral("alpha"), QStringLiteral("beta"), QStringLiteral("gamma")};
        // Healthy first, failing last.
        QTest::newRow("state") << int(AdapterHealthModel::StateColumn)
                               << QStringList{QStringLiteral("gamma"), QStringLiteral("beta"), QStringLiteral("alpha")};
        // Numbers as numbers: 900 before 1200 (as text "1,200" would come first).
        QTest::newRow("calls") << int(AdapterHealthModel::CallsColumn)
                               << QStringList{QStringLiteral("beta"), QStringLiteral("alpha"), QStringLiteral("gamma")};
        QTest::newRow("latency") << int(AdapterHealthModel::LatencyColumn)
                                 << QStringList{
                                        QStringLiteral("gamma"), QStringLiteral("alpha"), QStringLiteral("beta")};
        QTest::newRow("failures") << int(AdapterHealthModel::FailuresColumn)
                                  << QStringList{
                                         QStringLiteral("gamma"), QStringLiteral("beta"), QStringLiteral("alpha")};
    }

    void sortsOnSortRole()
    {
        QFETCH(int, column);
        QFETCH(QStringList, ascending);

        AdapterHealthModel model;
        model.setClock([] { return Now; });
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(SortRole);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);

        AdapterStatus alpha = status(QStringLiteral("alpha"));
        alpha.calls = 1200;
        alpha.latencyP50Us = 20000;
        AdapterStatus beta = status(QStringLiteral("beta"), AdapterConnection::Connecting);
        beta.calls = 900;
        beta.latencyP50Us = 300000;
        AdapterStatus gamma = status(QStringLiteral("gamma"));
        gamma.calls = 50000;
        gamma.latencyP50Us = 800;
        model.applyAdapterStatuses({alpha, beta, gamma});
        model.applyBreakerStates({breaker(QStringLiteral("alpha"), BreakerPhase::Open, 5),
            breaker(QStringLiteral("beta"), BreakerPhase::Closed, 2),
            breaker(QStringLiteral("gamma"), BreakerPhase::Closed, 0)});

        proxy.sort(column, Qt::AscendingOrder);
        QCOMPARE(namesOf(proxy), ascending);
        proxy.sort(column, Qt::DescendingOrder);
        QStringList descending = ascending;
        std::reverse(descending.begin(), descending.end());
        QCOMPARE(namesOf(proxy), descending);

        // Live updates keep the order.
        proxy.sort(int(AdapterHealthModel::CallsColumn), Qt::AscendingOrder);
        alpha.calls = 100;
        model.applyAdapterStatuses({alpha});
        QCOMPARE(namesOf(proxy).first(), QStringLiteral("alpha"));
    }

    void healthColoursReadOnLightAndDark()
    {
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        for (AdapterHealth health : {AdapterHealth::Healthy, AdapterHealth::Pending, AdapterHealth::Failing,
                 AdapterHealth::Operator, AdapterHealth::Off}) {
            const QColor onLight = AdapterHealthModel::healthColour(health, light);
            const QColor onDark = AdapterHealthModel::healthColour(health, dark);
            QVERIFY(onLight.isValid());
            QVERIFY2(contrast(onLight, light.color(QPalette::Base)) >= 4.5, qPrintable(onLight.name()));
            QVERIFY2(contrast(onDark, dark.color(QPalette::Base)) >= 4.5, qPrintable(onDark.name()));
        }
        QVERIFY(!AdapterHealthModel::healthColour(AdapterHealth::Unknown, light).isValid());
    }

    void timelineShowsNewestFirst()
    {
        BreakerTimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        const BreakerTransitionList transitions{
            transition(BreakerPhase::Closed, BreakerPhase::Open, QStringLiteral("5 consecutive failures"), 42,
                Now - 40 * SecondMs),
            transition(
                BreakerPhase::Open, BreakerPhase::HalfOpen, QStringLiteral("recovery timeout"), 0, Now - 10 * SecondMs),
            transition(BreakerPhase::HalfOpen, BreakerPhase::Closed, QStringLiteral("trial call succeeded"), 57, Now),
        };
        model.setTransitions(QStringLiteral("github"), transitions);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, BreakerTimelineModel::TransitionColumn).data().toString(),
            QStringLiteral("half-open → closed"));
        QCOMPARE(model.index(0, BreakerTimelineModel::CallColumn).data().toString(), QStringLiteral("#57"));
        QCOMPARE(model.index(0, BreakerTimelineModel::CallColumn).data(CallIdRole).toLongLong(), 57);
        QCOMPARE(model.index(1, BreakerTimelineModel::CallColumn).data().toString(), QString());
        QCOMPARE(
            model.index(1, BreakerTimelineModel::ReasonColumn).data().toString(), QStringLiteral("recovery timeout"));
        QCOMPARE(
            model.index(2, BreakerTimelineModel::TransitionColumn).data().toString(), QStringLiteral("closed → open"));
        QCOMPARE(model.index(2, BreakerTimelineModel::TransitionColumn).data(HealthRole).toInt(),
            int(AdapterHealth::Failing));
        QCOMPARE(model.index(2, BreakerTimelineModel::TimeColumn).data().toString(),
            AdapterHealthModel::formatTime(Now - 40 * SecondMs));
        QCOMPARE(resets.size(), 1);

        // The same list again is no change; a longer one replaces it.
        model.setTransitions(QStringLiteral("github"), transitions);
        QCOMPARE(resets.size(), 1);
        model.setTransitions(QStringLiteral("github"),
            transitions
                + BreakerTransitionList{transition(BreakerPhase::Closed, BreakerPhase::Open,
                    QStringLiteral("forced open by the operator"), 0, Now + SecondMs)});
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.transitionAt(0).reason, QStringLiteral("forced open by the operator"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.adapter(), QString());
    }
};

QTEST_GUILESS_MAIN(TestAdapterHealthModel)
#include "tst_adapterhealthmodel.moc"
