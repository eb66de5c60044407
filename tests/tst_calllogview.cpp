// CallLogView: follows the newest call while at the bottom, stays on what the person reads once
// they scroll up (also while old rows age out), and reports the selected call and its updates.

#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "modelroles.h"
#include "statuscolours.h"

#include <QComboBox>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

namespace {

constexpr int TimeoutMs = 10'000;

ToolCall makeCall(qint64 id, CallStatus status = CallStatus::Ok)
{
    ToolCall call;
    call.id = id;
    call.clientName = QStringLiteral("client");
    call.tool = id % 2 ? QStringLiteral("echo") : QStringLiteral("git_status");
    call.route = ToolRoute::builtin();
    call.status = status;
    call.durationUs = status == CallStatus::Running ? -1 : 10;
    return call;
}

ToolCallList makeCalls(qint64 first, qint64 last)
{
    ToolCallList calls;
    for (qint64 id = first; id <= last; ++id)
        calls.append(makeCall(id));
    return calls;
}

qint64 topVisibleId(const CallLogView& view)
{
    return view.tableView()->indexAt(QPoint(2, 2)).data(CallIdRole).toLongLong();
}

} // namespace

class TestCallLogView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void followsTheNewestCall()
    {
        CallLogModel model(10'000);
        CallLogView view(&model);
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QScrollBar* scrollBar = view.tableView()->verticalScrollBar();

        model.applyUpdates(makeCalls(1, 200));
        QTRY_VERIFY_WITH_TIMEOUT(scrollBar->maximum() > 0, TimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(scrollBar->value(), scrollBar->maximum(), TimeoutMs);
        QVERIFY(view.isFollowing());
        const int maximum = scrollBar->maximum();

        model.applyUpdates(makeCalls(201, 250));
        QTRY_COMPARE_WITH_TIMEOUT(scrollBar->maximum(), maximum + 50, TimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(scrollBar->value(), scrollBar->maximum(), TimeoutMs);

        // Scrolling up stops following…
        scrollBar->setValue(10);
        QVERIFY(!view.isFollowing());
        const qint64 top = topVisibleId(view);
        QCOMPARE(top, qint64(11));
        model.applyUpdates(makeCalls(251, 300));
        QTRY_COMPARE_WITH_TIMEOUT(scrollBar->maximum(), maximum + 100, TimeoutMs);
        QCOMPARE(scrollBar->value(), 10);
        QCOMPARE(topVisibleId(view), top);

        // …and going back to the bottom resumes it.
        scrollBar->setValue(scrollBar->maximum());
        QVERIFY(view.isFollowing());
        model.applyUpdates(makeCalls(301, 310));
        QTRY_COMPARE_WITH_TIMEOUT(scrollBar->maximum(), maximum + 110, TimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(scrollBar->value(), scrollBar->maximum(), TimeoutMs);
    }

    void staysOnTheRowsBeingReadWhileOldOnesLeave()
    {
        CallLogModel model(300);
        CallLogView view(&model);
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QScrollBar* scrollBar = view.tableView()->verticalScrollBar();
        model.applyUpdates(makeCalls(1, 300));
        QTRY_VERIFY_WITH_TIMEOUT(scrollBar->maximum() > 100, TimeoutMs);
        scrollBar->setValue(100);
        QCOMPARE(topVisibleId(view), qint64(101));

        model.applyUpdates(makeCalls(301, 350)); // the 50 oldest leave
        QCOMPARE(model.droppedCount(), qint64(50));
        QTRY_COMPARE_WITH_TIMEOUT(topVisibleId(view), qint64(101), TimeoutMs);
        QCOMPARE(scrollBar->value(), 50);
        QVERIFY(!view.isFollowing());
    }

    void reportsTheSelectedCallAndItsUpdates()
    {
        CallLogModel model;
        CallLogView view(&model);
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.applyUpdates({makeCall(1), makeCall(2, CallStatus::Running), makeCall(3)});
        QSignalSpy changed(&view, &CallLogView::currentCallChanged);

        QTableView* table = view.tableView();
        QTest::mouseClick(
            table->viewport(), Qt::LeftButton, Qt::NoModifier, table->visualRect(table->model()->index(1, 0)).center());
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.last().at(0).value<ToolCall>().id, qint64(2));
        QCOMPARE(changed.last().at(0).value<ToolCall>().status, CallStatus::Running);

        // The selected call finishing is reported; other calls changing is not.
        model.applyUpdates({makeCall(3, CallStatus::Error)});
        QCOMPARE(changed.size(), 1);
        model.applyUpdates({makeCall(2, CallStatus::Ok)});
        QCOMPARE(changed.size(), 2);
        QCOMPARE(changed.last().at(0).value<ToolCall>().status, CallStatus::Ok);

        // Keyboard navigation selects too.
        QTest::keyClick(table, Qt::Key_Down);
        QCOMPARE(changed.size(), 3);
        QCOMPARE(changed.last().at(0).value<ToolCall>().id, qint64(3));
    }

    void selectedCallFilteredAwayIsNotReplaced()
    {
        CallLogModel model;
        CallLogView view(&model);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.applyUpdates(makeCalls(1, 5));
        QSignalSpy changed(&view, &CallLogView::currentCallChanged);
        QTableView* table = view.tableView();
        QTest::mouseClick(
            table->viewport(), Qt::LeftButton, Qt::NoModifier, table->visualRect(table->model()->index(1, 0)).center());
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.last().at(0).value<ToolCall>().id, qint64(2));

        // Filtering the selected row away must not silently put a neighbour in the inspector.
        QTest::keyClicks(view.filterEdit(), QStringLiteral("echo"));
        QCOMPARE(table->model()->rowCount(), 3);
        QCOMPARE(changed.size(), 1);
        QVERIFY(!table->selectionModel()->hasSelection());

        // Clicking any row afterwards selects it.
        QTest::mouseClick(
            table->viewport(), Qt::LeftButton, Qt::NoModifier, table->visualRect(table->model()->index(0, 0)).center());
        QCOMPARE(changed.size(), 2);
        QCOMPARE(changed.last().at(0).value<ToolCall>().id, qint64(1));
    }

    void downInTheFilterPicksTheNewestMatch()
    {
        CallLogModel model;
        CallLogView view(&model);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.applyUpdates(makeCalls(1, 6));
        QSignalSpy changed(&view, &CallLogView::currentCallChanged);
        view.filterEdit()->setFocus();
        QTest::keyClicks(view.filterEdit(), QStringLiteral("git"));
        QTest::keyClick(view.filterEdit(), Qt::Key_Down);
        QVERIFY(view.tableView()->hasFocus());
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.last().at(0).value<ToolCall>().id, qint64(6));
        QTest::keyClick(view.tableView(), Qt::Key_Up);
        QCOMPARE(changed.last().at(0).value<ToolCall>().id, qint64(4));
    }

    void statusFilter()
    {
        CallLogModel model;
        CallLogView view(&model);
        model.applyUpdates({makeCall(1), makeCall(2, CallStatus::Error), makeCall(3, CallStatus::Running)});
        auto* box = view.findChild<QComboBox*>(QStringLiteral("callLogStatusFilter"));
        QVERIFY(box);
        QCOMPARE(box->currentText(), QStringLiteral("All statuses"));
        box->setCurrentIndex(box->findText(QStringLiteral("Error")));
        QCOMPARE(view.proxy()->rowCount(), 1);
        QCOMPARE(view.proxy()->index(0, 0).data(CallIdRole).toLongLong(), qint64(2));
        box->setCurrentIndex(0);
        QCOMPARE(view.proxy()->rowCount(), 3);
        // Every status is offered, in words, with its icon.
        QCOMPARE(box->count(), 1 + allCallStatuses().size());
        for (const CallStatus status : allCallStatuses()) {
            const int item = box->findData(int(status));
            QVERIFY2(item > 0, qPrintable(callStatusName(status)));
            QCOMPARE(box->itemText(item), callStatusLabel(status));
            QVERIFY(!box->itemIcon(item).isNull());
        }
        model.applyUpdates({makeCall(4, CallStatus::TimedOut), makeCall(5, CallStatus::ToolError)});
        box->setCurrentIndex(box->findData(int(CallStatus::TimedOut)));
        QCOMPARE(view.proxy()->rowCount(), 1);
        QCOMPARE(view.proxy()->index(0, 0).data(CallIdRole).toLongLong(), qint64(4));
    }

    // Outcomes are told apart at a glance: each row is painted in its status's tint (not only its
    // status text coloured), and the status cell carries the status's own icon.
    void rowsShowTheirStatusTintAndIcon()
    {
        CallLogModel model;
        CallLogView view(&model);
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.applyUpdates({makeCall(1, CallStatus::Denied), makeCall(2, CallStatus::UpstreamError)});
        QTRY_COMPARE_WITH_TIMEOUT(view.proxy()->rowCount(), 2, TimeoutMs);
        QTableView* table = view.tableView();
        table->clearSelection();
        table->setCurrentIndex(QModelIndex());
        const StatusColours& colours = StatusColours::forApplication();
        QList<QImage> icons;
        for (int row = 0; row < 2; ++row) {
            const QModelIndex route = view.proxy()->index(row, CallColumns::RouteColumn);
            const auto status = CallStatus(route.data(StatusRole).toInt());
            // A point right of the short route text, inside the cell.
            const QRect cell = table->visualRect(route);
            const QImage shot = table->viewport()->grab().toImage();
            const QColor painted
                = shot.pixelColor(shot.devicePixelRatio() * QPoint(cell.right() - 3, cell.center().y()));
            const QColor tint = route.data(Qt::BackgroundRole).value<QColor>();
            QCOMPARE(tint, colours.tint(status));
            QVERIFY2(qAbs(painted.red() - tint.red()) <= 2 && qAbs(painted.green() - tint.green()) <= 2
                    && qAbs(painted.blue() - tint.blue()) <= 2,
                qPrintable(QStringLiteral("%1 painted, %2 expected").arg(painted.name(), tint.name())));
            const QIcon icon
                = view.proxy()->index(row, CallColumns::StatusColumn).data(Qt::DecorationRole).value<QIcon>();
            QVERIFY(!icon.isNull());
            icons.append(icon.pixmap(16, 16).toImage());
        }
        QVERIFY(icons.at(0) != icons.at(1));
    }

    // A question's "Show call": the row is selected and scrolled to, even when a filter hid it.
    void showCallSelectsAndScrollsToTheRow()
    {
        CallLogModel model(10'000);
        CallLogView view(&model);
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy current(&view, &CallLogView::currentCallChanged);
        model.applyUpdates(makeCalls(1, 300));
        view.filterEdit()->setText(QStringLiteral("git_status")); // even ids only

        QVERIFY(view.showCall(51));
        QVERIFY(view.filterEdit()->text().isEmpty());
        QCOMPARE(view.tableView()->currentIndex().data(CallIdRole).toLongLong(), qint64(51));
        QCOMPARE(current.last().at(0).value<ToolCall>().id, qint64(51));
        QVERIFY(!view.isFollowing());
        const QRect visible = view.tableView()->viewport()->rect();
        QVERIFY(visible.intersects(view.tableView()->visualRect(view.tableView()->currentIndex())));

        QVERIFY(!view.showCall(999)); // not in the live log
        QCOMPARE(view.tableView()->currentIndex().data(CallIdRole).toLongLong(), qint64(51));
    }
};

QTEST_MAIN(TestCallLogView)
#include "tst_calllogview.moc"
