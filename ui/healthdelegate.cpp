#include "healthdelegate.h"

#include "adapterhealthmodel.h"
#include "modelroles.h"

#include <QPainter>
#include <QPixmap>

namespace {

QIcon dot(const QColor& colour, int size)
{
    // Drawn at twice the size so it stays round on a scaled screen.
    QPixmap pixmap(2 * size, 2 * size);
    pixmap.setDevicePixelRatio(2.0);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    const qreal inset = size / 5.0;
    painter.drawEllipse(QRectF(inset, inset, size - 2 * inset, size - 2 * inset));
    return QIcon(pixmap);
}

} // namespace

void HealthDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    const QVariant health = index.data(HealthRole);
    if (!health.isValid())
        return;
    const QColor colour = AdapterHealthModel::healthColour(AdapterHealth(health.toInt()), option->palette);
    if (!colour.isValid())
        return;
    option->palette.setColor(QPalette::Text, colour);
    const int size = option->fontMetrics.height();
    option->features |= QStyleOptionViewItem::HasDecoration;
    const QPair<QRgb, int> key(colour.rgba(), size);
    auto it = m_dots.find(key);
    if (it == m_dots.end())
        it = m_dots.insert(key, dot(colour, size));
    option->icon = *it;
    option->decorationSize = QSize(size, size);
}
