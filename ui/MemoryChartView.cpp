#include "MemoryChartView.h"

#include "ChartParts.h" // report/
#include "ComponentStack.h"
#include "LayerActivationsView.h"
#include "PlanController.h"
#include "RoundTicks.h"
#include "StepChartView.h"
#include "UiText.h"

#include <QAction>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QCursor>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QResizeEvent>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace headroom::ui {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
const QColor kMaxBatchColour { 0x1a, 0x7f, 0x37 };

/// 1, 2, 2.5, 5 x 10^k at or above `v`: round axis ends.
double niceCeil(double v)
{
    if (v <= 0)
        return 1;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (const double m : { 1.0, 2.0, 2.5, 5.0, 10.0 }) {
        if (m * p >= v * (1 - 1e-9))
            return m * p;
    }
    return 10 * p;
}

/// The batch axis runs in log2(batch).
double axisX(std::int64_t batch)
{
    return report::MemorySweep::axisX(batch);
}
double batchAt(double x)
{
    return std::exp2(x);
}

} // namespace

struct MemoryChartView::Charts
{
    QChart* memory = nullptr;
    QChartView* memoryView = nullptr;
    QCategoryAxis* batchAxis = nullptr;
    QValueAxis* memoryAxis = nullptr;
    std::unique_ptr<ComponentStack> stack;
    QLineSeries* capacity = nullptr;
    QLineSeries* capacityLine = nullptr;
    QLineSeries* overTop = nullptr;
    QAreaSeries* over = nullptr;
    QLineSeries* marker = nullptr;
    QLineSeries* maxMarker = nullptr;
    QLineSeries* reserved = nullptr; ///< what PyTorch's caching allocator reserves, plus the overhead
    QGraphicsSimpleTextItem* capacityText = nullptr;
    QGraphicsSimpleTextItem* markerText = nullptr;
    QGraphicsSimpleTextItem* maxText = nullptr;
    /// Light panels behind the batch labels, which sit over the coloured bands.
    QGraphicsRectItem* markerBack = nullptr;
    QGraphicsRectItem* maxBack = nullptr;
    QGraphicsRectItem* capacityBack = nullptr;
};

QString MemoryChartView::compactBatch(std::int64_t batch)
{
    return report::MemorySweep::batchLabel(batch);
}

MemoryChartView::MemoryChartView(QWidget* parent)
    : QWidget(parent)
    , m_charts { std::make_unique<Charts>() }
{
    buildChart();
    buildSeries();
    buildLabels();
    auto& c = *m_charts;
    c.memoryView = new QChartView(c.memory);
    c.memoryView->setObjectName(QStringLiteral("memoryChartView"));
    c.memoryView->setRenderHint(QPainter::Antialiasing);
    // Tall enough for the legend's entries, in the smaller font a short chart uses.
    c.memoryView->setMinimumWidth(300);
    ComponentStack::fitLegend(c.memoryView);
    buildTabs();
    buildContextMenu();
}

void MemoryChartView::buildContextMenu()
{
    m_menu = new QMenu(this);
    m_menu->setObjectName(QStringLiteral("chartContextMenu"));
    QAction* copy = m_menu->addAction(tr("&Copy Image"));
    copy->setObjectName(QStringLiteral("copyChartImageAction"));
    copy->setStatusTip(tr("Copies the chart to the clipboard as an image"));
    connect(
        copy, &QAction::triggered, this, [this] { QGuiApplication::clipboard()->setImage(chartImage()); });
    QAction* image = m_menu->addAction(tr("Export &Image..."));
    image->setObjectName(QStringLiteral("exportChartImageAction"));
    image->setStatusTip(tr("Saves the chart as a PNG image"));
    connect(image, &QAction::triggered, this, &MemoryChartView::exportImageRequested);
    m_menu->addSeparator();
    QAction* report = m_menu->addAction(tr("Export &Report..."));
    report->setObjectName(QStringLiteral("exportReportFromChartAction"));
    report->setStatusTip(tr("Writes the PDF report of the plan, with this chart"));
    connect(report, &QAction::triggered, this, &MemoryChartView::exportReportRequested);
    for (QWidget* view : { static_cast<QWidget*>(m_charts->memoryView), m_step->chartWidget() }) {
        view->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(view, &QWidget::customContextMenuRequested, this, [this, view](const QPoint& position) {
            // The position is the viewport's (a chart view scrolls its scene).
            const auto* area = qobject_cast<QAbstractScrollArea*>(view);
            m_menu->popup((area != nullptr ? area->viewport() : view)->mapToGlobal(position));
        });
    }
}

QWidget* MemoryChartView::shownChart() const
{
    return m_tabs->currentWidget() == m_step ? m_step->chartWidget()
                                             : static_cast<QWidget*>(m_charts->memoryView);
}

QImage MemoryChartView::chartImage() const
{
    return shownChart()->grab().toImage();
}

QString MemoryChartView::chartName() const
{
    return m_tabs->currentWidget() == m_step ? tr("during one step") : tr("memory vs batch size");
}

void MemoryChartView::buildChart()
{
    auto& c = *m_charts;
    c.memory = new QChart;
    c.memory->setObjectName(QStringLiteral("memoryChart"));
    c.memory->legend()->setAlignment(Qt::AlignRight);
    c.memory->setMargins(QMargins(4, 4, 4, 4));
    c.batchAxis = new QCategoryAxis;
    c.batchAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    c.batchAxis->setTitleText(tr("Batch size (log scale)"));
    c.memoryAxis = new QValueAxis;
    c.memory->addAxis(c.batchAxis, Qt::AlignBottom);
    c.memory->addAxis(c.memoryAxis, Qt::AlignLeft);
    c.stack = std::make_unique<ComponentStack>(
        c.memory, c.batchAxis, c.memoryAxis, this, QStringLiteral("Series"));
    c.stack->onHover(this, [this](const QPointF& point, bool state) {
        if (state)
            QToolTip::showText(QCursor::pos(), breakdownText(batchAt(point.x())), m_charts->memoryView);
        else
            QToolTip::hideText();
    });
}

void MemoryChartView::attach(QAbstractSeries* series)
{
    m_charts->memory->addSeries(series);
    series->attachAxis(m_charts->batchAxis);
    series->attachAxis(m_charts->memoryAxis);
}

void MemoryChartView::buildSeries()
{
    auto& c = *m_charts;
    c.overTop = new QLineSeries(this);
    c.capacity = new QLineSeries(this);
    c.over = new QAreaSeries(c.overTop, c.capacity);
    c.over->setName(tr("Over budget"));
    c.over->setObjectName(QStringLiteral("overBudgetSeries"));
    c.over->setColor(ComponentColors::overBudget());
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
    // The batch markers and the reserved line: 2-pixel lines over the stack.
    const auto line = [&](const QString& objectName, const QColor& colour, Qt::PenStyle style) {
        auto* series = new QLineSeries(this);
        series->setObjectName(objectName);
        QPen pen(colour);
        pen.setWidth(2);
        pen.setStyle(style);
        series->setPen(pen);
        attach(series);
        return series;
    };
    c.marker = line(QStringLiteral("batchMarkerSeries"), QColor(0x20, 0x20, 0x20), Qt::DashLine);
    c.maxMarker = line(QStringLiteral("maxBatchMarkerSeries"), kMaxBatchColour, Qt::DotLine);
    // Reserved next to the allocated stack: the line a run out of memory is decided by.
    const report::chartparts::LegendLine legend = report::chartparts::reservedLegend();
    c.reserved = line(QStringLiteral("reservedSeries"), legend.colour, legend.style);
    c.reserved->setName(legend.label);
    // The shading explains itself beside the GPU's labelled line; the legend keeps to the components
    // and the reserved line, so it fits a small chart.
    for (QAbstractSeries* s :
        std::initializer_list<QAbstractSeries*> { c.over, capacityLine, c.marker, c.maxMarker }) {
        for (QLegendMarker* m : c.memory->legend()->markers(s))
            m->setVisible(false);
    }
}

void MemoryChartView::buildLabels()
{
    auto& c = *m_charts;
    QFont labelFont = font();
    labelFont.setBold(true);
    const auto label = [&](const QColor& colour) {
        auto* item = new QGraphicsSimpleTextItem(c.memory);
        item->setBrush(colour);
        item->setFont(labelFont);
        item->setZValue(20);
        return item;
    };
    const auto panel = [&] {
        auto* item = new QGraphicsRectItem(c.memory);
        item->setBrush(QColor(255, 255, 255, 210));
        item->setPen(Qt::NoPen);
        item->setZValue(19);
        return item;
    };
    c.capacityText = label(QColor(0xa0, 0x10, 0x10));
    c.markerText = label(QColor(0x20, 0x20, 0x20));
    c.maxText = label(kMaxBatchColour);
    c.markerBack = panel();
    c.maxBack = panel();
    c.capacityBack = panel();
    connect(c.memory, &QChart::plotAreaChanged, this, &MemoryChartView::updateLabels);
}

void MemoryChartView::buildTabs()
{
    m_layers = new LayerActivationsView(this);
    m_layers->setObjectName(QStringLiteral("layerActivationsView"));

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("chartMessageLabel"));
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setMargin(24);
    m_message->setStyleSheet(QStringLiteral("color: palette(placeholder-text); font-weight: bold;"));
    m_memoryStack = new QStackedWidget(this);
    m_memoryStack->addWidget(m_charts->memoryView);
    m_memoryStack->addWidget(m_message);

    // Under the charts: why there is no reserved line (the step is too large to replay).
    m_reservedNote = new QLabel(this);
    m_reservedNote->setObjectName(QStringLiteral("reservedNoteLabel"));
    m_reservedNote->setWordWrap(true);
    m_reservedNote->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    m_reservedNote->hide();

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("chartTabWidget"));
    m_step = new StepChartView(this);
    m_step->setObjectName(QStringLiteral("stepChartView"));
    m_tabs->addTab(m_memoryStack, tr("Memory vs. batch size"));
    m_tabs->addTab(m_step, tr("During one step"));
    m_tabs->addTab(m_layers, tr("Activations per layer"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    layout->addWidget(m_reservedNote);
}

MemoryChartView::~MemoryChartView()
{
    // The view owns its chart; the series belong to the chart once added.
    delete m_charts->memoryView;
}

QStringList MemoryChartView::memoryAxisLabels() const
{
    return tickLabels(m_charts->memoryAxis);
}

QString MemoryChartView::unitName() const
{
    return m_unit >= kGiB ? QStringLiteral("GiB") : QStringLiteral("MiB");
}

void MemoryChartView::setData(const ChartData& data)
{
    m_data = data;
    m_layers->setLayers(data.layers);
    m_reservedNote->setText(data.reservedNote);
    m_reservedNote->setVisible(!data.reservedNote.isEmpty());
    if (!data.valid) {
        m_message->setText(data.message.isEmpty() ? tr("No estimate") : data.message);
        m_memoryStack->setCurrentWidget(m_message);
        return;
    }
    m_memoryStack->setCurrentWidget(m_charts->memoryView);
    m_labelStep = 0; // chosen for the plot's width
    draw();
}

void MemoryChartView::draw()
{
    // The range, the samples and the memory axis's reach are report::MemorySweep's, which the PDF
    // report's chart uses too: the same picture in both places.
    auto& c = *m_charts;
    const ChartData& data = m_data;
    const double xMax = axisX(data.range);
    const double top = data.topBytes(data.capacityBytes, m_batch);
    m_unit = top >= 2 * kGiB ? kGiB : kMiB;
    const double yMax = niceCeil(top / m_unit);
    m_drawnTop = top;

    QList<double> xs;
    xs.reserve(static_cast<qsizetype>(data.batches.size()));
    for (const auto b : data.batches)
        xs.append(axisX(b));
    c.stack->set(
        xs,
        [&](qsizetype i) -> const MemoryBreakdown& { return data.breakdowns[static_cast<std::size_t>(i)]; },
        m_unit);
    const double capacity = static_cast<double>(data.capacityBytes) / m_unit;
    c.capacity->replace(QList<QPointF> { { 0.0, capacity }, { xMax, capacity } });
    c.overTop->replace(
        QList<QPointF> { { 0.0, std::max(yMax, capacity) }, { xMax, std::max(yMax, capacity) } });

    labelBatchAxis();
    c.batchAxis->setRange(0, xMax);
    setRoundTicks(c.memoryAxis, yMax); // a round yMax: the axis ends there
    // Short enough for a small chart, where Qt Charts cuts a long axis title.
    c.memoryAxis->setTitleText(
        data.gpus > 1 ? tr("%1 per GPU").arg(unitName()) : tr("Memory (%1)").arg(unitName()));
    c.batchAxis->setTitleText(data.gpus > 1 || data.accumulationSteps > 1
            ? tr("Micro-batch per GPU (log scale)")
            : tr("Batch size (log scale)"));
    QList<QPointF> reserved;
    for (std::size_t i = 0; i < data.reservedBatches.size(); ++i)
        reserved.append(
            QPointF(axisX(data.reservedBatches[i]), static_cast<double>(data.reservedBytes[i]) / m_unit));
    c.reserved->replace(reserved);
    c.reserved->setVisible(!reserved.isEmpty());
    const bool maxShown = data.maxBatch > 0 && data.maxBatch <= data.range && data.maxBatch < kMaxBatch;
    const double maxX = axisX(data.maxBatch);
    c.maxMarker->replace(maxShown ? QList<QPointF> { { maxX, 0.0 }, { maxX, yMax } } : QList<QPointF> {});
    placeMarker();
}

void MemoryChartView::labelBatchAxis()
{
    // Powers of two: every one where the plot is wide enough for their labels, else every other
    // (or every fourth) one, so none is cut to "...".
    auto& c = *m_charts;
    if (!m_data.valid || m_data.batches.empty())
        return;
    const QFontMetrics fm(c.batchAxis->labelsFont());
    const double labelWidth
        = fm.horizontalAdvance(QStringLiteral("512k")) + fm.horizontalAdvance(QLatin1Char(' ')) * 2;
    const double width = c.memory->plotArea().width() > 0 ? c.memory->plotArea().width() : 400.0;
    const int step = report::MemorySweep::labelEvery(m_data.range, labelWidth, width);
    if (step == m_labelStep)
        return;
    m_labelStep = step;
    for (const QString& label : c.batchAxis->categoriesLabels())
        c.batchAxis->remove(label);
    c.batchAxis->setStartValue(-1e-6);
    const int powers = static_cast<int>(std::lround(axisX(m_data.range)));
    for (int p = 0; p <= powers; p += step)
        c.batchAxis->append(compactBatch(std::int64_t { 1 } << p), p);
}

void MemoryChartView::setEstimate(const EstimateState& state)
{
    if (state.estimate)
        setCurrentBatch(state.estimate->batch);
}

void MemoryChartView::setStepData(const StepChartData& data)
{
    m_step->setData(data);
}

void MemoryChartView::setCurrentBatch(std::int64_t batch)
{
    m_batch = batch;
    // The memory axis follows the batch too (a batch far over the GPU's memory raises it; back
    // under, it comes down again).
    if (m_data.valid && m_data.topBytes(m_data.capacityBytes, batch) != m_drawnTop)
        draw();
    else
        placeMarker();
}

void MemoryChartView::placeMarker()
{
    auto& c = *m_charts;
    const double x = axisX(m_batch);
    c.marker->replace(QList<QPointF> { { x, 0.0 }, { x, c.memoryAxis->max() } });
    updateLabels();
}

void MemoryChartView::updateLabels()
{
    auto& c = *m_charts;
    labelBatchAxis(); // the plot's width may have changed
    const bool shown = m_data.valid;
    c.capacityText->setVisible(shown);
    c.markerText->setVisible(shown);
    c.maxText->setVisible(shown && !c.maxMarker->points().isEmpty());
    c.markerBack->setVisible(false);
    c.maxBack->setVisible(false);
    c.capacityBack->setVisible(false);
    if (!shown)
        return;
    const QRectF plot = c.memory->plotArea();
    const QString capacityText = capacityLabel();
    c.capacityText->setText(capacityText);
    const QPointF at = c.memory->mapToPosition(
        QPointF(0, static_cast<double>(m_data.capacityBytes) / m_unit), c.capacityLine);
    const QRectF textRect = c.capacityText->boundingRect();
    // Above the line, or below it when the line is at the very top; at the left of the plot, where
    // the stack is lowest, unless the batch's or the max batch's line would run through it there:
    // then at the right, or else just right of the lines.
    double y = at.y() - textRect.height() - 2;
    if (y < plot.top() + textRect.height() + 4)
        y = at.y() + 2;
    QList<double> lines;
    for (QLineSeries* s : { c.marker, c.maxMarker }) {
        if (!s->points().isEmpty() && s->points().front().x() <= c.batchAxis->max() + 1e-9)
            lines << c.memory->mapToPosition(s->points().front(), s).x();
    }
    const auto clear = [&](double x) {
        return std::none_of(lines.begin(), lines.end(),
            [&](double lx) { return lx >= x - 4 && lx <= x + textRect.width() + 4; });
    };
    double x = plot.left() + 6;
    if (!clear(x)) {
        QList<double> tries { plot.right() - textRect.width() - 6 };
        for (const double lx : lines)
            tries << lx + 6;
        for (const double t : tries) {
            if (t >= plot.left() + 2 && t + textRect.width() <= plot.right() && clear(t)) {
                x = t;
                break;
            }
        }
    }
    c.capacityText->setPos(x, y);
    c.capacityBack->setRect(QRectF(c.capacityText->pos(), textRect.size()).adjusted(-2, 0, 2, 0));
    c.capacityBack->setVisible(true);

    // A label beside its line, on a light panel: to the right, or to the left where it would
    // leave the plot.
    const auto besideLine
        = [&](QGraphicsSimpleTextItem* item, QGraphicsRectItem* back, double lineX, double top) {
              const QRectF r = item->boundingRect();
              double x = lineX + 5;
              if (x + r.width() > plot.right())
                  x = lineX - 5 - r.width();
              item->setPos(std::max(x, plot.left() + 2), top);
              back->setRect(QRectF(item->pos(), r.size()).adjusted(-2, 0, 2, 0));
              back->setVisible(item->isVisible());
          };
    c.markerText->setText(tr("batch %1").arg(UiText::count(static_cast<std::uint64_t>(m_batch))));
    const QPointF m = c.memory->mapToPosition(QPointF(axisX(m_batch), c.memoryAxis->max()), c.marker);
    c.markerText->setVisible(axisX(m_batch) <= c.batchAxis->max() + 1e-9);
    besideLine(c.markerText, c.markerBack, m.x(), plot.top() + 2);

    if (c.maxText->isVisible()) {
        c.maxText->setText(maxBatchLabel());
        const QPointF mx = c.memory->mapToPosition(QPointF(axisX(m_data.maxBatch), 0), c.maxMarker);
        // At the foot of its line, so it never meets the batch label at the top.
        besideLine(c.maxText, c.maxBack, mx.x(), plot.bottom() - c.maxText->boundingRect().height() - 4);
    }
}

QList<QPointF> MemoryChartView::inBatches(const QList<QPointF>& points) const
{
    QList<QPointF> out;
    out.reserve(points.size());
    for (qsizetype i = 0; i < points.size(); ++i) {
        // The exact sampled batch, not 2^x with its rounding.
        const bool sampled = points.size() == static_cast<qsizetype>(m_data.batches.size());
        const double batch = sampled ? static_cast<double>(m_data.batches[static_cast<std::size_t>(i)])
                                     : batchAt(points[i].x());
        out.append(QPointF(batch, points[i].y()));
    }
    return out;
}

QList<QPointF> MemoryChartView::upperPoints(Component comp) const
{
    return inBatches(m_charts->stack->upperPoints(comp));
}

bool MemoryChartView::showsComponent(Component comp) const
{
    return m_data.valid && m_charts->stack->shows(comp);
}

QList<QPointF> MemoryChartView::capacityPoints() const
{
    QList<QPointF> out = m_charts->capacity->points();
    for (auto& p : out)
        p.setX(batchAt(p.x()));
    return out;
}

QList<QPointF> MemoryChartView::reservedPoints() const
{
    QList<QPointF> out;
    for (std::size_t i = 0; i < m_data.reservedBatches.size(); ++i)
        out.append(QPointF(
            static_cast<double>(m_data.reservedBatches[i]), static_cast<double>(m_data.reservedBytes[i])));
    return out;
}

QRectF MemoryChartView::capacityLabelBox() const
{
    const auto& c = *m_charts;
    if (!c.capacityText->isVisible())
        return {};
    const QRectF r = c.capacityBack->rect();
    QRectF box(c.memory->mapToValue(r.topLeft(), c.marker), c.memory->mapToValue(r.bottomRight(), c.marker));
    box = box.normalized();
    return QRectF(QPointF(batchAt(box.left()), box.top()), QPointF(batchAt(box.right()), box.bottom()));
}

QString MemoryChartView::capacityLabel() const
{
    const QString capacity = tr("%1: %2").arg(m_data.gpuName, UiText::bytes(m_data.capacityBytes));
    return m_data.stage.isEmpty() ? capacity : tr("%1, %2").arg(capacity, m_data.stage);
}

QList<QPointF> MemoryChartView::markerPoints() const
{
    QList<QPointF> out = m_charts->marker->points();
    for (auto& p : out)
        p.setX(static_cast<double>(m_batch));
    return out;
}

QList<QPointF> MemoryChartView::maxBatchPoints() const
{
    QList<QPointF> out = m_charts->maxMarker->points();
    for (auto& p : out)
        p.setX(static_cast<double>(m_data.maxBatch));
    return out;
}

QString MemoryChartView::maxBatchLabel() const
{
    return tr("max %1").arg(
        UiText::count(static_cast<std::uint64_t>(std::max<std::int64_t>(m_data.maxBatch, 0))));
}

QStringList MemoryChartView::batchAxisLabels() const
{
    return m_charts->batchAxis->categoriesLabels();
}

double MemoryChartView::axisMaxBatch() const
{
    return batchAt(m_charts->batchAxis->max());
}

double MemoryChartView::axisMaxMemory() const
{
    return m_charts->memoryAxis->max();
}

QString MemoryChartView::breakdownText(double batch) const
{
    if (!m_data.valid)
        return {};
    const auto it = std::lower_bound(
        m_data.batches.begin(), m_data.batches.end(), static_cast<std::int64_t>(std::llround(batch)));
    std::size_t i = static_cast<std::size_t>(std::min<std::ptrdiff_t>(
        it - m_data.batches.begin(), static_cast<std::ptrdiff_t>(m_data.batches.size()) - 1));
    if (i > 0
        && std::abs(static_cast<double>(m_data.batches[i - 1]) - batch)
            < std::abs(static_cast<double>(m_data.batches[i]) - batch))
        --i;
    const MemoryBreakdown& b = m_data.breakdowns[i];
    QStringList lines { tr("Batch %1").arg(UiText::count(static_cast<std::uint64_t>(m_data.batches[i]))) };
    for (auto c = kStackOrder.rbegin(); c != kStackOrder.rend(); ++c) {
        if (componentBytes(b, *c) > 0)
            lines << tr("%1: %2").arg(UiText::component(*c), UiText::bytes(componentBytes(b, *c)));
    }
    lines << tr("Total: %1 of %2").arg(UiText::bytes(b.total()), UiText::bytes(m_data.capacityBytes));
    // The reserved line's nearest sample at or above the batch (its samples are sparser).
    const auto r
        = std::lower_bound(m_data.reservedBatches.begin(), m_data.reservedBatches.end(), m_data.batches[i]);
    if (r != m_data.reservedBatches.end())
        lines << tr("Reserved by PyTorch at batch %1, with the overhead: %2")
                     .arg(UiText::count(static_cast<std::uint64_t>(*r)),
                         UiText::bytes(m_data.reservedBytes[static_cast<std::size_t>(
                             r - m_data.reservedBatches.begin())]));
    return lines.join(QLatin1Char('\n'));
}

} // namespace headroom::ui
