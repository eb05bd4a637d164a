#pragma once

#include <QStringList>

class QValueAxis;

namespace headroom::ui {

/// Sets a value axis to run from 0 to `top` or a little above, with its ticks at a round step (1, 2,
/// 2.5 or 5 x 10^k, about five intervals) and labels with the decimals that step needs: "0, 2.5, 5.0,
/// 7.5", never "1.3, 2.5, 3.8" or "3, 5, 8, 13". Returns the axis's top.
double setRoundTicks(QValueAxis* axis, double top);

/// The tick labels Qt Charts draws on `axis` (its tick values in its label format), bottom to top.
[[nodiscard]] QStringList tickLabels(const QValueAxis* axis);

} // namespace headroom::ui
