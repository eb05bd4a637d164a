#include "MemoryChartView.h"

#include "PlanController.h"
#include "UiText.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QGraphicsSimpleTextItem>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace headroom::ui {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
constexpr std::size_t kMaxBars = 24;
constexpr int kHighlightedBars = 3;

/// 1, 2, 2.5, 5 x 10^k at or above `v`: round axis ends.
double niceCeil(double v)
{
    if (v <= 0)
        return 1;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (m * p >= v * (1 - 1e-9))
            return m * p;
    }
    return 10 * p;
}

} // namespace

struct MemoryChartView::Charts {
    QChart* memory = nullptr;
    QChartView* memoryView = nullptr;
    QValueAxis* batchAxis = nullptr;
    QValueAxis* memoryAxis = nullptr;
    std::array<QLineSeries*, kStackOrder.size()> upper{};
    std::array<QLineSeries*, kStackOrder.size()> lower{};
    std::array<QAreaSeries*, kStackOrder.size()> areas{};
    QLineSeries* capacity = nullptr;
    QLineSeries* capacityLine = nullptr;
    QLineSeries* overTop = nullptr;
    QAreaSeries* over = nullptr;
    QLineSeries* marker = nullptr;
    QGraphicsSimpleTextItem* capacityText = nullptr;
    QGraphicsSimpleTextItem* markerText = nullptr;

    QChart* bars = nullptr;
    QChartView* barsView = nullptr;
    QHorizontalBarSeries* barSeries = nullptr;
    QBarSet* barSet = nullptr;
    QBarCategoryAxis* barNames = nullptr;
    QValueAxis* barAxis = nullptr;
};

MemoryChartView::MemoryChartView(QWidget* parent) : QWidget(parent), m_charts{std::make_unique<Charts>()}
{
    auto& c = *m_charts;
    c.memory = new QChart;
    c.memory->setObjectName(QStringLiteral("memoryChart"));
    c.memory->legend()->setAlignment(Qt::AlignRight);
    c.memory->setMargins(QMargins(4, 4, 4, 4));
    c.batchAxis = new QValueAxis;
    c.batchAxis->setTitleText(tr("Batch size"));
    c.batchAxis->setLabelFormat(QStringLiteral("%.0f"));
    c.memoryAxis = new QValueAxis;
    c.memory->addAxis(c.batchAxis, Qt::AlignBottom);
    c.memory->addAxis(c.memoryAxis, Qt::AlignLeft);

    const auto attach = [&](QAbstractSeries* s) {
        c.memory->addSeries(s);
        s->attachAxis(c.batchAxis);
        s->attachAxis(c.memoryAxis);
    };
    for (std::size_t i = 0; i < kStackOrder.size(); ++i) {
        const Component comp = kStackOrder[i];
        c.upper[i] = new QLineSeries(this);
        c.lower[i] = new QLineSeries(this);
        c.areas[i] = new QAreaSeries(c.upper[i], c.lower[i]);
        c.areas[i]->setName(UiText::component(comp));
        c.areas[i]->setObjectName(QString::fromLatin1(componentName(comp).data(),
                                                      static_cast<qsizetype>(componentName(comp).size()))
                                  + QStringLiteral("Series"));
        c.areas[i]->setColor(ComponentColors::color(comp));
        c.areas[i]->setBorderColor(ComponentColors::border(comp));
        attach(c.areas[i]);
        connect(c.areas[i], &QAreaSeries::hovered, this, [this](const QPointF& point, bool state) {
            if (state)
                QToolTip::showText(QCursor::pos(), breakdownText(point.x()), m_charts->memoryView);
            else
                QToolTip::hideText();
        });
    }
    c.overTop = new QLineSeries(this);
    c.capacity = new QLineSeries(this);
    c.over = new QAreaSeries(c.overTop, c.capacity);
    c.over->setName(tr("Over budget"));
    c.over->setObjectName(QStringLiteral("overBudgetSeries"));
    c.over->setColor(QColor(0xe1, 0x57, 0x59, 45));
    c.over->setPen(Qt::NoPen);
    attach(c.over);
    QPen capacityPen(QColor(0xc0, 0x20, 0x20));
    capacityPen.setWidth(2);
    // The capacity line is drawn by its own series on top of the shaded region.
    auto* capacityLine = new QLineSeries(this);
    c.capacityLine = capacityLine;
    capacityLine->setObjectName(QStringLiteral("capacitySeries"));
    capacityLine->setPen(capacityPen);
    attach(capacityLine);
    connect(c.capacity, &QLineSeries::pointsReplaced, capacityLine,
            [capacity = c.capacity, capacityLine] { capacityLine->replace(capacity->points()); });
    c.marker = new QLineSeries(this);
    c.marker->setObjectName(QStringLiteral("batchMarkerSeries"));
    QPen markerPen(QColor(0x20, 0x20, 0x20));
    markerPen.setWidth(2);
    markerPen.setStyle(Qt::DashLine);
    c.marker->setPen(markerPen);
    attach(c.marker);
    for (QLegendMarker* m : c.memory->legend()->markers(capacityLine))
        m->setVisible(false);
    for (QLegendMarker* m : c.memory->legend()->markers(c.marker))
        m->setVisible(false);

    c.capacityText = new QGraphicsSimpleTextItem(c.memory);
    c.capacityText->setBrush(QColor(0xa0, 0x10, 0x10));
    QFont labelFont = font();
    labelFont.setBold(true);
    c.capacityText->setFont(labelFont);
    c.markerText = new QGraphicsSimpleTextItem(c.memory);
    c.markerText->setFont(labelFont);
    c.capacityText->setZValue(20);
    c.markerText->setZValue(20);
    connect(c.memory, &QChart::plotAreaChanged, this, &MemoryChartView::updateLabels);

    c.memoryView = new QChartView(c.memory);
    c.memoryView->setObjectName(QStringLiteral("memoryChartView"));
    c.memoryView->setRenderHint(QPainter::Antialiasing);
    c.memoryView->setMinimumSize(360, 260);

    c.bars = new QChart;
    c.bars->setObjectName(QStringLiteral("layerChart"));
    c.bars->legend()->hide();
    c.bars->setMargins(QMargins(4, 4, 4, 4));
    c.barSeries = new QHorizontalBarSeries(this);
    c.barSet = new QBarSet(tr("Activations per sample"), this);
    c.barSet->setColor(ComponentColors::color(Component::Activations));
    c.barSet->setSelectedColor(QColor(0xe1, 0x57, 0x59));
    c.barSeries->append(c.barSet);
    c.barSeries->setBarWidth(0.75);
    c.bars->addSeries(c.barSeries);
    c.barNames = new QBarCategoryAxis(this);
    c.barAxis = new QValueAxis(this);
    c.barAxis->setLabelFormat(QStringLiteral("%.1f"));
    c.bars->addAxis(c.barNames, Qt::AlignLeft);
    c.bars->addAxis(c.barAxis, Qt::AlignBottom);
    c.barSeries->attachAxis(c.barNames);
    c.barSeries->attachAxis(c.barAxis);
    connect(c.barSet, &QBarSet::hovered, this, [this](bool state, int index) {
        if (!state) {
            QToolTip::hideText();
            return;
        }
        const QStringList names = barNames();
        if (index >= 0 && index < names.size())
            QToolTip::showText(QCursor::pos(),
                               tr("%1: %2 per sample").arg(names[index],
                                                           UiText::bytes(static_cast<std::uint64_t>(barValues()[index] * m_barUnit))),
                               m_charts->barsView);
    });
    c.barsView = new QChartView(c.bars);
    c.barsView->setObjectName(QStringLiteral("layerChartView"));
    c.barsView->setRenderHint(QPainter::Antialiasing);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("chartMessageLabel"));
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #c01010; font-weight: bold;"));
    m_memoryStack = new QStackedWidget(this);
    m_memoryStack->addWidget(c.memoryView);
    m_memoryStack->addWidget(m_message);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("chartTabWidget"));
    m_tabs->addTab(m_memoryStack, tr("Memory vs. batch size"));
    m_tabs->addTab(c.barsView, tr("Activations per layer"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
}

MemoryChartView::~MemoryChartView()
{
    // The views own their charts; the series belong to the charts once added.
    delete m_charts->memoryView;
    delete m_charts->barsView;
}

QString MemoryChartView::unitName() const { return m_unit >= kGiB ? QStringLiteral("GiB") : QStringLiteral("MiB"); }

void MemoryChartView::setData(const ChartData& data)
{
    m_data = data;
    auto& c = *m_charts;
    updateBars();
    if (!data.valid) {
        m_message->setText(data.message.isEmpty() ? tr("No estimate") : tr("No estimate: %1").arg(data.message));
        m_memoryStack->setCurrentWidget(m_message);
        return;
    }
    m_memoryStack->setCurrentWidget(c.memoryView);

    const double xMax = static_cast<double>(data.batches.back());
    const double top = static_cast<double>(std::max(data.breakdowns.back().total(), data.capacityBytes));
    m_unit = top >= 2 * kGiB ? kGiB : kMiB;
    const double yMax = niceCeil(top * 1.08 / m_unit);

    QList<QPointF> base;
    base.reserve(static_cast<qsizetype>(data.batches.size()));
    for (const auto b : data.batches)
        base.append(QPointF(static_cast<double>(b), 0.0));
    for (std::size_t i = 0; i < kStackOrder.size(); ++i) {
        QList<QPointF> upper = base;
        bool any = false;
        for (std::size_t s = 0; s < data.batches.size(); ++s) {
            const std::uint64_t bytes = componentBytes(data.breakdowns[s], kStackOrder[i]);
            any = any || bytes > 0;
            upper[static_cast<qsizetype>(s)].setY(base[static_cast<qsizetype>(s)].y() + static_cast<double>(bytes) / m_unit);
        }
        c.lower[i]->replace(base);
        c.upper[i]->replace(upper);
        for (QLegendMarker* m : c.memory->legend()->markers(c.areas[i]))
            m->setVisible(any);
        base = upper;
    }
    const double capacity = static_cast<double>(data.capacityBytes) / m_unit;
    c.capacity->replace(QList<QPointF>{{0.0, capacity}, {xMax, capacity}});
    c.overTop->replace(QList<QPointF>{{0.0, std::max(yMax, capacity)}, {xMax, std::max(yMax, capacity)}});
    c.batchAxis->setRange(0, xMax);
    c.batchAxis->setTickCount(9);
    c.memoryAxis->setRange(0, yMax);
    c.memoryAxis->setTickCount(std::fmod(yMax, 4.0) == 0 || yMax < 10 ? 5 : 6);
    c.memoryAxis->setLabelFormat(yMax < 10 ? QStringLiteral("%.1f") : QStringLiteral("%.0f"));
    c.memoryAxis->setTitleText(data.gpus > 1 ? tr("Memory per GPU (%1)").arg(unitName()) : tr("Memory (%1)").arg(unitName()));
    c.batchAxis->setTitleText(data.gpus > 1 || data.accumulationSteps > 1 ? tr("Micro-batch per GPU") : tr("Batch size"));
    setCurrentBatch(m_batch);
}

void MemoryChartView::setEstimate(const EstimateState& state)
{
    if (state.estimate)
        setCurrentBatch(state.estimate->batch);
}

void MemoryChartView::setCurrentBatch(std::int64_t batch)
{
    m_batch = batch;
    auto& c = *m_charts;
    const double x = static_cast<double>(batch);
    c.marker->replace(QList<QPointF>{{x, 0.0}, {x, c.memoryAxis->max()}});
    updateLabels();
}

void MemoryChartView::updateLabels()
{
    auto& c = *m_charts;
    const bool shown = m_data.valid;
    c.capacityText->setVisible(shown);
    c.markerText->setVisible(shown);
    if (!shown)
        return;
    const QRectF plot = c.memory->plotArea();
    const QString capacityText = capacityLabel();
    c.capacityText->setText(capacityText);
    const QPointF at
        = c.memory->mapToPosition(QPointF(0, static_cast<double>(m_data.capacityBytes) / m_unit), c.capacityLine);
    const QRectF textRect = c.capacityText->boundingRect();
    // Above the line at the right of the plot (clear of the batch label at the top), or below it
    // when the line is at the very top.
    double y = at.y() - textRect.height() - 2;
    if (y < plot.top() + textRect.height() + 4)
        y = at.y() + 2;
    c.capacityText->setPos(plot.right() - textRect.width() - 6, y);

    c.markerText->setText(tr("batch %1").arg(m_batch));
    const QPointF m = c.memory->mapToPosition(QPointF(static_cast<double>(m_batch), c.memoryAxis->max()), c.marker);
    const QRectF markerRect = c.markerText->boundingRect();
    double mx = m.x() + 4;
    if (mx + markerRect.width() > plot.right())
        mx = m.x() - 4 - markerRect.width();
    c.markerText->setPos(mx, plot.top() + 2);
    c.markerText->setVisible(m_batch <= static_cast<std::int64_t>(c.batchAxis->max()));
}

void MemoryChartView::updateBars()
{
    auto& c = *m_charts;
    // The heaviest layers, shown in network order (top to bottom); the three heaviest highlighted.
    std::vector<std::size_t> order(m_data.layers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
        return m_data.layers[a].bytesPerSample > m_data.layers[b].bytesPerSample;
    });
    if (order.size() > kMaxBars)
        order.resize(kMaxBars);
    std::vector<std::size_t> shown = order;
    std::sort(shown.begin(), shown.end());
    std::uint64_t maxBytes = 0;
    for (const auto i : shown)
        maxBytes = std::max(maxBytes, m_data.layers[i].bytesPerSample);
    m_barUnit = maxBytes >= 2 * kMiB ? kMiB : 1024.0;

    c.barSet->remove(0, c.barSet->count());
    QStringList names;
    QList<qreal> values;
    for (auto it = shown.rbegin(); it != shown.rend(); ++it) { // the category axis runs bottom-up
        names << m_data.layers[*it].name;
        values << static_cast<double>(m_data.layers[*it].bytesPerSample) / m_barUnit;
    }
    c.barNames->clear();
    c.barNames->append(names);
    c.barSet->append(values);
    c.barSet->deselectAllBars();
    for (int k = 0; k < kHighlightedBars && static_cast<std::size_t>(k) < order.size(); ++k) {
        const auto pos = std::find(shown.begin(), shown.end(), order[static_cast<std::size_t>(k)]) - shown.begin();
        c.barSet->selectBar(static_cast<int>(shown.size()) - 1 - static_cast<int>(pos));
    }
    const double xMax = niceCeil(static_cast<double>(maxBytes) * 1.05 / m_barUnit);
    c.barAxis->setRange(0, maxBytes > 0 ? xMax : 1.0);
    c.barAxis->setTitleText(tr("Activation memory per sample (%1)").arg(m_barUnit >= kMiB ? QStringLiteral("MiB")
                                                                                           : QStringLiteral("KiB")));
    c.bars->setTitle(m_data.layers.size() > shown.size()
                         ? tr("The %1 heaviest of %2 layers keeping activations").arg(shown.size()).arg(m_data.layers.size())
                         : tr("Layers keeping activations for the backward pass"));
}

QList<QPointF> MemoryChartView::upperPoints(Component comp) const
{
    const auto it = std::find(kStackOrder.begin(), kStackOrder.end(), comp);
    return m_charts->upper[static_cast<std::size_t>(it - kStackOrder.begin())]->points();
}

bool MemoryChartView::showsComponent(Component comp) const
{
    const auto it = std::find(kStackOrder.begin(), kStackOrder.end(), comp);
    if (it == kStackOrder.end() || !m_data.valid)
        return false;
    const auto i = static_cast<std::size_t>(it - kStackOrder.begin());
    const auto markers = m_charts->memory->legend()->markers(m_charts->areas[i]);
    return !markers.isEmpty() && markers.front()->isVisible();
}

QList<QPointF> MemoryChartView::capacityPoints() const { return m_charts->capacity->points(); }

QString MemoryChartView::capacityLabel() const
{
    return tr("%1: %2").arg(m_data.gpuName, UiText::bytes(m_data.capacityBytes));
}

QList<QPointF> MemoryChartView::markerPoints() const { return m_charts->marker->points(); }

double MemoryChartView::axisMaxBatch() const { return m_charts->batchAxis->max(); }

double MemoryChartView::axisMaxMemory() const { return m_charts->memoryAxis->max(); }

QString MemoryChartView::breakdownText(double batch) const
{
    if (!m_data.valid)
        return {};
    const auto it = std::lower_bound(m_data.batches.begin(), m_data.batches.end(), static_cast<std::int64_t>(std::llround(batch)));
    std::size_t i = static_cast<std::size_t>(std::min<std::ptrdiff_t>(it - m_data.batches.begin(),
                                                                      static_cast<std::ptrdiff_t>(m_data.batches.size()) - 1));
    if (i > 0 && std::abs(static_cast<double>(m_data.batches[i - 1]) - batch) < std::abs(static_cast<double>(m_data.batches[i]) - batch))
        --i;
    const MemoryBreakdown& b = m_data.breakdowns[i];
    QStringList lines{tr("Batch %1").arg(m_data.batches[i])};
    for (auto c = kStackOrder.rbegin(); c != kStackOrder.rend(); ++c) {
        if (componentBytes(b, *c) > 0)
            lines << tr("%1: %2").arg(UiText::component(*c), UiText::bytes(componentBytes(b, *c)));
    }
    lines << tr("Total: %1 of %2").arg(UiText::bytes(b.total()), UiText::bytes(m_data.capacityBytes));
    return lines.join(QLatin1Char('\n'));
}

QStringList MemoryChartView::barNames() const { return m_charts->barNames->categories(); }

QList<qreal> MemoryChartView::barValues() const
{
    QList<qreal> out;
    for (int i = 0; i < m_charts->barSet->count(); ++i)
        out << m_charts->barSet->at(i);
    return out;
}

} // namespace headroom::ui
