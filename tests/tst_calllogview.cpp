// CallLogView: follows the newest call while at the bottom, stays on what the person reads once
// they scroll up (also while old rows age out), and reports the selected call and its updates.
// Pause and resume, the "N of M shown" count, the multi-select status filter, sorting by header
// clicks, the columns' saved state, failures kept past the live window, and history matches.

#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "historyquery.h"
#include "modelroles.h"
#include "statuscolours.h"
#include "statusfilterbox.h"

#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QToolButton>

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

QList<qint64> shownIds(const CallLogView& view)
{
    QList<qint64> ids;
    for (int row = 0; row < view.proxy()->rowCount(); ++row)
        ids << view.proxy()->index(row, 0).data(CallIdRole).toLongLong();
    return ids;
}

// Clicks the middle of a column's header.
void clickHeader(CallLogView& view, int column)
{
    QHeaderView* header = view.tableView()->horizontalHeader();
    const int x = header->sectionViewportPosition(column) + header->sectionSize(column) / 2;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
}

// Clicks a status filter's menu entry as a person does: opens the menu, clicks the entry.
void clickStatusEntry(StatusFilterBox* box, QAction* action)
{
    QMenu* menu = box->menu();
    menu->popup(box->mapToGlobal(QPoint(0, box->height())));
    QVERIFY(QTest::qWaitForWindowExposed(menu));
    QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(action).center());
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
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.applyUpdates({makeCall(1), makeCall(2, CallStatus::Error), makeCall(3, CallStatus::Running)});
        auto* box = view.findChild<StatusFilterBox*>(QStringLiteral("callLogStatusFilter"));
        QVERIFY(box);
        QCOMPARE(box->text(), QStringLiteral("All statuses"));
        QVERIFY(box->allAction()->isChecked());
        clickStatusEntry(box, box->statusAction(CallStatus::Error));
        QCOMPARE(shownIds(view), (QList<qint64>{2}));
        QCOMPARE(box->text(), QStringLiteral("Error"));
        // The menu stays open for a second status, and both are shown.
        QVERIFY(box->menu()->isVisible());
        QTest::mouseClick(box->menu(), Qt::LeftButton, {},
            box->menu()->actionGeometry(box->statusAction(CallStatus::Running)).center());
        QCOMPARE(shownIds(view), (QList<qint64>{2, 3}));
        QCOMPARE(box->text(), QStringLiteral("2 statuses"));
        QCOMPARE(view.proxy()->statusesFilter(), (QList<CallStatus>{CallStatus::Running, CallStatus::Error}));
        box->menu()->close();
        // "All statuses" again.
        clickStatusEntry(box, box->allAction());
        QCOMPARE(view.proxy()->rowCount(), 3);
        QVERIFY(!box->statusAction(CallStatus::Error)->isChecked());
        // Every status is offered, in words, with its icon.
        for (const CallStatus status : allCallStatuses()) {
            QAction* action = box->statusAction(status);
            QVERIFY2(action, qPrintable(callStatusName(status)));
            QCOMPARE(action->text(), callStatusLabel(status));
            QVERIFY(!action->icon().isNull());
        }
        // "Failures": every failure at once, not a declined or parked call.
        model.applyUpdates(
            {makeCall(4, CallStatus::TimedOut), makeCall(5, CallStatus::ToolError), makeCall(6, CallStatus::Declined)});
        clickStatusEntry(box, box->failuresAction());
        QCOMPARE(shownIds(view), (QList<qint64>{2, 4, 5}));
        QCOMPARE(box->text(), QStringLiteral("Failures"));
        QVERIFY(box->failuresAction()->isChecked());
        box->menu()->close();
    }

    // The history browser's box takes one status at a time.
    void singleStatusBox()
    {
        StatusFilterBox box(StatusFilterBox::Selection::Single);
        QSignalSpy changed(&box, &StatusFilterBox::statusesChanged);
        QVERIFY(!box.failuresAction());
        box.statusAction(CallStatus::Denied)->trigger();
        QCOMPARE(box.status(), std::optional<CallStatus>(CallStatus::Denied));
        box.statusAction(CallStatus::TimedOut)->trigger();
        QCOMPARE(box.statuses(), (QList<CallStatus>{CallStatus::TimedOut}));
        QVERIFY(!box.statusAction(CallStatus::Denied)->isChecked());
        box.allAction()->trigger();
        QCOMPARE(box.status(), std::nullopt);
        QVERIFY(box.allAction()->isChecked());
        QVERIFY(!changed.isEmpty());
        QCOMPARE(changed.last().at(0).value<QList<CallStatus>>(), QList<CallStatus>());
    }

    void countsTheCallsShown()
    {
        CallLogModel model;
        CallLogView view(&model);
        model.applyUpdates(makeCalls(1, 10));
        QCOMPARE(view.shownCountLabel()->text(), QStringLiteral("10 of 10 shown"));
        QTest::keyClicks(view.filterEdit(), QStringLiteral("echo")); // odd ids
        QCOMPARE(view.shownCountLabel()->text(), QStringLiteral("5 of 10 shown"));
        model.applyUpdates(makeCalls(11, 12));
        QCOMPARE(view.shownCountLabel()->text(), QStringLiteral("6 of 12 shown"));
        view.filterEdit()->clear();
        QCOMPARE(view.shownCountLabel()->text(), QStringLiteral("12 of 12 shown"));
    }

    // Pause freezes the rows shown while calls go on arriving (and old ones leave the live log);
    // the label counts them; the selected row's newer state still shows; Resume catches up.
    void pauseFreezesTheViewAndResumeCatchesUp()
    {
        CallLogModel model(100);
        CallLogView view(&model);
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy current(&view, &CallLogView::currentCallChanged);
        model.applyUpdates(makeCalls(1, 80));
        model.applyUpdates({makeCall(81, CallStatus::Running)});
        view.tableView()->setCurrentIndex(view.proxy()->index(80, 0));
        QCOMPARE(current.last().at(0).value<ToolCall>().id, qint64(81));

        auto* pause = view.findChild<QToolButton*>(QStringLiteral("pauseButton"));
        QVERIFY(pause);
        QCOMPARE(pause->text(), QStringLiteral("Pause"));
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(view.isPaused());
        QCOMPARE(pause->text(), QStringLiteral("Resume"));
        QVERIFY(view.pausedLabel()->isVisible());
        QCOMPARE(view.pausedLabel()->text(), QStringLiteral("Paused — 0 new calls"));
        QCOMPARE(view.tableView()->currentIndex().data(CallIdRole).toLongLong(), qint64(81));

        // 150 calls arrive: the live log drops its oldest, the view shows the same 81 rows.
        model.applyUpdates(makeCalls(82, 231));
        QCOMPARE(model.rowCount(), 100 + model.keptCount());
        QCOMPARE(view.proxy()->rowCount(), 81);
        QCOMPARE(view.proxy()->index(0, 0).data(CallIdRole).toLongLong(), qint64(1));
        QCOMPARE(view.pausedLabel()->text(), QStringLiteral("Paused — 150 new calls"));
        QCOMPARE(view.shownCountLabel()->text(), QStringLiteral("81 of 81 shown"));
        // The selected call finishes: its row and the inspector get the new state; no row moves.
        ToolCall finished = makeCall(81, CallStatus::Ok);
        model.applyUpdates({finished});
        QCOMPARE(view.proxy()->index(80, CallColumns::StatusColumn).data(StatusRole).toInt(), int(CallStatus::Ok));
        QCOMPARE(current.last().at(0).value<ToolCall>().status, CallStatus::Ok);
        QCOMPARE(view.proxy()->rowCount(), 81);

        // Resume by key: the live log, at its newest call.
        QTest::keyClick(&view, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(!view.isPaused());
        QVERIFY(!view.pausedLabel()->isVisible());
        QCOMPARE(view.proxy()->rowCount(), model.rowCount());
        QVERIFY(view.isFollowing());
        QScrollBar* scrollBar = view.tableView()->verticalScrollBar();
        QTRY_COMPARE_WITH_TIMEOUT(scrollBar->value(), scrollBar->maximum(), TimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(view.tableView()
                                      ->indexAt(QPoint(2, view.tableView()->viewport()->height() - 2))
                                      .data(CallIdRole)
                                      .toLongLong(),
            qint64(231), TimeoutMs);
        // The pause key pauses too.
        QTest::keyClick(&view, Qt::Key_Pause);
        QVERIFY(view.isPaused());
        view.pauseAction()->trigger();
        QVERIFY(!view.isPaused());
    }

    // A header click sorts by the column, a second reverses, a third gives the log's order back;
    // calls that arrive while sorted land in their sorted place.
    void sortsByHeaderClicks()
    {
        CallLogModel model;
        CallLogView view(&model);
        view.resize(800, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        ToolCallList calls;
        for (qint64 id = 1; id <= 5; ++id) {
            ToolCall call = makeCall(id);
            call.durationUs = (6 - id) * 1000; // the newest is the fastest
            calls << call;
        }
        model.applyUpdates(calls);
        clickHeader(view, CallColumns::DurationColumn);
        QCOMPARE(shownIds(view), (QList<qint64>{5, 4, 3, 2, 1}));
        QVERIFY(view.tableView()->horizontalHeader()->isSortIndicatorShown());
        ToolCall slow = makeCall(6);
        slow.durationUs = 2500;
        model.applyUpdates({slow});
        QCOMPARE(shownIds(view), (QList<qint64>{5, 4, 6, 3, 2, 1}));
        clickHeader(view, CallColumns::DurationColumn);
        QCOMPARE(shownIds(view), (QList<qint64>{1, 2, 3, 6, 4, 5}));
        QCOMPARE(view.tableView()->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
        clickHeader(view, CallColumns::DurationColumn);
        QCOMPARE(shownIds(view), (QList<qint64>{1, 2, 3, 4, 5, 6}));
        QVERIFY(!view.tableView()->horizontalHeader()->isSortIndicatorShown());
        clickHeader(view, CallColumns::ToolColumn);
        QCOMPARE(shownIds(view), (QList<qint64>{1, 3, 5, 2, 4, 6})); // echo before git_status
    }

    // Widths, order and sorting go to a byte array and come back; a state for other columns is
    // refused and leaves the columns as they are.
    void columnsStateRoundTrips()
    {
        CallLogModel model;
        QByteArray state;
        int toolWidth = 0;
        {
            CallLogView view(&model);
            QHeaderView* header = view.tableView()->horizontalHeader();
            toolWidth = header->sectionSize(CallColumns::ToolColumn) + 77;
            header->resizeSection(CallColumns::ToolColumn, toolWidth);
            QCOMPARE(header->visualIndex(CallColumns::StatusColumn), 1); // first after the time
            header->moveSection(header->visualIndex(CallColumns::StatusColumn), 4);
            // The header's clicks (two real ones in a row would make a double click).
            Q_EMIT header->sectionClicked(CallColumns::TimeColumn);
            Q_EMIT header->sectionClicked(CallColumns::TimeColumn);
            state = view.saveHeaderState();
        }
        CallLogView restored(&model);
        QHeaderView* header = restored.tableView()->horizontalHeader();
        const int defaultWidth = header->sectionSize(CallColumns::ToolColumn);
        QVERIFY(!restored.restoreHeaderState(QByteArray("not a header state")));
        QByteArray otherVersion = state;
        otherVersion[3] = char(otherVersion[3] + 1); // the version's low byte
        QVERIFY(!restored.restoreHeaderState(otherVersion));
        QCOMPARE(header->sectionSize(CallColumns::ToolColumn), defaultWidth);
        QVERIFY(restored.restoreHeaderState(state));
        QCOMPARE(header->sectionSize(CallColumns::ToolColumn), toolWidth);
        QCOMPARE(header->visualIndex(CallColumns::StatusColumn), 4);
        QCOMPARE(restored.proxy()->sortColumn(), int(CallColumns::TimeColumn));
        QCOMPARE(restored.proxy()->sortOrder(), Qt::DescendingOrder);
        restored.resetColumns();
        QCOMPARE(header->visualIndex(CallColumns::StatusColumn), 1);
        QCOMPARE(header->visualIndex(CallColumns::ToolColumn), 3);
        QCOMPARE(restored.proxy()->sortColumn(), -1);
    }

    // The Tool column shows a long tool name whole at the default widths.
    // A call that waited for a person reads "waited …, ran …" whole, not cut to "waited 3…".
    void durationColumnHasRoomForWaitedAndRan()
    {
        CallLogModel model;
        CallLogView view(&model);
        ToolCall call = makeCall(1);
        call.durationUs = 21'003'000;
        call.waitedUs = 21'000'000;
        const QString text = CallColumns::data(call, CallColumns::DurationColumn, Qt::DisplayRole).toString();
        QCOMPARE(text, QStringLiteral("waited 21.00 s, ran 3.00 ms"));
        QHeaderView* header = view.tableView()->horizontalHeader();
        QVERIFY(header->sectionSize(CallColumns::DurationColumn) > view.fontMetrics().horizontalAdvance(text));
    }

    void toolColumnHasRoomForItsNames()
    {
        CallLogModel model;
        CallLogView view(&model);
        QHeaderView* header = view.tableView()->horizontalHeader();
        const int needed = view.fontMetrics().horizontalAdvance(QStringLiteral("git_commit_changes"));
        QVERIFY(header->sectionSize(CallColumns::ToolColumn) > needed);
    }

    // A failure scrolls out of the ring but stays in the log (and selected) as a kept row.
    void failuresStayPastTheLiveWindow()
    {
        CallLogModel model(20);
        CallLogView view(&model);
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.applyUpdates(makeCalls(1, 5));
        model.applyUpdates({makeCall(6, CallStatus::Denied), makeCall(7)});
        view.tableView()->setCurrentIndex(view.proxy()->index(5, 0));
        QCOMPARE(view.tableView()->currentIndex().data(CallIdRole).toLongLong(), qint64(6));
        for (qint64 first = 8; first < 500; first += 50)
            model.applyUpdates(makeCalls(first, first + 49));
        QVERIFY(!model.indexOfCall(5).isValid());
        const QModelIndex kept = model.indexOfCall(6);
        QVERIFY(kept.isValid());
        QCOMPARE(kept.data(OriginRole).toInt(), int(CallLogModel::Origin::Kept));
        QCOMPARE(shownIds(view).first(), qint64(6));
        QCOMPARE(view.tableView()->currentIndex().data(CallIdRole).toLongLong(), qint64(6));
        QVERIFY(kept.siblingAtColumn(CallColumns::TimeColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("Kept")));
    }

    // With a filter set, "Search history too" asks for older matches; they show above the live
    // rows in italics, counted apart, and leave when the filter changes.
    void historyMatchesJoinTheFilteredLog()
    {
        CallLogModel model;
        CallLogView view(&model);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.applyUpdates(makeCalls(100, 110));
        QVERIFY(!view.historySearchAction()->isEnabled());
        QVERIFY(!view.historySearchButton()->isVisible());
        QSignalSpy requested(&view, &CallLogView::historySearchRequested);
        QTest::keyClicks(view.filterEdit(), QStringLiteral("git_status cli"));
        QVERIFY(view.historySearchButton()->isVisible());
        QTest::mouseClick(view.historySearchButton(), Qt::LeftButton);
        QCOMPARE(requested.size(), 1);
        const auto query = requested.at(0).at(0).value<HistoryQuery>();
        // The filter itself, every word: history answers with exactly what the filter shows.
        QCOMPARE(query.search.words, (QStringList{QStringLiteral("git_status"), QStringLiteral("cli")}));
        QCOMPARE(query.beforeId, qint64(100));

        view.addHistoryMatches({makeCall(40), makeCall(42), makeCall(41)}, true);
        QCOMPARE(shownIds(view), (QList<qint64>{40, 42, 100, 102, 104, 106, 108, 110}));
        QCOMPARE(model.historyCount(), 3);
        QVERIFY(view.proxy()->index(0, 0).data(Qt::FontRole).value<QFont>().italic());
        QVERIFY(!view.proxy()->index(2, 0).data(Qt::FontRole).value<QFont>().italic());
        QCOMPARE(view.shownCountLabel()->text(), QStringLiteral("8 of 14 shown · 3 from history"));
        QCOMPARE(view.historySearchButton()->text(), QStringLiteral("More from history"));
        QTest::keyClick(&view, Qt::Key_H, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(requested.size(), 2);
        QCOMPARE(requested.at(1).at(0).value<HistoryQuery>().beforeId, qint64(40));
        view.addHistoryMatches({}, false);
        QVERIFY(!view.historySearchAction()->isEnabled());

        view.filterEdit()->clear();
        QCOMPARE(model.historyCount(), 0);
        QCOMPARE(view.proxy()->rowCount(), 11);
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
    // A filter that matches nothing says so above the empty table, and goes quiet when it matches
    // again or is cleared; an empty log with no filter says nothing.
    void emptyFilterResultSaysSo()
    {
        CallLogModel model(10'000);
        CallLogView view(&model);
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.emptyFilterLabel()->isVisible());
        view.filterEdit()->setText(QStringLiteral("nothing"));
        QVERIFY(!view.emptyFilterLabel()->isVisible()); // no calls at all: nothing is hidden
        view.filterEdit()->clear();
        model.applyUpdates(makeCalls(1, 4));
        QTRY_COMPARE_WITH_TIMEOUT(view.proxy()->rowCount(), 4, TimeoutMs);
        view.filterEdit()->setText(QStringLiteral("no-such-tool"));
        QCOMPARE(view.proxy()->rowCount(), 0);
        QVERIFY(view.emptyFilterLabel()->isVisible());
        QVERIFY2(view.emptyFilterLabel()->text().contains(QStringLiteral("no-such-tool")),
            qPrintable(view.emptyFilterLabel()->text()));
        view.filterEdit()->setText(QStringLiteral("echo"));
        QVERIFY(!view.emptyFilterLabel()->isVisible());
        // A call that arrives and matches ends the message too.
        view.filterEdit()->setText(QStringLiteral("late_tool"));
        QVERIFY(view.emptyFilterLabel()->isVisible());
        ToolCall late = makeCall(5);
        late.tool = QStringLiteral("late_tool");
        model.applyUpdates({late});
        QTRY_VERIFY_WITH_TIMEOUT(!view.emptyFilterLabel()->isVisible(), TimeoutMs);
    }

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
