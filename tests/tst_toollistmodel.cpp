// ToolListModel under QAbstractItemModelTester: rows, columns, the hints as words, the filter text,
// a list replacing the rows, and a filter proxy keyed on FilterRole.

#include <QTest>

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>

#include "modelroles.h"
#include "toollistmodel.h"

namespace {

ToolInfo tool(const QString& name, ToolRoute route, const QByteArray& annotations, const QString& description)
{
    ToolInfo info;
    info.name = name;
    info.route = route;
    info.description = description;
    info.inputSchema = R"({"type":"object"})";
    info.annotations = annotations;
    return info;
}

} // namespace

class TestToolListModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsEachTool();
    void hintsAreWords();
    void newListReplacesTheRows();
    void filterFindsByNameRouteAndDescription();
};

void TestToolListModel::showsEachTool()
{
    ToolListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTools({tool(QStringLiteral("echo"), ToolRoute::builtin(), R"({"readOnlyHint":true})",
                        QStringLiteral("Returns its arguments.\nA diagnostic.")),
        tool(QStringLiteral("github.create_issue"), ToolRoute::adapter(QStringLiteral("github")), "{}",
            QStringLiteral("Opens an issue"))});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(ToolListModel::NumColumns));
    QCOMPARE(model.index(0, ToolListModel::NameColumn).data().toString(), QStringLiteral("echo"));
    QCOMPARE(model.index(1, ToolListModel::RouteColumn).data().toString(), QStringLiteral("adapter:github"));
    // The first line of the description, and all of it in the tooltip.
    QCOMPARE(
        model.index(0, ToolListModel::DescriptionColumn).data().toString(), QStringLiteral("Returns its arguments."));
    QCOMPARE(model.index(0, ToolListModel::DescriptionColumn).data(Qt::ToolTipRole).toString(),
        QStringLiteral("Returns its arguments.\nA diagnostic."));
    QCOMPARE(model.rowOf(QStringLiteral("github.create_issue")), 1);
    QCOMPARE(model.rowOf(QStringLiteral("nothing")), -1);
    QCOMPARE(model.tool(1).name, QStringLiteral("github.create_issue"));
    QCOMPARE(model.headerData(ToolListModel::HintsColumn, Qt::Horizontal).toString(), QStringLiteral("Hints"));
}

void TestToolListModel::hintsAreWords()
{
    ToolListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTools({tool(QStringLiteral("rm"), ToolRoute::command(),
        R"({"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":true})", {})});
    QCOMPARE(model.index(0, ToolListModel::HintsColumn).data().toString(),
        QStringLiteral("destructive · idempotent · open world"));
    const QString tooltip = model.index(0, ToolListModel::HintsColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tooltip.contains(QStringLiteral("readOnlyHint")) && tooltip.contains(QStringLiteral(": no")),
        qPrintable(tooltip));
    // A hint the tool does not give is said to be not said, and shows no chip.
    model.setTools({tool(QStringLiteral("echo"), ToolRoute::builtin(), R"({"readOnlyHint":true})", {})});
    QCOMPARE(model.index(0, ToolListModel::HintsColumn).data().toString(), QStringLiteral("read-only"));
    QVERIFY(model.index(0, ToolListModel::HintsColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("destructiveHint (may destroy or overwrite data): not said")));
}

void TestToolListModel::newListReplacesTheRows()
{
    ToolListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTools({tool(QStringLiteral("a"), ToolRoute::builtin(), "{}", {}),
        tool(QStringLiteral("b"), ToolRoute::builtin(), "{}", {})});
    model.setTools({tool(QStringLiteral("c"), ToolRoute::client(), "{}", {})});
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, ToolListModel::NameColumn).data().toString(), QStringLiteral("c"));
    model.setTools({});
    QCOMPARE(model.rowCount(), 0);
}

void TestToolListModel::filterFindsByNameRouteAndDescription()
{
    ToolListModel model;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setFilterRole(FilterRole);
    proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTools({tool(QStringLiteral("echo"), ToolRoute::builtin(), "{}", QStringLiteral("Returns its arguments")),
        tool(QStringLiteral("github.create_issue"), ToolRoute::adapter(QStringLiteral("github")), "{}",
            QStringLiteral("Opens an Issue"))});
    proxy.setFilterFixedString(QStringLiteral("ISSUE"));
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterFixedString(QStringLiteral("adapter:"));
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterFixedString(QStringLiteral("arguments"));
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("echo"));
    proxy.setFilterFixedString(QString());
    QCOMPARE(proxy.rowCount(), 2);
}

QTEST_GUILESS_MAIN(TestToolListModel)
#include "tst_toollistmodel.moc"
