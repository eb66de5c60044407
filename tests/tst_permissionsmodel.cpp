// The Permissions dock's model under QAbstractItemModelTester: configuration rules and grants as
// rows, what each column says (every client, any arguments, who and when), the grant id role that
// revoking takes, and a new list replacing the rows. Also DecisionText, the inspector's sentence for
// ToolCall::decision.

#include <QTest>

#include "decisiontext.h"
#include "modelroles.h"
#include "permissionsmodel.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSignalSpy>

namespace {

PermissionEntry rule(const QString& subject, const QString& permission)
{
    PermissionEntry entry;
    entry.source = PermissionEntry::Source::Configuration;
    entry.subject = subject;
    entry.permission = permission;
    entry.origin = QStringLiteral("permissions.tools.%1 in /etc/switchboard.yaml").arg(subject);
    return entry;
}

PermissionEntry grant(const QString& id, const QString& client, const QByteArray& arguments)
{
    PermissionEntry entry;
    entry.id = id;
    entry.source = PermissionEntry::Source::Always;
    entry.subject = QStringLiteral("write_file");
    entry.permission = QStringLiteral("allow");
    entry.clientName = client;
    entry.arguments = arguments;
    entry.grantedBy = QStringLiteral("alice");
    entry.grantedAtMs = 1'700'000'000'000;
    return entry;
}

} // namespace

class TestPermissionsModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowsShowRulesAndGrants();
    void newListReplacesTheRows();
    void decisionsInWords_data();
    void decisionsInWords();
};

void TestPermissionsModel::rowsShowRulesAndGrants()
{
    PermissionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    PermissionEntry session = grant(QStringLiteral("g-s"), QStringLiteral("claude-code"), {});
    session.source = PermissionEntry::Source::Session;
    session.sessionId = QStringLiteral("abcdef0123456789");
    model.setEntries(
        {rule(QStringLiteral("rm"), QStringLiteral("deny")), grant(QStringLiteral("g-1"), QString(), QByteArray()),
            grant(QStringLiteral("g-2"), QStringLiteral("claude-code"), R"({"path":"a.txt"})"), session});
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(PermissionsModel::NumColumns));
    const auto text = [&model](int row, int column) { return model.index(row, column).data().toString(); };

    // A rule: from the configuration, no id, in italics, and its tooltip says where to change it.
    QCOMPARE(text(0, PermissionsModel::SubjectColumn), QStringLiteral("rm"));
    QCOMPARE(text(0, PermissionsModel::PermissionColumn), QStringLiteral("deny"));
    QCOMPARE(text(0, PermissionsModel::SourceColumn), QStringLiteral("Configuration"));
    QVERIFY(text(0, PermissionsModel::WhereColumn).contains(QStringLiteral("/etc/switchboard.yaml")));
    QVERIFY(model.index(0, 0).data(GrantIdRole).toString().isEmpty());
    QVERIFY(model.index(0, 0).data(Qt::FontRole).value<QFont>().italic());
    QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Not revocable")));

    // The widest grant: every client, any arguments, who and when.
    QCOMPARE(text(1, PermissionsModel::SourceColumn), QStringLiteral("Always"));
    QCOMPARE(text(1, PermissionsModel::ClientColumn), QStringLiteral("every client"));
    QCOMPARE(text(1, PermissionsModel::ArgumentsColumn), QStringLiteral("any"));
    QCOMPARE(text(1, PermissionsModel::GrantedByColumn), QStringLiteral("alice"));
    QVERIFY(!text(1, PermissionsModel::GrantedAtColumn).isEmpty());
    QCOMPARE(model.index(1, PermissionsModel::GrantedAtColumn).data(SortRole).toLongLong(), 1'700'000'000'000);
    QCOMPARE(model.index(1, 0).data(GrantIdRole).toString(), QStringLiteral("g-1"));

    // A narrow grant: its client and its arguments.
    QCOMPARE(text(2, PermissionsModel::ClientColumn), QStringLiteral("claude-code"));
    QCOMPARE(text(2, PermissionsModel::ArgumentsColumn), QStringLiteral(R"({"path":"a.txt"})"));
    QCOMPARE(model.index(2, PermissionsModel::ArgumentsColumn).data(Qt::ToolTipRole).toString(),
        QStringLiteral(R"({"path":"a.txt"})"));

    // A session grant names its session.
    QCOMPARE(text(3, PermissionsModel::SourceColumn), QStringLiteral("This session"));
    QCOMPARE(text(3, PermissionsModel::WhereColumn), QStringLiteral("session abcdef01…"));
    QVERIFY(model.index(3, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("abcdef0123456789")));

    QCOMPARE(model.rowOf(QStringLiteral("g-2")), 2);
    QCOMPARE(model.rowOf(QString()), -1); // rules have no id to find them by
    QCOMPARE(
        model.headerData(PermissionsModel::GrantedByColumn, Qt::Horizontal).toString(), QStringLiteral("Granted by"));
}

void TestPermissionsModel::newListReplacesTheRows()
{
    PermissionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setEntries({grant(QStringLiteral("g-1"), QString(), {}), grant(QStringLiteral("g-2"), QString(), {})});
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setEntries({grant(QStringLiteral("g-2"), QString(), {})}); // g-1 revoked
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.rowOf(QStringLiteral("g-1")), -1);
    QCOMPARE(model.entry(0).id, QStringLiteral("g-2"));
    model.setEntries({});
    QCOMPARE(model.rowCount(), 0);
}

void TestPermissionsModel::decisionsInWords_data()
{
    QTest::addColumn<QByteArray>("decision");
    QTest::addColumn<QStringList>("words");
    QTest::newRow("none") << QByteArray() << QStringList();
    QTest::newRow("allow once") << QByteArray(
        R"({"what":"allow_once","via":"answer","by":"alice","atMs":1700000000000})")
                                << QStringList{QStringLiteral("Allowed once by alice at ")};
    QTest::newRow("deny with a reason") << QByteArray(
        R"({"what":"deny","via":"answer","by":"bob","atMs":1700000000000,"reason":"not today"})")
                                        << QStringList{
                                               QStringLiteral("Denied by bob"), QStringLiteral("\"not today\"")};
    QTest::newRow("always, narrow") << QByteArray(
        R"({"what":"allow_always","via":"answer","by":"alice","atMs":1700000000000,"grant":"g-1",)"
        R"("scope":{"everyClient":false,"client":"claude-code","anyArguments":false}})")
                                    << QStringList{QStringLiteral("Always allowed by alice"),
                                           QStringLiteral("claude-code, these arguments only"), QStringLiteral("g-1")};
    QTest::newRow("by a grant") << QByteArray(
        R"({"what":"allow_always","via":"grant","by":"alice","atMs":1700000000000,"grant":"g-2",)"
        R"("scope":{"everyClient":true,"anyArguments":true}})")
                                << QStringList{QStringLiteral("Ran without asking"),
                                       QStringLiteral("every client, any arguments"), QStringLiteral("g-2"),
                                       QStringLiteral("given by alice")};
    QTest::newRow("stored while parked") << QByteArray(
        R"({"what":"allow_once","via":"stored","by":"alice","atMs":1700000000000,"interaction":"ia-7"})")
                                         << QStringList{QStringLiteral("Allowed once by alice"),
                                                QStringLiteral("earlier identical call"), QStringLiteral("ia-7")};
    QTest::newRow("declined") << QByteArray(R"({"what":"declined","via":"answer","by":"carol","atMs":1700000000000})")
                              << QStringList{QStringLiteral("Declined by carol")};
    QTest::newRow("denied by a rule")
        << QByteArray(R"({"what":"deny","via":"rule","rule":"permissions.sinks.audit: deny in /etc/sb.yaml"})")
        << QStringList{QStringLiteral("Denied by the configuration (permissions.sinks.audit: deny in /etc/sb.yaml).")};
    QTest::newRow("allowed by a rule")
        << QByteArray(R"({"what":"allow","via":"rule","rule":"built-in default: read-only tools are allowed"})")
        << QStringList{QStringLiteral("Allowed by the configuration (built-in default: read-only tools are allowed).")};
    QTest::newRow("not JSON") << QByteArray("{oops") << QStringList{QStringLiteral("{oops")};
}

void TestPermissionsModel::decisionsInWords()
{
    QFETCH(QByteArray, decision);
    QFETCH(QStringList, words);
    const QString text = DecisionText::describe(decision);
    if (words.isEmpty())
        QVERIFY(text.isEmpty());
    for (const QString& word : std::as_const(words))
        QVERIFY2(text.contains(word), qPrintable(text));
}

QTEST_MAIN(TestPermissionsModel) // a GUI application: the rules' italic font
#include "tst_permissionsmodel.moc"
