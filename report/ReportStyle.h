#pragma once

#include <QColor>
#include <QFont>

namespace headroom::report {

/// The report's typography and colours, in one place so the chart, its legend and the breakdown
/// table agree. Sizes are in typographic points (1/72 inch).
namespace style {

enum class FontRole { Title, Heading, Body, BodyBold, Small, SmallBold, Tiny };

/// DejaVu Sans where installed (it is embedded in the PDF, so readers need not have it); the
/// platform's sans-serif otherwise.
[[nodiscard]] QFont font(FontRole role);
// Component colours and the chart's stacking order come from ComponentColors.h (beside this file),
// which the GUI's charts use too.

inline const QColor kText { 0x1f, 0x23, 0x28 };
inline const QColor kMuted { 0x5f, 0x66, 0x6d };
inline const QColor kRule { 0xc9, 0xcf, 0xd6 };
inline const QColor kGrid { 0xe3, 0xe7, 0xeb };
inline const QColor kTableHeader { 0xe9, 0xee, 0xf4 };
inline const QColor kStripe { 0xf6, 0xf8, 0xfa };
inline const QColor kFits { 0x1b, 0x7f, 0x3b };
inline const QColor kFitsBackground { 0xe8, 0xf5, 0xec };
inline const QColor kFails { 0xb3, 0x26, 0x1e };
inline const QColor kFailsBackground { 0xfc, 0xec, 0xea };
inline const QColor kGpuLine { 0xb3, 0x26, 0x1e };

constexpr double kMarginLeftMm = 20;
constexpr double kMarginRightMm = 20;
constexpr double kMarginTopMm = 18;
constexpr double kMarginBottomMm = 12;
constexpr double kFooterHeightPt = 22; ///< reserved at the bottom of the printable area

} // namespace style
} // namespace headroom::report
