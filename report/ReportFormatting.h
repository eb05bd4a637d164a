#pragma once

// The report's small formatting helpers, shared by ReportComposer.cpp and ReportSections.cpp (internal to
// report/: inline functions in headroom::report::detail, which those files bring in with a using-directive).

#include "CoreText.h" // text/
#include "PlanText.h"
#include "headroom/support/Format.h"

#include <QString>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::report::detail {

inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}
inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
/// A name the core gives in English (an optimizer, a precision), as the user's language has it.
inline QString label(std::string_view english)
{
    return ui::CoreText::translate(english);
}
/// formatBytes() with a no-break space, so a wrapped line never parts a number from its unit. (It
/// copies out of the PDF as a plain space: both characters share one glyph.)
inline QString bytes(std::uint64_t n)
{
    return qs(formatBytes(n)).replace(QLatin1Char(' '), QChar { 0x00a0 });
}
/// A headroom or shortfall as the GUI and `headroom estimate` show it: its size, no sign.
inline QString absoluteBytes(double n)
{
    return bytes(static_cast<std::uint64_t>(std::abs(n)));
}
inline QString count(std::int64_t n)
{
    return qs(formatCount(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0))));
}

/// plantext::formatSeconds with a real micro sign ("85 µs"; the command line writes "us").
inline QString seconds(double s)
{
    QString text = qs(plantext::formatSeconds(s));
    if (text.endsWith(QStringLiteral(" us")))
        text = text.chopped(2) + QStringLiteral("\u00b5s");
    return text;
}

inline QString percent(std::uint64_t part, std::uint64_t whole)
{
    if (whole == 0)
        return QStringLiteral("\u2013");
    return QString::number(100.0 * static_cast<double>(part) / static_cast<double>(whole), 'f', 1)
        + QStringLiteral("\u00a0%"); // as `headroom estimate` prints it: "9.4 %"
}

} // namespace headroom::report::detail
