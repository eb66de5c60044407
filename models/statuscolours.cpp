#include "statuscolours.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <cmath>
#include <memory>

namespace {

// The hue each status is known by. Families the eye groups: greens went well, reds failed in the
// tool, violets and magentas failed around it, ambers wait or were malformed, greys were let go.
// Running takes the palette's Highlight, Cancelled its placeholder grey.
QColor hueOf(CallStatus status, const QPalette& palette)
{
    switch (status) {
    case CallStatus::Running:
        return palette.color(QPalette::Active, QPalette::Highlight);
    case CallStatus::Ok:
        return QColor(0x2d, 0xa4, 0x4e);
    case CallStatus::Error:
        return QColor(0xa4, 0x13, 0x3c);
    case CallStatus::Cancelled:
        return palette.color(QPalette::Active, QPalette::PlaceholderText);
    case CallStatus::Paused:
        return QColor(0xbf, 0x87, 0x00);
    case CallStatus::Denied:
        return QColor(0x82, 0x50, 0xdf);
    case CallStatus::Declined:
        return QColor(0x5a, 0x6d, 0xbf);
    case CallStatus::InvalidArguments:
        return QColor(0x9a, 0x7b, 0x00);
    case CallStatus::UnknownTool:
        return QColor(0x8a, 0x5a, 0x2b);
    case CallStatus::TimedOut:
        return QColor(0xe1, 0x6f, 0x24);
    case CallStatus::UpstreamError:
        return QColor(0xbf, 0x39, 0x89);
    case CallStatus::ToolError:
        return QColor(0xd1, 0x24, 0x2f);
    case CallStatus::Parked:
        return QColor(0x1b, 0x7c, 0x83);
    case CallStatus::BreakerOpen:
        return QColor(0x6f, 0x42, 0xc1);
    }
    return palette.color(QPalette::Active, QPalette::Text);
}

// How much of the hue goes into the row's background: a plain success stays quiet, so what went
// wrong stands out; a dark Base needs more to be seen at all.
double tintStrength(CallStatus status, bool dark)
{
    const double scale = dark ? 1.5 : 1.0;
    switch (status) {
    case CallStatus::Ok:
    case CallStatus::Running:
        return 0.05 * scale;
    case CallStatus::Cancelled:
    case CallStatus::Declined:
    case CallStatus::Parked:
    case CallStatus::Paused:
        return 0.10 * scale;
    default:
        return 0.15 * scale;
    }
}

// The platform theme's icon where a standard name says the same thing (freedesktop icon naming).
const char* themeIconName(CallStatus status)
{
    switch (status) {
    case CallStatus::Running:
        return "media-playback-start";
    case CallStatus::Paused:
        return "media-playback-pause";
    case CallStatus::Cancelled:
        return "process-stop";
    case CallStatus::ToolError:
        return "dialog-error";
    case CallStatus::Error:
        return "dialog-warning";
    case CallStatus::UnknownTool:
        return "dialog-question";
    case CallStatus::TimedOut:
        return "appointment-missed";
    case CallStatus::UpstreamError:
        return "network-error";
    default:
        return nullptr; // no standard name says "ok", "denied", "declined", "invalid arguments" or "parked"
    }
}

} // namespace

StatusColours::StatusColours(const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Active, QPalette::Base);
    const QColor plainText = palette.color(QPalette::Active, QPalette::Text);
    const bool dark = luminance(base) < luminance(plainText);
    for (int i = 0; i < Count; ++i) {
        const auto status = CallStatus(i);
        Entry& entry = m_entries[i];
        entry.accent = hueOf(status, palette);
        entry.tint = blend(base, entry.accent, tintStrength(status, dark));
        // As much of the hue as the contrast allows: the hue moved toward the palette's text (dark
        // on light, light on dark) until it reads on the tint.
        double share = 0.8;
        entry.text = blend(plainText, entry.accent, share);
        while (contrast(entry.text, entry.tint) < MinimumContrast + 0.05 && share > 0.0) {
            share = std::max(0.0, share - 0.05);
            entry.text = blend(plainText, entry.accent, share);
        }
    }
}

QColor StatusColours::readableOn(const QColor& hue, const QPalette& palette)
{
    const QColor plainText = palette.color(QPalette::Active, QPalette::Text);
    const QColor base = palette.color(QPalette::Active, QPalette::Base);
    const QColor alternate = palette.color(QPalette::Active, QPalette::AlternateBase);
    const auto readable = [&](const QColor& colour) {
        return contrast(colour, base) >= MinimumContrast + 0.05
            && contrast(colour, alternate) >= MinimumContrast + 0.05;
    };
    double share = 1.0;
    QColor colour = hue;
    while (!readable(colour) && share > 0.0) {
        share = std::max(0.0, share - 0.05);
        colour = blend(plainText, hue, share);
    }
    return colour;
}

QColor StatusColours::readableOnApplication(const QColor& hue)
{
    return readableOn(hue,
        qobject_cast<QGuiApplication*>(QCoreApplication::instance()) ? QGuiApplication::palette() : lightPalette());
}

QIcon StatusColours::icon(CallStatus status) const
{
    if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
        return {};
    const Entry& entry = m_entries[index(status)];
    if (entry.icon.isNull()) {
        const QIcon drawn = drawnIcon(status, entry.accent);
        const char* name = themeIconName(status);
        entry.icon = name ? QIcon::fromTheme(QString::fromLatin1(name), drawn) : drawn;
    }
    return entry.icon;
}

// A round badge in the accent with a white glyph; shapes, not font glyphs, so it looks the same
// wherever it runs. Each status has its own glyph: the colour is never the only sign.
QIcon StatusColours::drawnIcon(CallStatus status, const QColor& accent)
{
    QIcon icon;
    for (const int size : {16, 24, 32}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.scale(size / 16.0, size / 16.0);
        painter.setPen(Qt::NoPen);
        painter.setBrush(accent);
        if (status == CallStatus::Error)
            painter.drawPolygon(QPolygonF{{8, 0.5}, {15.5, 14.5}, {0.5, 14.5}}); // a warning triangle
        else if (status == CallStatus::Denied || status == CallStatus::Cancelled)
            painter.drawPolygon(QPolygonF{
                {5, 0.5}, {11, 0.5}, {15.5, 5}, {15.5, 11}, {11, 15.5}, {5, 15.5}, {0.5, 11}, {0.5, 5}}); // a stop sign
        else
            painter.drawEllipse(QRectF(0.5, 0.5, 15, 15));
        QPen pen(Qt::white, 1.8, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        switch (status) {
        case CallStatus::Running:
            painter.setPen(Qt::NoPen);
            painter.setBrush(Qt::white);
            painter.drawPolygon(QPolygonF{{6, 4.5}, {11.5, 8}, {6, 11.5}});
            break;
        case CallStatus::Ok:
            painter.drawPolyline(QPolygonF{{4.5, 8.5}, {7, 11}, {11.5, 5.5}});
            break;
        case CallStatus::Error:
        case CallStatus::ToolError:
            painter.drawLine(QPointF(8, status == CallStatus::Error ? 5.5 : 4), QPointF(8, 9));
            painter.drawPoint(QPointF(8, status == CallStatus::Error ? 12 : 11.8));
            break;
        case CallStatus::Cancelled:
            painter.setPen(Qt::NoPen);
            painter.setBrush(Qt::white);
            painter.drawRect(QRectF(5, 5, 6, 6));
            break;
        case CallStatus::Paused:
            painter.drawLine(QPointF(6, 5), QPointF(6, 11));
            painter.drawLine(QPointF(10, 5), QPointF(10, 11));
            break;
        case CallStatus::Denied:
            painter.drawLine(QPointF(4, 8), QPointF(12, 8));
            break;
        case CallStatus::Declined:
            painter.drawLine(QPointF(5, 5), QPointF(11, 11));
            painter.drawLine(QPointF(11, 5), QPointF(5, 11));
            break;
        case CallStatus::InvalidArguments: {
            QPainterPath braces; // "{ }"
            braces.moveTo(6.5, 4);
            braces.quadTo(4.5, 4, 4.8, 6.5);
            braces.quadTo(5, 8, 3.5, 8);
            braces.quadTo(5, 8, 4.8, 9.5);
            braces.quadTo(4.5, 12, 6.5, 12);
            braces.moveTo(9.5, 4);
            braces.quadTo(11.5, 4, 11.2, 6.5);
            braces.quadTo(11, 8, 12.5, 8);
            braces.quadTo(11, 8, 11.2, 9.5);
            braces.quadTo(11.5, 12, 9.5, 12);
            pen.setWidthF(1.4);
            painter.setPen(pen);
            painter.drawPath(braces);
            break;
        }
        case CallStatus::UnknownTool: {
            QPainterPath mark; // "?"
            mark.moveTo(5.5, 6);
            mark.cubicTo(5.5, 3, 10.5, 3, 10.5, 6);
            mark.cubicTo(10.5, 8, 8, 8, 8, 9.5);
            painter.drawPath(mark);
            painter.drawPoint(QPointF(8, 12));
            break;
        }
        case CallStatus::TimedOut:
            painter.drawEllipse(QRectF(3.5, 3.5, 9, 9));
            painter.drawPolyline(QPolygonF{{8, 5.5}, {8, 8}, {10, 9}});
            break;
        case CallStatus::BreakerOpen: // an open switch: the circuit is broken on purpose
            painter.drawLine(QPointF(3, 10), QPointF(6, 10));
            painter.drawLine(QPointF(6, 10), QPointF(11, 5));
            painter.drawLine(QPointF(10, 10), QPointF(13, 10));
            break;
        case CallStatus::UpstreamError: // a bolt: the connection failed
            painter.drawPolyline(QPolygonF{{9.5, 3}, {6, 8.5}, {10, 7.5}, {6.5, 13}});
            break;
        case CallStatus::Parked: {
            QPainterPath letter; // "P"
            letter.moveTo(6, 12.5);
            letter.lineTo(6, 3.5);
            letter.lineTo(8.5, 3.5);
            letter.cubicTo(11.5, 3.5, 11.5, 8.5, 8.5, 8.5);
            letter.lineTo(6, 8.5);
            painter.drawPath(letter);
            break;
        }
        }
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

namespace {

std::unique_ptr<StatusColours> applicationColours;
bool dropRegistered = false;

// The icons hold pixmaps, which must go while the application still exists.
void dropApplicationColours()
{
    applicationColours.reset();
    dropRegistered = false;
}

} // namespace

const StatusColours& StatusColours::forApplication()
{
    std::unique_ptr<StatusColours>& colours = applicationColours;
    static qint64 paletteKey = -1;
    if (!dropRegistered && QCoreApplication::instance()) {
        qAddPostRoutine(dropApplicationColours);
        dropRegistered = true;
    }
    const bool gui = qobject_cast<QGuiApplication*>(QCoreApplication::instance()) != nullptr;
    if (!gui) {
        if (!colours || paletteKey != -2) {
            colours = std::make_unique<StatusColours>(lightPalette());
            paletteKey = -2;
        }
        return *colours;
    }
    const QPalette palette = QGuiApplication::palette();
    if (!colours || paletteKey != palette.cacheKey()) {
        colours = std::make_unique<StatusColours>(palette);
        paletteKey = palette.cacheKey();
    }
    return *colours;
}

double StatusColours::luminance(const QColor& colour)
{
    const auto channel = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const QColor rgb = colour.toRgb();
    return 0.2126 * channel(rgb.redF()) + 0.7152 * channel(rgb.greenF()) + 0.0722 * channel(rgb.blueF());
}

double StatusColours::contrast(const QColor& a, const QColor& b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor StatusColours::blend(const QColor& from, const QColor& to, double amount)
{
    const QColor a = from.toRgb();
    const QColor b = to.toRgb();
    const auto mix = [amount](float x, float y) { return float(x + (y - x) * amount); };
    return QColor::fromRgbF(mix(a.redF(), b.redF()), mix(a.greenF(), b.greenF()), mix(a.blueF(), b.blueF()));
}

QPalette StatusColours::lightPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    palette.setColor(QPalette::WindowText, Qt::black);
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::AlternateBase, QColor(0xf7, 0xf7, 0xf7));
    palette.setColor(QPalette::Text, Qt::black);
    palette.setColor(QPalette::PlaceholderText, QColor(0x77, 0x77, 0x77));
    palette.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    return palette;
}

QPalette StatusColours::darkPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(0x35, 0x35, 0x35));
    palette.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    palette.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    palette.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2a, 0x2a));
    palette.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    palette.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    palette.setColor(QPalette::Highlight, QColor(0x2a, 0x82, 0xda));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    return palette;
}
