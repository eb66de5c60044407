// InteractionModel: pending and changed questions insert or update by id, resolved ones leave, a
// listing makes the rows match it; the count follows; each column says what a person reads.

#include "interactionmodel.h"
#include "modelroles.h"

#include <QAbstractItemModelTester>
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
        QCOMPARE(idsOf(model), (QStringList{QStringLiteral("ia-2"), QStringLiteral("ia-3")}));
        QCOMPARE(model.index(0, 0).data(CallIdRole).toLongLong(), qint64(5));
        QCOMPARE(model.index(0, InteractionModel::StateColumn).data().toString(), QStringLiteral("no call waiting"));
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
        QCOMPARE(changed.last().at(0).value<QModelIndex>().column(), int(InteractionModel::AgeColumn));
        QCOMPARE(age.data().toString(), QStringLiteral("2 min"));
    }
};

QTEST_GUILESS_MAIN(TestInteractionModel)
#include "tst_interactionmodel.moc"
