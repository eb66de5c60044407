#pragma once

// HealthDelegate: paints a cell that has a HealthRole (an adapter's state, a breaker transition) in
// its health's colour with a dot before the text, in a shade chosen for the view's own palette, so
// the colour reads on light and dark themes alike; a selected row keeps the palette's highlighted
// text. Cells without the role paint as usual.

#include <QHash>
#include <QIcon>
#include <QStyledItemDelegate>

class HealthDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

private:
    // The dots drawn so far, by colour and size: a repaint reuses them.
    mutable QHash<QPair<QRgb, int>, QIcon> m_dots;
};
