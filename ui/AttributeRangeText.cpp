// AttributeEditor::rangeText: what an attribute accepts, in words (the editor's tooltip and its notes).
#include "AttributeEditor.h"
#include "QtText.h"

#include <QLocale>
#include <QStringList>
#include <cmath>
#include <cstdint>
#include <limits>

namespace headroom::ui {

namespace {

QString number(double v)
{
    return QLocale().toString(v, 'g', 6);
}

} // namespace

QString AttributeEditor::rangeText(const AttributeSpec& spec)
{
    const auto ints = [&] {
        const QString lo = QLocale().toString(static_cast<qlonglong>(spec.minInt));
        if (spec.maxInt >= std::numeric_limits<std::int32_t>::max())
            return tr("whole numbers from %1 up").arg(lo);
        return tr("whole numbers from %1 to %2")
            .arg(lo, QLocale().toString(static_cast<qlonglong>(spec.maxInt)));
    };
    QStringList words;
    for (const auto& c : spec.choices)
        words << QStringLiteral("“%1”").arg(qs(c));
    switch (spec.type) {
    case AttributeType::Int:
    case AttributeType::IntList:
        return ints();
    case AttributeType::IntTuple:
        return words.isEmpty() ? ints() : tr("%1, or %2").arg(ints(), words.join(QStringLiteral(", ")));
    case AttributeType::Float: {
        const bool lo = std::isfinite(spec.minFloat);
        const bool hi = std::isfinite(spec.maxFloat);
        if (lo && hi)
            return spec.minFloatExclusive
                ? tr("numbers above %1, up to %2").arg(number(spec.minFloat), number(spec.maxFloat))
                : tr("numbers from %1 to %2").arg(number(spec.minFloat), number(spec.maxFloat));
        if (lo)
            return spec.minFloatExclusive ? tr("numbers above %1").arg(number(spec.minFloat))
                                          : tr("numbers from %1 up").arg(number(spec.minFloat));
        if (hi)
            return tr("numbers up to %1").arg(number(spec.maxFloat));
        return tr("any number");
    }
    case AttributeType::Bool:
        return tr("on or off");
    case AttributeType::Choice:
        return tr("one of %1").arg(words.join(QStringLiteral(", ")));
    case AttributeType::Text:
        return tr("any text up to %1 characters").arg(kMaxAttributeTextLength);
    }
    return {};
}

} // namespace headroom::ui
