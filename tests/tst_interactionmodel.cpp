// InteractionModel: pending and changed questions insert or update by id, resolved ones leave, a
// listing makes the rows match it; the count follows; each column says what a person reads.

#include "interactionmodel.h"
#include "modelroles.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QTest>

namespace {

constexpr qint64 Now = 1'700'000'000'000;

PendingInteraction makeInteraction(const QString& id, qint64 callId = 7)
{
    PendingInteraction interaction;
    interaction.id = id;
    interaction.kind = InteractionKind::Approval;
    interaction.render = RenderHint::Approval;
    interaction.tool = QStringLiteral("echo");
    interaction.toolTitle = QStringLiteral("Echo");
    interaction.route = ToolRoute::builtin();
    interaction.arguments = R"({"message":"hi"})";
    interaction.sessionId = QStringLiteral("0123456789abcdefghij");
    interaction.clientName = QStringLiteral("claude-code");
    interaction.clientVersion = QStringLiteral("2.0.31");
    interaction.callId = callId;
    interaction.waiting = true;
    interaction.createdAtMs = Now - 5000;
    interaction.key = QStringLiteral("echo\n{\"message\":\"hi\"}");
    return interaction;
}

QStringList idsOf(const InteractionModel& model)
{
    QStringList ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids.append(model.index(row, 0).data(InteractionIdRole).toString());
    return ids;
}

} // namespace

class TestInteractionModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pendingQuestionsQueueUpInArrivalOrder()
    {
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy counts(&model, &InteractionModel::countChanged);

        model.upsert(makeInteraction(QStringLiteral("ia-1"), 10));
        model.upsert(makeInteraction(QStringLiteral("ia-2"), 11));
        QCOMPARE(idsOf(model), (QStringList{QStringLiteral("ia-1"), QStringLiteral("ia-2")}));
        QCOMPARE(model.count(), 2);
        QCOMPARE(counts.size(), 2);
        QCOMPARE(counts.last().at(0).toInt(), 2);
        QCOMPARE(model.index(1, 0).data(CallIdRole).toLongLong(), qint64(11));
        QCOMPARE(model.index(1, 0).data(InteractionRole).value<PendingInteraction>().callId, qint64(11));
        QCOMPARE(model.indexOfInteraction(QStringLiteral("ia-2")).row(), 1);
        QVERIFY(!model.indexOfInteraction(QStringLiteral("ia-3")).isValid());
    }

    void aChangeUpdatesTheRowInPlace()
    {
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.upsert(makeInteraction(QStringLiteral("ia-1"), 10));
        model.upsert(makeInteraction(QStringLiteral("ia-2"), 11));
        QSignalSpy counts(&model, &InteractionModel::countChanged);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

        // A retried call re-attached: new call id, the old one listed as earlier.
        PendingInteraction retried = makeInteraction(QStringLiteral("ia-1"), 20);
        retried.earlierCallIds = {10};
        model.upsert(retried);
        QCOMPARE(inserted.size(), 0);
        QCOMPARE(counts.size(), 0);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(model.index(0, 0).data(CallIdRole).toLongLong(), qint64(20));
        QCOMPARE(model.interactionAt(0).earlierCallIds, (QList<qint64>{10}));
    }

    void resolvedQuestionsLeave()
    {
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.upsert(makeInteraction(QStringLiteral("ia-1")));
        model.upsert(makeInteraction(QStringLiteral("ia-2")));
        model.upsert(makeInteraction(QStringLiteral("ia-3")));
        QSignalSpy counts(&model, &InteractionModel::countChanged);

        model.remove(QStringLiteral("ia-2"));
        QCOMPARE(idsOf(model), (QStringList{QStringLiteral("ia-1"), QStringLiteral("ia-3")}));
        QCOMPARE(counts.size(), 1);
        QCOMPARE(counts.at(0).at(0).toInt(), 2);

        model.remove(QStringLiteral("ia-unknown")); // resolved before it was ever shown
        QCOMPARE(counts.size(), 1);
        QCOMPARE(model.count(), 2);

        model.clear();
        QCOMPARE(model.count(), 0);
        QCOMPARE(counts.last().at(0).toInt(), 0);
    }

    void aListingReplacesWhatIsShown()
    {
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.upsert(makeInteraction(QStringLiteral("ia-1"), 1));
        model.upsert(makeInteraction(QStringLiteral("ia-2"), 2));
        QSignalSpy counts(&model, &InteractionModel::countChanged);

        // ia-1 was resolved meanwhile, ia-2 changed, ia-3 was restored from before a restart.
        PendingInteraction second = makeInteraction(QStringLiteral("ia-2"), 5);
        second.waiting = false;
        model.setInteractions({second, makeInteraction(QStringLiteral("ia-3"), 3)});
        // ia-3's call waits; ia-2's no longer does, so it queues behind.
        QCOMPARE(idsOf(model), (QStringList{QStringLiteral("ia-3"), QStringLiteral("ia-2")}));
        QCOMPARE(model.index(1, 0).data(CallIdRole).toLongLong(), qint64(5));
        QCOMPARE(model.index(1, InteractionModel::StateColumn).data().toString(), QStringLiteral("no call waiting"));
        QCOMPARE(counts.size(), 0); // two before, two after

        model.setInteractions({});
        QCOMPARE(model.count(), 0);
        QCOMPARE(counts.size(), 1);
        QCOMPARE(counts.at(0).at(0).toInt(), 0);
    }

    void columns_data()
    {
        QTest::addColumn<QString>("render");
        QTest::addColumn<bool>("waiting");
        QTest::addColumn<bool>("parked");
        QTest::addColumn<QString>("clientVersion");
        QTest::addColumn<QString>("toolTitle");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("state");

        QTest::newRow("approval held") << QStringLiteral("approval") << true << false << QStringLiteral("2.0.31")
                                       << QStringLiteral("Echo") << QStringLiteral("Approval") << QStringLiteral("Echo")
                                       << QStringLiteral("claude-code 2.0.31") << QStringLiteral("waiting (hold)");
        QTest::newRow("connect parked") << QStringLiteral("connect") << false << true << QString()
                                        << QStringLiteral("Request a connection") << QStringLiteral("Connect")
                                        << QStringLiteral("Request a connection") << QStringLiteral("claude-code")
                                        << QStringLiteral("parked");
        QTest::newRow("confirm dropped") << QStringLiteral("confirm") << false << false << QStringLiteral("1")
                                         << QString() << QStringLiteral("Confirm") << QStringLiteral("echo")
                                         << QStringLiteral("claude-code 1") << QStringLiteral("no call waiting");
        QTest::newRow("choice") << QStringLiteral("choice") << true << false << QStringLiteral("1") << QString()
                                << QStringLiteral("Choice") << QStringLiteral("echo") << QStringLiteral("claude-code 1")
                                << QStringLiteral("waiting (hold)");
        QTest::newRow("form") << QStringLiteral("form") << true << false << QStringLiteral("1") << QString()
                              << QStringLiteral("Form") << QStringLiteral("echo") << QStringLiteral("claude-code 1")
                              << QStringLiteral("waiting (hold)");
    }

    void columns()
    {
        QFETCH(QString, render);
        QFETCH(bool, waiting);
        QFETCH(bool, parked);
        QFETCH(QString, clientVersion);
        QFETCH(QString, toolTitle);

        PendingInteraction interaction = makeInteraction(QStringLiteral("ia-1"));
        interaction.render = *renderHintFromName(render);
        interaction.kind
            = render == QStringLiteral("approval") ? InteractionKind::Approval : InteractionKind::ClientTool;
        interaction.waiting = waiting;
        interaction.mode = parked ? PauseMode::Park : PauseMode::Hold;
        interaction.clientVersion = clientVersion;
        interaction.toolTitle = toolTitle;

        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClock([] { return Now; });
        model.upsert(interaction);
        const auto text = [&model](int column) { return model.index(0, column).data().toString(); };
        QTEST(text(InteractionModel::KindColumn), "kind");
        QTEST(text(InteractionModel::ToolColumn), "tool");
        QTEST(text(InteractionModel::ClientColumn), "client");
        QTEST(text(InteractionModel::StateColumn), "state");
        QCOMPARE(text(InteractionModel::SessionColumn), QStringLiteral("01234567…"));
        QCOMPARE(
            model.index(0, InteractionModel::SessionColumn).data(Qt::ToolTipRole).toString(), interaction.sessionId);
        QCOMPARE(model.index(0, InteractionModel::ToolColumn).data(Qt::ToolTipRole).toString(), QStringLiteral("echo"));
        QVERIFY(!model.index(0, InteractionModel::StateColumn).data(Qt::ToolTipRole).toString().isEmpty());
        QCOMPARE(text(InteractionModel::AgeColumn), QStringLiteral("5 s"));
        QCOMPARE(model.headerData(InteractionModel::StateColumn, Qt::Horizontal).toString(), QStringLiteral("Call"));
    }

    void age_data()
    {
        QTest::addColumn<qint64>("ageMs");
        QTest::addColumn<QString>("label");
        QTest::newRow("just now") << qint64(0) << QStringLiteral("0 s");
        QTest::newRow("clock skew") << qint64(-3000) << QStringLiteral("0 s");
        QTest::newRow("seconds") << qint64(59'999) << QStringLiteral("59 s");
        QTest::newRow("a minute") << qint64(60'000) << QStringLiteral("1 min");
        QTest::newRow("minutes") << qint64(3'599'000) << QStringLiteral("59 min");
        QTest::newRow("hours") << qint64(7'200'000) << QStringLiteral("2 h");
        QTest::newRow("days") << qint64(3 * 86'400'000LL) << QStringLiteral("3 d");
    }

    void age()
    {
        QFETCH(qint64, ageMs);
        QTEST(InteractionModel::formatAge(ageMs), "label");
    }

    void ageFollowsTheClock()
    {
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        qint64 now = Now;
        model.setClock([&now] { return now; });
        model.upsert(makeInteraction(QStringLiteral("ia-1")));
        const QModelIndex age = model.index(0, InteractionModel::AgeColumn);
        QCOMPARE(age.data().toString(), QStringLiteral("5 s"));

        now += 120'000;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        // The model refreshes the column by itself (once a second) while rows are pending.
        QVERIFY(changed.wait(10'000));
        QCOMPARE(changed.last().at(0).value<QModelIndex>().column(), int(InteractionModel::TimeLeftColumn));
        QCOMPARE(changed.last().at(1).value<QModelIndex>().column(), int(InteractionModel::AgeColumn));
        QCOMPARE(age.data().toString(), QStringLiteral("2 min"));
    }

    void detailsTellLookAlikesApart_data()
    {
        QTest::addColumn<QString>("render");
        QTest::addColumn<QByteArray>("arguments");
        QTest::addColumn<QByteArray>("renderSpec");
        QTest::addColumn<QString>("details");
        QTest::newRow("first arguments in the client's order")
            << QStringLiteral("approval") << QByteArray(R"({"path":"src/b.txt","force":true,"count":2})")
            << QByteArray("{}") << QStringLiteral("path: src/b.txt, force: true, count: 2");
        QTest::newRow("long values are cut")
            << QStringLiteral("approval")
            << QByteArray(
                   R"({"message":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","tags":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]})")
            << QByteArray("{}")
            << QStringLiteral("message: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u2026, tags: [20 items]");
        QTest::newRow("whitespace collapses")
            << QStringLiteral("approval") << QByteArray(R"({"text":"two\nlines  here"})") << QByteArray("{}")
            << QStringLiteral("text: two lines here");
        QTest::newRow("no arguments") << QStringLiteral("approval") << QByteArray("{}") << QByteArray("{}")
                                      << QString();
        QTest::newRow("connect: the provider's title first")
            << QStringLiteral("connect") << QByteArray(R"({"provider":"github","kind":"api_key"})")
            << QByteArray(R"({"render":"connect","provider":"github","providerTitle":"GitHub"})")
            << QStringLiteral("GitHub, kind: api_key");
        QTest::newRow("connect without a title")
            << QStringLiteral("connect") << QByteArray(R"({"provider":"gitlab"})")
            << QByteArray(R"({"render":"connect","provider":"gitlab"})") << QStringLiteral("gitlab");
    }

    void detailsTellLookAlikesApart()
    {
        QFETCH(QString, render);
        QFETCH(QByteArray, arguments);
        QFETCH(QByteArray, renderSpec);
        PendingInteraction interaction = makeInteraction(QStringLiteral("ia-1"));
        interaction.render = *renderHintFromName(render);
        interaction.kind
            = render == QStringLiteral("approval") ? InteractionKind::Approval : InteractionKind::ClientTool;
        interaction.arguments = arguments;
        interaction.renderSpec = renderSpec;
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.upsert(interaction);
        QTEST(model.index(0, InteractionModel::DetailsColumn).data().toString(), "details");
        QCOMPARE(
            model.headerData(InteractionModel::DetailsColumn, Qt::Horizontal).toString(), QStringLiteral("Details"));
        // The filter finds a question by what its details say.
        QVERIFY(model.index(0, 0)
                    .data(FilterRole)
                    .toString()
                    .contains(InteractionModel::detailsLabel(interaction).toLower()));
    }

    void timeLeftCountsDownToTheMaximumWait()
    {
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        qint64 now = Now;
        model.setClock([&now] { return now; });
        PendingInteraction held = makeInteraction(QStringLiteral("ia-1"));
        held.deadlineMs = Now + 65'000;
        PendingInteraction parked = makeInteraction(QStringLiteral("ia-2"));
        parked.waiting = false;
        parked.mode = PauseMode::Park;
        model.upsert(held);
        model.upsert(parked);
        const QModelIndex left = model.index(0, InteractionModel::TimeLeftColumn);
        QCOMPARE(left.data().toString(), QStringLiteral("1:05"));
        QVERIFY(left.data(Qt::ToolTipRole).toString().contains(QStringLiteral("gives up")));
        QVERIFY(!left.data(Qt::ForegroundRole).isValid());
        // No call waits for a parked question: nothing runs out.
        QVERIFY(model.index(1, InteractionModel::TimeLeftColumn).data().toString().isEmpty());

        // The last minute is red; the column follows the clock without a reset.
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        now += 10'500;
        QVERIFY(changed.wait(10'000));
        QCOMPARE(left.data().toString(), QStringLiteral("0:55"));
        QCOMPARE(left.data(Qt::ForegroundRole).value<QColor>(), QColor(0xc0, 0x1c, 0x28));
        QCOMPARE(resets.size(), 0);
        now += 120'000; // past the deadline (the backend ends the call): never negative
        QCOMPARE(left.data().toString(), QStringLiteral("0:00"));

        QCOMPARE(InteractionModel::timeLeftLabel(held, Now + 1), QStringLiteral("1:05"));
        held.deadlineMs = Now + 2 * 3'600'000LL + 61'000;
        QCOMPARE(InteractionModel::timeLeftLabel(held, Now), QStringLiteral("2:01:01"));
        held.deadlineMs = 0; // waiting, but the deadline is not known here
        QVERIFY(InteractionModel::timeLeftLabel(held, Now).isEmpty());
    }

    void waitingCallsQueueBeforeStaleOnes()
    {
        InteractionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClock([] { return Now; });
        const auto question = [](const QString& id, bool waiting, qint64 createdAtMs, qint64 deadlineMs) {
            PendingInteraction interaction = makeInteraction(id);
            interaction.waiting = waiting;
            interaction.createdAtMs = createdAtMs;
            interaction.deadlineMs = deadlineMs;
            return interaction;
        };
        model.upsert(question(QStringLiteral("parked-old"), false, Now - 90'000, 0));
        model.upsert(question(QStringLiteral("held-late"), true, Now - 80'000, Now + 500'000));
        model.upsert(question(QStringLiteral("parked-new"), false, Now - 10'000, 0));
        model.upsert(question(QStringLiteral("held-soon"), true, Now - 5'000, Now + 100'000));
        QCOMPARE(idsOf(model),
            (QStringList{QStringLiteral("held-soon"), QStringLiteral("held-late"), QStringLiteral("parked-old"),
                QStringLiteral("parked-new")}));

        // A call that stops waiting moves behind the waiting ones, and one that attaches again (a
        // retry) moves up; moved, so a view keeps its selection.
        QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
        model.upsert(question(QStringLiteral("held-soon"), false, Now - 5'000, 0));
        QCOMPARE(idsOf(model),
            (QStringList{QStringLiteral("held-late"), QStringLiteral("parked-old"), QStringLiteral("parked-new"),
                QStringLiteral("held-soon")}));
        model.upsert(question(QStringLiteral("parked-new"), true, Now - 10'000, Now + 600'000));
        QCOMPARE(idsOf(model),
            (QStringList{QStringLiteral("held-late"), QStringLiteral("parked-new"), QStringLiteral("parked-old"),
                QStringLiteral("held-soon")}));
        QCOMPARE(moved.size(), 2);
        // An update that changes nothing about the order moves nothing.
        model.upsert(question(QStringLiteral("parked-old"), false, Now - 90'000, 0));
        QCOMPARE(moved.size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestInteractionModel)
#include "tst_interactionmodel.moc"
