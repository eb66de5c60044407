// StatusColours: every call status's text colour meets WCAG AA (4.5:1) on its row tint in a light
// and a dark palette, as does the palette's own text; tints and icons tell the statuses apart; the
// application's colours follow a palette change.

#include <QTest>

#include "statuscolours.h"

#include <QGuiApplication>
#include <QImage>
#include <QSet>

class TestStatusColours : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void contrastFormulaMatchesWcag()
    {
        // The extremes and a pair WCAG's own examples give (#777 on white is 4.48:1).
        QCOMPARE(qRound(StatusColours::contrast(Qt::black, Qt::white) * 100), 2100);
        QCOMPARE(qRound(StatusColours::contrast(QColor(0x77, 0x77, 0x77), Qt::white) * 100), 448);
        QCOMPARE(StatusColours::contrast(Qt::white, Qt::black), StatusColours::contrast(Qt::black, Qt::white));
    }

    void everyStatusMeetsAaContrast_data()
    {
        QTest::addColumn<QPalette>("palette");
        QTest::addColumn<int>("status");
        const QList<QPair<const char*, QPalette>> palettes{
            {"light", StatusColours::lightPalette()}, {"dark", StatusColours::darkPalette()}};
        for (const auto& [name, palette] : palettes) {
            for (const CallStatus status : allCallStatuses()) {
                QTest::addRow("%s %s", name, qPrintable(callStatusName(status))) << palette << int(status);
            }
        }
    }

    void everyStatusMeetsAaContrast()
    {
        QFETCH(QPalette, palette);
        QFETCH(int, status);
        const StatusColours colours(palette);
        const auto callStatus = CallStatus(status);
        const QColor tint = colours.tint(callStatus);
        const double own = StatusColours::contrast(colours.text(callStatus), tint);
        QVERIFY2(own >= StatusColours::MinimumContrast,
            qPrintable(QStringLiteral("%1 on %2: %3:1")
                           .arg(colours.text(callStatus).name(), tint.name())
                           .arg(own, 0, 'f', 2)));
        // The other columns of a tinted row keep the palette's text colour.
        const double plain = StatusColours::contrast(palette.color(QPalette::Active, QPalette::Text), tint);
        QVERIFY2(plain >= StatusColours::MinimumContrast, qPrintable(QString::number(plain, 'f', 2)));
        // The tint is a tint: the row still reads as the palette's background, not as a block of colour.
        const QColor base = palette.color(QPalette::Active, QPalette::Base);
        QVERIFY(tint != base);
        QVERIFY(StatusColours::contrast(tint, base) < 1.6);
        // The text keeps some of the status's hue where contrast allows: it is not plain text.
        if (callStatus != CallStatus::Cancelled)
            QVERIFY(colours.text(callStatus) != palette.color(QPalette::Active, QPalette::Text));
    }

    void tintsAndIconsTellStatusesApart()
    {
        for (const QPalette& palette : {StatusColours::lightPalette(), StatusColours::darkPalette()}) {
            const StatusColours colours(palette);
            QSet<QRgb> tints;
            QSet<QRgb> accents;
            QList<QImage> icons;
            for (const CallStatus status : allCallStatuses()) {
                tints.insert(colours.tint(status).rgb());
                accents.insert(colours.accent(status).rgb());
                const QIcon icon = colours.icon(status);
                QVERIFY2(!icon.isNull(), qPrintable(callStatusName(status)));
                const QImage image = icon.pixmap(16, 16).toImage();
                QVERIFY(!image.isNull());
                QVERIFY2(!icons.contains(image), qPrintable(callStatusName(status)));
                icons.append(image);
            }
            QCOMPARE(tints.size(), allCallStatuses().size());
            QCOMPARE(accents.size(), allCallStatuses().size());
        }
    }

    void applicationColoursFollowThePalette()
    {
        const QPalette before = QGuiApplication::palette();
        QGuiApplication::setPalette(StatusColours::lightPalette());
        const QColor light = StatusColours::forApplication().tint(CallStatus::ToolError);
        QGuiApplication::setPalette(StatusColours::darkPalette());
        const QColor dark = StatusColours::forApplication().tint(CallStatus::ToolError);
        QGuiApplication::setPalette(before);
        QCOMPARE(light, StatusColours(StatusColours::lightPalette()).tint(CallStatus::ToolError));
        QCOMPARE(dark, StatusColours(StatusColours::darkPalette()).tint(CallStatus::ToolError));
        QVERIFY(light != dark);
    }

    void namesRoundTripAndAllAreOffered()
    {
        const QList<CallStatus> all = allCallStatuses();
        QCOMPARE(all.size(), int(CallStatus::BreakerOpen) + 1);
        QSet<QString> names;
        for (const CallStatus status : all) {
            CallStatus parsed = CallStatus::Running;
            QVERIFY(callStatusFromName(callStatusName(status), &parsed));
            QCOMPARE(parsed, status);
            names.insert(callStatusName(status));
            QVERIFY(!callStatusDescription(status).isEmpty());
        }
        QCOMPARE(names.size(), all.size());
    }
};

QTEST_MAIN(TestStatusColours)
#include "tst_statuscolours.moc"
