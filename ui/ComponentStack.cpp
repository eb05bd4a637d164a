#include "ComponentStack.h"

#include "UiText.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QGraphicsView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTextDocument>
#include <algorithm>
#include <cmath>

namespace headroom::ui {

namespace {

/// The dynamic property of a chart's view that says its legend has the calibration's entry (set() sets
/// it, LegendFit reads it).
constexpr const char* kCalibratedLegend = "headroomCalibratedLegend";

/// The legend's font for the view's height: the small one on a short chart.
class LegendFit final : public QObject
{
public:
    explicit LegendFit(QChartView* view)
        : QObject(view)
        , m_view { view }
    {
        view->installEventFilter(this);
        fitHeight();
        apply();
    }

protected:
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Resize || event->type() == QEvent::FontChange)
            apply();
        if (event->type() == QEvent::DynamicPropertyChange
            && static_cast<QDynamicPropertyChangeEvent*>(event)->propertyName() == kCalibratedLegend)
            fitHeight();
        return false;
    }

private:
    [[nodiscard]] QFont smallFont() const
    {
        QFont small = m_view->font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        return small;
    }
    void fitHeight()
    {
        const bool calibrated = m_view->property(kCalibratedLegend).toBool();
        m_view->setMinimumHeight(std::max(160, ComponentStack::legendHeight(smallFont(), calibrated)));
    }
    void apply()
    {
        const QFont font = m_view->height() < ComponentStack::kShortChart ? smallFont() : m_view->font();
        if (m_view->chart()->legend()->font() != font)
            m_view->chart()->legend()->setFont(font);
    }

    QChartView* m_view;
};

std::size_t indexOf(Component c)
{
    return static_cast<std::size_t>(
        std::find(ComponentStack::kStackOrder.begin(), ComponentStack::kStackOrder.end(), c)
        - ComponentStack::kStackOrder.begin());
}
} // namespace

ComponentStack::ComponentStack(
    QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QObject* owner, const QString& objectNameSuffix)
    : m_chart { chart }
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

void ComponentStack::set(
    const QList<double>& xs, const std::function<const MemoryBreakdown&(qsizetype)>& at, double unit)
{
    QList<QPointF> base;
    bool markersChanged = false; // a legend marker shown or hidden
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
        for (QLegendMarker* m : m_chart->legend()->markers(m_areas[i])) {
            markersChanged = markersChanged || m->isVisible() != any;
            m->setVisible(any);
        }
        // The view keeps room for the calibration's entry only while there is one (LegendFit).
        if (kStackOrder[i] == Component::Calibration && m_chart->scene() != nullptr) {
            for (QGraphicsView* view : m_chart->scene()->views()) {
                if (view->property(kCalibratedLegend).toBool() != any)
                    view->setProperty(kCalibratedLegend, any);
            }
        }
        base = std::move(upper);
    }
    // Qt 6.4's legend does not lay itself out again when a marker is hidden or shown: the next label
    // was drawn over the hidden one's place ("Gradients" under "Optimizer state" when LoRA freezes
    // every weight).
    if (markersChanged && m_chart->legend()->layout())
        m_chart->legend()->layout()->invalidate();
}

QList<QPointF> ComponentStack::upperPoints(Component c) const
{
    return m_upper[indexOf(c)]->points();
}

bool ComponentStack::shows(Component c) const
{
    const std::size_t i = indexOf(c);
    if (i >= kStackOrder.size())
        return false;
    const auto markers = m_chart->legend()->markers(m_areas[i]);
    return !markers.isEmpty() && markers.front()->isVisible();
}

} // namespace headroom::ui

namespace headroom::ui {

void ComponentStack::fitLegend(QChartView* view)
{
    new LegendFit(view);
}

int ComponentStack::legendHeight(const QFont& font, bool withCalibration)
{
    // Qt Charts sets each entry as a text item a few pixels apart (QLegend's layout): measured the
    // same way, so a name in a fallback font counts at its real height.
    constexpr int kEntrySpacing = 6;
    constexpr int kMargins = 2 * 13 + 2 * 4; // the legend's and the chart's, above and below
    QGraphicsTextItem text;
    text.document()->setDocumentMargin(0.5); // as Qt Charts sets its legend's labels
    text.setFont(font);
    int height = kMargins;
    for (const Component c : kStackOrder) {
        if (c == Component::Calibration && !withCalibration)
            continue;
        text.setHtml(UiText::component(c).toHtmlEscaped());
        height += static_cast<int>(std::ceil(text.boundingRect().height())) + kEntrySpacing;
    }
    return height;
}

} // namespace headroom::ui
