#include "fixedfont.h"

#include <QApplication>
#include <QFontDatabase>

QFont fixedFont()
{
    QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const qreal general = QFontDatabase::systemFont(QFontDatabase::GeneralFont).pointSizeF();
    const qreal application = QApplication::font().pointSizeF();
    // Sizes in pixels (or unknown) are left as the platform gives them.
    if (general > 0 && application > 0 && fixed.pointSizeF() > 0 && !qFuzzyCompare(general, application))
        fixed.setPointSizeF(fixed.pointSizeF() * application / general);
    return fixed;
}
