#include "ComponentStack.h"

#include "UiText.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>

#include <algorithm>

namespace headroom::ui {

namespace {
std::size_t indexOf(Component c)
{
    return static_cast<std::size_t>(std::find(ComponentStack::kStackOrder.begin(), ComponentStack::kStackOrder.end(), c)
                                    - ComponentStack::kStackOrder.begin());
}
} // namespace

ComponentStack::ComponentStack(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QObject* owner,
                               const QString& objectNameSuffix)
    : m_chart{chart}
{
    for (std::size_t i = 0; i < kStackOrder.size(); ++i) {
        const Component comp = kStackOrder[i];
        m_upper[i] = new QLineSeries(owner);
        m_lower[i] = new QLineSeries(owner);
        m_areas[i] = new QAreaSeries(m_upper[i], m_lower[i]);
        m_areas[i]->setName(UiText::component(comp));
        m_areas[i]->setObjectName(QString::fromLatin1(componentName(comp).data(),
                                                      static_cast<qsizetype>(componentName(comp).size()))
                                  + objectNameSuffix);
        m_areas[i]->setColor(ComponentColors::color(comp));
        m_areas[i]->setBorderColor(ComponentColors::border(comp));
        chart->addSeries(m_areas[i]);
        m_areas[i]->attachAxis(x);
        m_areas[i]->attachAxis(y);
    }
}

void ComponentStack::onHover(QObject* context, const std::function<void(const QPointF&, bool)>& hovered) const
{
    for (QAreaSeries* area : m_areas)
        QObject::connect(area, &QAreaSeries::hovered, context, hovered);
}

void ComponentStack::set(const QList<double>& xs, const std::function<const MemoryBreakdown&(qsizetype)>& at,
                         double unit)
{
    QList<QPointF> base;
    base.reserve(xs.size());
    for (const double x : xs)
        base.append(QPointF(x, 0.0));
    for (std::size_t i = 0; i < kStackOrder.size(); ++i) {
        QList<QPointF> upper = base;
        bool any = false;
        for (qsizetype k = 0; k < xs.size(); ++k) {
            const std::uint64_t bytes = componentBytes(at(k), kStackOrder[i]);
            any = any || bytes > 0;
            upper[k].setY(base[k].y() + static_cast<double>(bytes) / unit);
        }
        m_lower[i]->replace(base);
        m_upper[i]->replace(upper);
        for (QLegendMarker* m : m_chart->legend()->markers(m_areas[i]))
            m->setVisible(any);
        base = std::move(upper);
    }
}

QList<QPointF> ComponentStack::upperPoints(Component c) const { return m_upper[indexOf(c)]->points(); }

bool ComponentStack::shows(Component c) const
{
    const std::size_t i = indexOf(c);
    if (i >= kStackOrder.size())
        return false;
    const auto markers = m_chart->legend()->markers(m_areas[i]);
    return !markers.isEmpty() && markers.front()->isVisible();
}

} // namespace headroom::ui
