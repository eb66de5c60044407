#pragma once

// StatusColours: how each CallStatus looks, derived from one palette so the call log, history and
// the inspector agree, in light and dark themes alike: an accent hue, a row tint (the accent
// blended into the palette's Base), a text colour that keeps WCAG AA contrast (4.5:1) on that tint,
// and an icon (the platform theme's where one says the same thing, else drawn in the accent).

#include "toolcall.h"

#include <QColor>
#include <QIcon>
#include <QPalette>

#include <algorithm>
#include <array>

class StatusColours
{
public:
    // The contrast every text colour keeps on its tint (WCAG 2.x AA for normal text).
    static constexpr double MinimumContrast = 4.5;

    explicit StatusColours(const QPalette& palette);

    // The hue the status is known by (icon, badge border).
    QColor accent(CallStatus status) const { return m_entries[index(status)].accent; }
    // The background of the status's rows.
    QColor tint(CallStatus status) const { return m_entries[index(status)].tint; }
    // The status's own text colour on its tint (the status column, the inspector's badge).
    QColor text(CallStatus status) const { return m_entries[index(status)].text; }
    // The icon; needs a QGuiApplication (a null icon without one). Made once per palette.
    QIcon icon(CallStatus status) const;

    // The colours for the application's palette, made again when the palette changes. Without a
    // QGuiApplication (models in a core application) a light palette stands in.
    static const StatusColours& forApplication();
    // WCAG 2.x relative luminance and contrast ratio.
    static double luminance(const QColor& colour);
    static double contrast(const QColor& a, const QColor& b);
    // `from` moved `amount` (0..1) of the way to `to`, channel by channel.
    static QColor blend(const QColor& from, const QColor& to, double amount);
    // `hue` moved toward the palette's text until it keeps MinimumContrast on the palette's Base and
    // AlternateBase (a mark in a table's cells, such as the repository view's status letters).
    static QColor readableOn(const QColor& hue, const QPalette& palette);
    // The same on the application's palette (a light palette without a QGuiApplication).
    static QColor readableOnApplication(const QColor& hue);
    // The palette used when there is no QGuiApplication, and by tests as the light case.
    static QPalette lightPalette();
    static QPalette darkPalette();

private:
    struct Entry
    {
        QColor accent;
        QColor tint;
        QColor text;
        mutable QIcon icon;
    };
    static constexpr int Count = int(CallStatus::BreakerOpen) + 1;
    static int index(CallStatus status) { return std::clamp(int(status), 0, Count - 1); }
    static QIcon drawnIcon(CallStatus status, const QColor& accent);

    std::array<Entry, Count> m_entries;
};
