#pragma once

// The look the docks' tables share: whole rows selected one at a time, read-only, no grid,
// alternating rows, one line per row of a fixed height, left-aligned headers that do not light up.
// What differs is passed in: how cut text is elided and how the columns size.

#include <QHeaderView>

class QTableView;

void applyTableLook(QTableView* table, Qt::TextElideMode elide, QHeaderView::ResizeMode columnResize);
