#include "RoundTicks.h"

#include "ChartParts.h" // report/

#include <QValueAxis>
#include <cmath>

namespace headroom::ui {

double setRoundTicks(QValueAxis* axis, double top)
{
    const double step = report::chartparts::niceStep(top > 0 ? top / 5 : 1, false);
    const double intervals = std::max(1.0, std::ceil(top / step - 1e-9));
    const double reach = intervals * step;
    // As many decimals as the step has: 2.5 needs one, 0.25 two, 5 none.
    int decimals = 0;
    while (decimals < 6
        && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals)))
            > 1e-6 * step * std::pow(10.0, decimals))
        ++decimals;
    axis->setRange(0, reach);
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setTickCount(static_cast<int>(intervals) + 1);
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
    return reach;
}

QStringList tickLabels(const QValueAxis* axis)
{
    QStringList labels;
    const int count = axis->tickCount();
    const QByteArray format = axis->labelFormat().toLatin1();
    for (int i = 0; i < count; ++i) {
        const double value = axis->min() + (axis->max() - axis->min()) * i / std::max(1, count - 1);
        labels << QString::asprintf(format.constData(), value);
    }
    return labels;
}

} // namespace headroom::ui
