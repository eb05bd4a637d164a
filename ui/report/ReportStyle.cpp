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

QColor componentColor(Component c)
{
    switch (c) {
    case Component::Weights:
        return { 0x4e, 0x79, 0xa7 };
    case Component::Gradients:
        return { 0x8c, 0xb7, 0xe0 };
    case Component::OptimizerState:
        return { 0xf2, 0x8e, 0x2b };
    case Component::Activations:
        return { 0x59, 0xa1, 0x4f };
    case Component::Input:
        return { 0xb0, 0x7a, 0xa1 };
    case Component::Transient:
        return { 0x9c, 0x75, 0x5f };
    case Component::Communication:
        return { 0x76, 0xb7, 0xb2 };
    case Component::Overhead:
        return { 0xba, 0xb0, 0xac };
    }
    return Qt::gray;
}

} // namespace headroom::report::style
