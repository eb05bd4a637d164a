#pragma once

#include <QString>
#include <string>
#include <string_view>

namespace headroom::ui {

/// Core strings are UTF-8 std::strings; these convert at the edge of the UI.
[[nodiscard]] inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
[[nodiscard]] inline std::string ss(const QString& s)
{
    return s.toStdString();
}

} // namespace headroom::ui
