#include "ReportStyle.h"

#include <QFontDatabase>

namespace headroom::report::style {

QFont font(FontRole role)
{
    static const QString family = [] {
        const QString preferred = QStringLiteral("DejaVu Sans");
        return QFontDatabase::families().contains(preferred)
            ? preferred
            : QFontDatabase::systemFont(QFontDatabase::GeneralFont).family();
    }();
    QFont f { family };
    f.setStyleHint(QFont::SansSerif);
    // Hinting tuned for a screen would shift glyphs on a printed page. No shaping means no "fi"/"fl"
    // ligatures, whose single glyphs would come out of copy-and-paste (and pdftotext) as U+FB01/U+FB02:
    // a reader searching the PDF for "float32" or a model called "EfficientNet" must find it.
    f.setHintingPreference(QFont::PreferNoHinting);
    f.setStyleStrategy(QFont::PreferNoShaping);
    switch (role) {
    case FontRole::Title:
        f.setPointSizeF(19);
        f.setWeight(QFont::Bold);
        break;
    case FontRole::Heading:
        f.setPointSizeF(12.5);
        f.setWeight(QFont::Bold);
        break;
    case FontRole::Body:
        f.setPointSizeF(9.5);
        break;
    case FontRole::BodyBold:
        f.setPointSizeF(9.5);
        f.setWeight(QFont::Bold);
        break;
    case FontRole::Small:
        f.setPointSizeF(8);
        break;
    case FontRole::SmallBold:
        f.setPointSizeF(8);
        f.setWeight(QFont::Bold);
        break;
    case FontRole::Tiny:
        f.setPointSizeF(7);
        break;
    }
    return f;
}

} // namespace headroom::report::style
