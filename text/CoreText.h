#pragma once

#include "headroom/estimate/Throughput.h"

#include <QCoreApplication>
#include <QString>
#include <span>
#include <string_view>

namespace headroom::ui {

/// Text the core writes in English that the GUI and the report show: layer summaries, attribute
/// help, what an omitted attribute means, the names of the core's enumerations and the throughput
/// caveats (sentence templates), and the presets' descriptions. The core has no
/// Qt; CoreText.cpp lists every such string once (marked for lupdate), and translate() finds a core
/// string's translation by its English text. A test checks the list covers the layer registry, so a
/// new layer kind's texts cannot miss the translators.
class CoreText final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::ui::CoreText)

public:
    /// The translation of a core string, or the string itself when it has none.
    [[nodiscard]] static QString translate(std::string_view english);
    /// A core sentence with placeholders (a throughput caveat), translated, its values filled in.
    [[nodiscard]] static QString format(const TemplatedText& text);
    /// Every core string the list holds, in English.
    [[nodiscard]] static std::span<const char* const> known();
};

} // namespace headroom::ui
