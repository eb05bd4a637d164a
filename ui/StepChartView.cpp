#include "StepChartView.h"

#include "ChartParts.h" // report/
#include "ComponentStack.h"
#include "RoundTicks.h"
#include "UiText.h"
#include "headroom/estimate/RunComparison.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace headroom::ui {

namespace {
const QColor kPeakColour { 0x1f, 0x23, 0x28 };
const QColor kCapacityColour { 0xc0, 0x20, 0x20 };
const QColor kPredictedColour { 0x1f, 0x4e, 0x79 };
const QColor kMeasuredColour { 0xd9, 0x48, 0x0f };

/// A curve of the comparison as steps in axis units: each event's level held until the next event (the
/// last of a phase until the phase's end); a long curve is thinned to the highest level of each run of
/// neighbours, so its peak stays drawn.
QList<QPointF> stepLine(
    const std::vector<headroom::CurvePoint>& points, bool reserved, double unit, std::size_t maxDrawn)
{
    QList<QPointF> out;
    const std::size_t n = points.size();
    if (n == 0)
        return out;
    const std::size_t group = (n + maxDrawn - 1) / maxDrawn;
    const auto level = [&](std::size_t i) {
        return static_cast<double>(reserved ? points[i].reserved : points[i].allocated) / unit;
    };
    out.reserve(static_cast<qsizetype>(2 * (n / group + 1)));
    for (std::size_t i = 0; i < n; i += group) {
        const std::size_t end = std::min(n, i + group);
        double y = level(i);
        for (std::size_t k = i + 1; k < end; ++k)
            y = std::max(y, level(k));
        const double x0 = points[i].x;
        const double x1 = end < n ? points[end].x : std::floor(points[n - 1].x) + 1.0;
        out.append(QPointF(x0, y));
        out.append(QPointF(std::max(x0, x1), y));
    }
    return out;
}

} // namespace

struct StepChartView::Charts
{
    QChart* chart = nullptr;
    QChartView* view = nullptr;
    QCategoryAxis* phaseAxis = nullptr;
    QValueAxis* memoryAxis = nullptr;
    std::unique_ptr<ComponentStack> stack;
    QLineSeries* capacity = nullptr;
    QLineSeries* reserved = nullptr; ///< what PyTorch's caching allocator reserves, plus the overhead
    /// what max_memory_allocated counts (the tensors and the cuBLAS and cuDNN workspaces), plus the overhead
    QLineSeries* allocated = nullptr;
    QScatterSeries* peak = nullptr;
    QGraphicsSimpleTextItem* peakText = nullptr;
    QGraphicsRectItem* peakBack = nullptr;
    QGraphicsSimpleTextItem* capacityText = nullptr;
};

struct StepChartView::RunChart
{
    QChart* chart = nullptr;
    QChartView* view = nullptr;
    QWidget* page = nullptr; ///< the view and the legend under it
    QLabel* legend = nullptr;
    QCategoryAxis* phaseAxis = nullptr;
    QValueAxis* memoryAxis = nullptr;
    QLineSeries* predictedAllocated = nullptr;
    QLineSeries* predictedReserved = nullptr;
    QLineSeries* measuredAllocated = nullptr;
    QLineSeries* measuredReserved = nullptr;
    QScatterSeries* predictedPeak = nullptr;
    QScatterSeries* measuredPeak = nullptr;
    std::array<QGraphicsSimpleTextItem*, 2> peakText {};
    std::array<QGraphicsRectItem*, 2> peakBack {};
};

StepChartView::StepChartView(QWidget* parent)
    : QWidget(parent)
    , m_charts { std::make_unique<Charts>() }
    , m_run { std::make_unique<RunChart>() }
{
    buildChart();
    buildSeries();
    buildLabels();
    buildRunChart();
    buildWidgets();
}

void StepChartView::buildRunChart()
{
    auto& r = *m_run;
    r.chart = new QChart;
    r.chart->setObjectName(QStringLiteral("runChart"));
    // The legend is a label under the chart: Qt Charts' own cuts long names off in a single row.
    r.chart->legend()->hide();
    r.chart->setMargins(QMargins(4, 4, 4, 4));
    r.phaseAxis = new QCategoryAxis;
    r.phaseAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    r.phaseAxis->setGridLineVisible(true);
    QPen separator(QColor(0x80, 0x80, 0x80));
    separator.setStyle(Qt::DashLine);
    r.phaseAxis->setGridLinePen(separator);
    r.phaseAxis->setStartValue(0);
    r.phaseAxis->append(report::StepChart::phaseName(StepPhase::Forward), 1);
    r.phaseAxis->append(report::StepChart::phaseName(StepPhase::Backward), 2);
    r.phaseAxis->append(report::StepChart::phaseName(StepPhase::OptimizerStep), 3);
    r.phaseAxis->setRange(0, 3);
    r.memoryAxis = new QValueAxis;
    r.chart->addAxis(r.phaseAxis, Qt::AlignBottom);
    r.chart->addAxis(r.memoryAxis, Qt::AlignLeft);
    const auto line = [&](const char* name, const QColor& colour, Qt::PenStyle style, int width) {
        auto* s = new QLineSeries(this);
        s->setObjectName(QString::fromLatin1(name));
        QPen pen(colour);
        pen.setWidth(width);
        pen.setStyle(style);
        s->setPen(pen);
        r.chart->addSeries(s);
        s->attachAxis(r.phaseAxis);
        s->attachAxis(r.memoryAxis);
        return s;
    };
    r.predictedReserved = line("predictedReservedSeries", kPredictedColour, Qt::DashLine, 2);
    r.measuredReserved = line("measuredReservedSeries", kMeasuredColour, Qt::DashLine, 2);
    r.predictedAllocated = line("predictedAllocatedSeries", kPredictedColour, Qt::SolidLine, 2);
    r.measuredAllocated = line("measuredAllocatedSeries", kMeasuredColour, Qt::SolidLine, 2);
    const auto peak = [&](const char* name, const QColor& colour) {
        auto* s = new QScatterSeries(this);
        s->setObjectName(QString::fromLatin1(name));
        s->setMarkerSize(10);
        s->setColor(colour);
        s->setBorderColor(Qt::white);
        r.chart->addSeries(s);
        s->attachAxis(r.phaseAxis);
        s->attachAxis(r.memoryAxis);
        return s;
    };
    r.predictedPeak = peak("predictedPeakSeries", kPredictedColour);
    r.measuredPeak = peak("measuredPeakSeries", kMeasuredColour);
    QFont bold = font();
    bold.setBold(true);
    for (std::size_t i = 0; i < 2; ++i) {
        r.peakBack[i] = new QGraphicsRectItem(r.chart);
        r.peakBack[i]->setBrush(QColor(255, 255, 255, 220));
        r.peakBack[i]->setPen(Qt::NoPen);
        r.peakBack[i]->setZValue(19);
        r.peakText[i] = new QGraphicsSimpleTextItem(r.chart);
        r.peakText[i]->setFont(bold);
        r.peakText[i]->setBrush(i == 0 ? kPredictedColour : kMeasuredColour.darker(120));
        r.peakText[i]->setZValue(20);
    }
    connect(r.chart, &QChart::plotAreaChanged, this, &StepChartView::updateRunLabels);
    r.view = new QChartView(r.chart);
    r.view->setObjectName(QStringLiteral("runChartView"));
    // Hovering a curve names the phase and every curve's bytes under the pointer; the tooltip then
    // follows the pointer (eventFilter), as the components' bands do.
    for (QLineSeries* s :
        { r.predictedAllocated, r.predictedReserved, r.measuredAllocated, r.measuredReserved }) {
        connect(s, &QLineSeries::hovered, this, [this](const QPointF& point, bool state) {
            const QString text = state ? runMomentText(point.x()) : QString();
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(QCursor::pos(), text, m_run->view);
        });
    }
    r.view->viewport()->setMouseTracking(true);
    r.view->viewport()->installEventFilter(this);
    r.view->setRenderHint(QPainter::Antialiasing);
    r.view->setMinimumWidth(300);
    r.page = new QWidget(this);
    r.page->setObjectName(QStringLiteral("runChartPage"));
    // Not part of the view's minimum size: the stack's page is as tall as the stacked chart's, and the
    // window's minimum size stays what it was without a run.
    r.page->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    r.legend = new QLabel(r.page);
    r.legend->setObjectName(QStringLiteral("runLegendLabel"));
    r.legend->setWordWrap(true);
    r.legend->setContentsMargins(8, 0, 8, 4);
    auto* layout = new QVBoxLayout(r.page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(r.view, 1);
    layout->addWidget(r.legend);
}

void StepChartView::buildChart()
{
    auto& c = *m_charts;
    c.chart = new QChart;
    c.chart->setObjectName(QStringLiteral("stepChart"));
    c.chart->legend()->setAlignment(Qt::AlignRight);
    c.chart->setMargins(QMargins(4, 4, 4, 4));
    c.phaseAxis = new QCategoryAxis;
    c.phaseAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    c.phaseAxis->setGridLineVisible(true);
    QPen separator(QColor(0x80, 0x80, 0x80));
    separator.setStyle(Qt::DashLine);
    c.phaseAxis->setGridLinePen(separator);
    c.memoryAxis = new QValueAxis;
    c.chart->addAxis(c.phaseAxis, Qt::AlignBottom);
    c.chart->addAxis(c.memoryAxis, Qt::AlignLeft);
    c.stack = std::make_unique<ComponentStack>(
        c.chart, c.phaseAxis, c.memoryAxis, this, QStringLiteral("StepSeries"));
    c.stack->onHover(this, [this](const QPointF& point, bool state) {
        if (state)
            QToolTip::showText(QCursor::pos(), momentText(point.x()), m_charts->view);
        else
            QToolTip::hideText();
    });
}

void StepChartView::buildSeries()
{
    auto& c = *m_charts;
    const auto attach = [&](QAbstractSeries* s) {
        c.chart->addSeries(s);
        s->attachAxis(c.phaseAxis);
        s->attachAxis(c.memoryAxis);
    };
    c.capacity = new QLineSeries(this);
    c.capacity->setObjectName(QStringLiteral("stepCapacitySeries"));
    QPen capacityPen(kCapacityColour);
    capacityPen.setWidth(2);
    c.capacity->setPen(capacityPen);
    attach(c.capacity);
    // A line drawn as its legend entry says (the memory chart's lines, in the legend too).
    const auto legendLine
        = [&](const report::chartparts::LegendLine& legend, const QString& name, qreal width) {
              auto* series = new QLineSeries(this);
              series->setObjectName(name);
              series->setName(legend.label);
              QPen pen(legend.colour);
              pen.setWidthF(width);
              pen.setStyle(legend.style);
              series->setPen(pen);
              attach(series);
              return series;
          };
    // Reserved over the step, next to the allocated stack.
    c.reserved = legendLine(report::chartparts::reservedLegend(), QStringLiteral("stepReservedSeries"), 2);
    // The tensors plus the workspaces PyTorch allocates through its cache (max_memory_allocated counts them).
    c.allocated
        = legendLine(report::chartparts::allocatedLegend(), QStringLiteral("stepAllocatedSeries"), 1.5);
    c.peak = new QScatterSeries(this);
    c.peak->setObjectName(QStringLiteral("stepPeakSeries"));
    c.peak->setMarkerSize(10);
    c.peak->setColor(kPeakColour);
    c.peak->setBorderColor(Qt::white);
    attach(c.peak);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*> { c.capacity, c.peak }) {
        for (QLegendMarker* m : c.chart->legend()->markers(s))
            m->setVisible(false);
    }
}

void StepChartView::buildLabels()
{
    auto& c = *m_charts;
    QFont bold = font();
    bold.setBold(true);
    c.peakBack = new QGraphicsRectItem(c.chart);
    c.peakBack->setBrush(QColor(255, 255, 255, 220));
    c.peakBack->setPen(Qt::NoPen);
    c.peakBack->setZValue(19);
    c.peakText = new QGraphicsSimpleTextItem(c.chart);
    c.peakText->setFont(bold);
    c.peakText->setBrush(kPeakColour);
    c.peakText->setZValue(20);
    c.capacityText = new QGraphicsSimpleTextItem(c.chart);
    c.capacityText->setFont(bold);
    c.capacityText->setBrush(QColor(0xa0, 0x10, 0x10));
    c.capacityText->setZValue(20);
    connect(c.chart, &QChart::plotAreaChanged, this, &StepChartView::updateLabels);

    c.view = new QChartView(c.chart);
    c.view->setObjectName(QStringLiteral("stepChartView"));
    c.view->setRenderHint(QPainter::Antialiasing);
    c.view->setMinimumWidth(300);
    ComponentStack::fitLegend(c.view); // every component's entry, as the memory chart's
    c.view->viewport()->setMouseTracking(true);
    c.view->viewport()->installEventFilter(this);
}

void StepChartView::buildWidgets()
{
    m_kindBox = new QComboBox(this);
    m_kindBox->setObjectName(QStringLiteral("stepKindBox"));
    m_kindBox->addItem(tr("Steady step"), static_cast<int>(report::StepKind::Steady));
    m_kindBox->addItem(tr("First step"), static_cast<int>(report::StepKind::First));
    m_kindBox->setToolTip(tr("A steady step holds the optimizer state throughout; the first step has none "
                             "until its optimizer step creates it."));
    m_kindBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        setStepKind(static_cast<report::StepKind>(m_kindBox->itemData(index).toInt()));
    });
    m_caption = new QLabel(this);
    m_caption->setObjectName(QStringLiteral("stepCaptionLabel"));
    m_caption->setWordWrap(true);
    m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("stepMessageLabel"));
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setMargin(24);
    m_message->setStyleSheet(QStringLiteral("color: palette(placeholder-text); font-weight: bold;"));
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_charts->view);
    m_stack->addWidget(m_message);
    m_stack->addWidget(m_run->page);

    auto* header = new QHBoxLayout;
    header->setContentsMargins(6, 4, 6, 0);
    header->addWidget(m_kindBox);
    header->addWidget(m_caption, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(header);
    layout->addWidget(m_stack, 1);
}

StepChartView::~StepChartView()
{
    // The view owns its chart; the series belong to the chart once added.
    delete m_charts->view;
    delete m_run->view;
}

void StepChartView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        redraw();
}

void StepChartView::setStepKind(report::StepKind kind)
{
    const int index = m_kindBox->findData(static_cast<int>(kind));
    if (index >= 0 && index != m_kindBox->currentIndex()) {
        m_kindBox->setCurrentIndex(index); // comes back here through the signal
        return;
    }
    if (kind == m_kind)
        return;
    m_kind = kind;
    redraw();
}

void StepChartView::setData(const StepChartData& data)
{
    m_data = data;
    m_dirty = true;
    // Every slider tick brings new data: only a visible chart redraws (showEvent catches up).
    if (isVisible())
        redraw();
}

QString StepChartView::layerText(const report::StepChartMoment& m) const
{
    const auto row = static_cast<qsizetype>(m.row);
    return row < m_data.layerNames.size() ? m_data.layerNames[row] : QString();
}

void StepChartView::redraw()
{
    m_dirty = false;
    if (m_comparison) {
        redrawRun();
        return;
    }
    auto& c = *m_charts;
    const report::StepReservedSource reserved { m_data.reserved.get(), m_data.reservedCapacity,
        m_data.overheadBytes };
    m_chart = m_data.valid && m_data.model
        ? report::StepChart::build(*m_data.model, m_data.batch, m_kind, kMaxDrawnMoments, reserved)
        : report::StepChart {};
    m_bandStart.clear();
    if (m_chart.empty()) {
        m_message->setText(m_data.message.isEmpty() ? tr("No estimate") : m_data.message);
        m_stack->setCurrentWidget(m_message);
        m_caption->clear();
        return;
    }
    m_stack->setCurrentWidget(c.view);
    m_bandStart = m_chart.bandStarts();
    drawAxes();
    const report::StepChart& step = m_chart;
    const auto peakBytes = static_cast<double>(step.peakMoment().bytes.total());
    c.peak->replace(
        QList<QPointF> { { (m_bandStart[step.peak] + m_bandStart[step.peak + 1]) / 2, peakBytes / m_unit } });
    updateCaption();
    updateLabels();
}

void StepChartView::drawAxes()
{
    // The GPU's memory is drawn when it is near the highest line (or below it); far above, it would
    // flatten the step.
    auto& c = *m_charts;
    const double xMax = m_bandStart.back();
    double highest = static_cast<double>(m_chart.peakMoment().bytes.total());
    for (const std::uint64_t r : m_chart.reserved)
        highest = std::max(highest, static_cast<double>(r));
    for (std::size_t k = 0; k < m_chart.workspaces.size(); ++k)
        highest = std::max(highest, static_cast<double>(m_chart.allocatedAt(k)));
    const auto capacity = static_cast<double>(m_data.capacityBytes);
    const bool capacityShown = capacity > 0 && capacity <= highest * 1.6;
    const double top = std::max(highest * 1.15, capacityShown ? capacity * 1.06 : 0.0);
    std::tie(m_unit, m_unitName) = report::chartparts::binaryUnit(top);
    setRoundTicks(c.memoryAxis, top / m_unit);
    for (const QString& label : c.phaseAxis->categoriesLabels())
        c.phaseAxis->remove(label);
    c.phaseAxis->setStartValue(0);
    for (const auto& run : m_chart.phaseRuns()) {
        QString label = report::StepChart::phaseName(run.phase);
        // The optimizer step's band is a fifth of the axis: on one line its name is wider than that in
        // a window of ordinary size, and Qt Charts drops a label it cannot fit. One word a line.
        if (run.phase == StepPhase::OptimizerStep)
            label.replace(QLatin1Char(' '), QStringLiteral("<br>"));
        // Category labels must differ: a phase met twice gets an invisible mark.
        while (c.phaseAxis->categoriesLabels().contains(label))
            label += QChar(0x200B);
        c.phaseAxis->append(label, m_bandStart[run.end]);
    }
    c.phaseAxis->setRange(0, xMax);
    c.memoryAxis->setTitleText(
        m_data.gpus > 1 ? tr("%1 per GPU").arg(m_unitName) : tr("Memory (%1)").arg(m_unitName));
    c.capacity->replace(capacityShown
            ? QList<QPointF> { { 0.0, capacity / m_unit }, { xMax, capacity / m_unit } }
            : QList<QPointF> {});
    // The unit is known only now: the stack and the reserved line in it.
    drawStack();
}

void StepChartView::drawStack()
{
    // Each moment is a flat band [start, end): two points per moment, the reserved line's too.
    auto& c = *m_charts;
    const std::size_t count = m_chart.moments.size();
    QList<double> xs;
    xs.reserve(static_cast<qsizetype>(2 * count));
    for (std::size_t k = 0; k < count; ++k) {
        xs.append(m_bandStart[k]);
        xs.append(m_bandStart[k + 1]);
    }
    c.stack->set(
        xs,
        [&](qsizetype i) -> const MemoryBreakdown& {
            return m_chart.moments[static_cast<std::size_t>(i / 2)].bytes;
        },
        m_unit);
    QList<QPointF> reserved;
    if (m_chart.reserved.size() == count) {
        for (std::size_t k = 0; k < 2 * count; ++k)
            reserved.append(QPointF(
                xs[static_cast<qsizetype>(k)], static_cast<double>(m_chart.reserved[k / 2]) / m_unit));
    }
    c.reserved->replace(reserved);
    c.reserved->setVisible(!reserved.isEmpty());
    QList<QPointF> allocated;
    if (m_chart.workspaces.size() == count && !m_chart.workspacesCaption().isEmpty()) {
        for (std::size_t k = 0; k < 2 * count; ++k)
            allocated.append(QPointF(
                xs[static_cast<qsizetype>(k)], static_cast<double>(m_chart.allocatedAt(k / 2)) / m_unit));
    }
    c.allocated->replace(allocated);
    c.allocated->setVisible(!allocated.isEmpty());
}

void StepChartView::updateCaption()
{
    QString caption = m_kind == report::StepKind::First
        ? tr("The first training step at batch %1: no optimizer state until its optimizer step creates it.")
        : tr("One training step at batch %1: what is alive while each layer runs forward, then backward, "
             "then the optimizer step.");
    caption = caption.arg(UiText::count(static_cast<std::uint64_t>(m_chart.batch)));
    if (m_data.accumulationSteps > 1)
        caption += QLatin1Char(' ') + report::StepChart::accumulationNote(m_data.accumulationSteps);
    m_caption->setText(caption);
    QString details = m_chart.reservedCaption();
    if (const QString workspaces = m_chart.workspacesCaption(); !workspaces.isEmpty())
        details += (details.isEmpty() ? QString() : QStringLiteral(" ")) + workspaces;
    m_caption->setToolTip(details);
}

void StepChartView::updateLabels()
{
    auto& c = *m_charts;
    const bool shown = !m_chart.empty();
    c.peakText->setVisible(shown && !c.peak->points().isEmpty());
    c.peakBack->setVisible(c.peakText->isVisible());
    c.capacityText->setVisible(shown && !c.capacity->points().isEmpty());
    if (!shown)
        return;
    const QRectF plot = c.chart->plotArea();
    if (c.peakText->isVisible()) {
        c.peakText->setText(peakLabel());
        const QPointF at = c.chart->mapToPosition(c.peak->points().front(), c.peak);
        const QRectF r = c.peakText->boundingRect();
        // Above the marker, kept inside the plot; to its left when it is in the right half.
        const double x = std::clamp(at.x() > plot.center().x() ? at.x() - r.width() - 8 : at.x() + 8,
            plot.left() + 2, std::max(plot.left() + 2, plot.right() - r.width() - 2));
        const double y = peakLabelTop(QRectF(x, at.y() - r.height() - 6, r.width(), r.height()));
        c.peakText->setPos(x, y);
        c.peakBack->setRect(QRectF(c.peakText->pos(), r.size()).adjusted(-3, -1, 3, 1));
    }
    if (c.capacityText->isVisible()) {
        c.capacityText->setText(m_data.stage.isEmpty()
                ? tr("%1: %2").arg(m_data.gpuName, UiText::bytes(m_data.capacityBytes))
                : tr("%1: %2, %3").arg(m_data.gpuName, UiText::bytes(m_data.capacityBytes), m_data.stage));
        const QPointF at = c.chart->mapToPosition(c.capacity->points().front(), c.capacity);
        const QRectF r = c.capacityText->boundingRect();
        const double y = at.y() - r.height() - 2 < plot.top() ? at.y() + 2 : at.y() - r.height() - 2;
        c.capacityText->setPos(plot.left() + 6, y);
    }
}

double StepChartView::peakLabelTop(const QRectF& wanted) const
{
    // The reserved line runs above the stack, often just above the peak: a label put over it would hide
    // it. The label climbs above every piece of the line it would cover, as long as it stays in the
    // plot; where it cannot, it stays where it was wanted.
    const auto& c = *m_charts;
    const double top = c.chart->plotArea().top() + 2;
    const double h = wanted.height();
    std::vector<std::pair<double, double>> spans; // the y ranges of the line's segments under the label
    const QList<QPointF> points = c.reserved->isVisible() ? c.reserved->points() : QList<QPointF> {};
    for (qsizetype i = 0; i + 1 < points.size(); ++i) {
        const QPointF a = c.chart->mapToPosition(points[i], c.reserved);
        const QPointF b = c.chart->mapToPosition(points[i + 1], c.reserved);
        if (std::max(a.x(), b.x()) >= wanted.left() && std::min(a.x(), b.x()) <= wanted.right())
            spans.emplace_back(std::min(a.y(), b.y()), std::max(a.y(), b.y()));
    }
    // The highest piece of line a label at `y` would cover, if any.
    const auto covered = [&](double y) -> std::optional<double> {
        std::optional<double> highest;
        for (const auto& [low, high] : spans) {
            if (y <= high + 3 && y + h >= low - 3)
                highest = std::min(highest.value_or(low), low);
        }
        return highest;
    };
    const double wantedTop = std::max(top, wanted.top());
    double y = wantedTop;
    for (auto line = covered(y); line; line = covered(y)) {
        y = *line - h - 4; // strictly higher each time, so this ends
        if (y < top)
            return wantedTop;
    }
    return y;
}

std::optional<std::size_t> StepChartView::bandAt(double x) const
{
    if (m_chart.empty() || x < m_bandStart.front() || x > m_bandStart.back())
        return std::nullopt;
    const auto it = std::upper_bound(m_bandStart.begin(), m_bandStart.end(), x);
    const auto k = static_cast<std::size_t>(std::max<std::ptrdiff_t>(it - m_bandStart.begin() - 1, 0));
    return std::min(k, m_chart.moments.size() - 1);
}

QString StepChartView::momentText(double x) const
{
    const auto k = bandAt(x);
    if (!k)
        return {};
    const report::StepChartMoment& m = m_chart.moments[*k];
    QStringList lines { report::StepChart::momentName(m, layerText(m)) };
    for (auto comp = kStackOrder.rbegin(); comp != kStackOrder.rend(); ++comp) {
        if (componentBytes(m.bytes, *comp) > 0)
            lines << tr("%1: %2").arg(
                UiText::component(*comp), UiText::bytes(componentBytes(m.bytes, *comp)));
    }
    lines << tr("Live: %1 of %2").arg(UiText::bytes(m.bytes.total()), UiText::bytes(m_data.capacityBytes));
    if (*k < m_chart.workspaces.size() && m_chart.workspaces[*k] > 0)
        lines << tr("cuBLAS and cuDNN workspaces (allocated): %1").arg(UiText::bytes(m_chart.workspaces[*k]));
    if (*k < m_chart.reserved.size())
        lines << tr("Reserved by PyTorch (with the overhead): %1").arg(UiText::bytes(m_chart.reserved[*k]));
    return lines.join(QLatin1Char('\n'));
}

QString StepChartView::peakLabel() const
{
    if (m_chart.empty())
        return {};
    return m_chart.peakText(layerText(m_chart.peakMoment()));
}

QPoint StepChartView::peakPosition() const
{
    const auto& c = *m_charts;
    if (c.peak->points().isEmpty())
        return {};
    const QPointF inChart = c.chart->mapToPosition(c.peak->points().front(), c.peak);
    const QPoint inView = c.view->mapFromScene(c.chart->mapToScene(inChart));
    return c.view->mapTo(this, inView);
}

double StepChartView::xAt(const QPoint& position) const
{
    const auto& c = *m_charts;
    const QPoint inView = c.view->mapFrom(this, position);
    const QPointF inChart = c.chart->mapFromScene(c.view->mapToScene(inView));
    return c.chart->mapToValue(inChart).x();
}

bool StepChartView::eventFilter(QObject* watched, QEvent* event)
{
    // While the band's tooltip is up, it names the moment under the pointer, not the one it was entered at.
    if (event->type() == QEvent::MouseMove && watched == m_charts->view->viewport()
        && QToolTip::isVisible()) {
        const auto* move = static_cast<QMouseEvent*>(event);
        const QPoint here = m_charts->view->viewport()->mapTo(this, move->position().toPoint());
        const QString text = momentText(xAt(here));
        if (text.isEmpty())
            QToolTip::hideText();
        else if (text != QToolTip::text())
            QToolTip::showText(move->globalPosition().toPoint(), text, m_charts->view);
    }
    if (event->type() == QEvent::MouseMove && watched == m_run->view->viewport() && QToolTip::isVisible()) {
        const auto* move = static_cast<QMouseEvent*>(event);
        const auto& r = *m_run;
        const QPointF inChart = r.chart->mapFromScene(r.view->mapToScene(move->position().toPoint()));
        const QString text = runMomentText(r.chart->mapToValue(inChart).x());
        if (text.isEmpty())
            QToolTip::hideText();
        else if (text != QToolTip::text())
            QToolTip::showText(move->globalPosition().toPoint(), text, r.view);
    }
    return QWidget::eventFilter(watched, event);
}

QWidget* StepChartView::chartWidget() const
{
    return m_charts->view;
}

QString StepChartView::message() const
{
    return m_stack->currentWidget() == m_message ? m_message->text() : QString();
}

double StepChartView::xOfMoment(std::size_t moment) const
{
    if (moment >= m_chart.moments.size())
        return -1;
    return (m_bandStart[moment] + m_bandStart[moment + 1]) / 2;
}

QList<QPointF> StepChartView::upperPoints(Component comp) const
{
    return m_charts->stack->upperPoints(comp);
}

bool StepChartView::showsComponent(Component comp) const
{
    return !m_chart.empty() && m_charts->stack->shows(comp);
}

QList<QPointF> StepChartView::totalPoints() const
{
    return m_charts->stack->upperPoints(kStackOrder.back());
}

QList<QPointF> StepChartView::peakPoints() const
{
    return m_charts->peak->points();
}

QStringList StepChartView::memoryAxisLabels() const
{
    return tickLabels(m_charts->memoryAxis);
}

QStringList StepChartView::phaseLabels() const
{
    QStringList labels;
    for (QString label : m_charts->phaseAxis->categoriesLabels())
        labels << label.replace(QStringLiteral("<br>"), QStringLiteral(" "));
    return labels;
}

QList<QPointF> StepChartView::capacityPoints() const
{
    return m_charts->capacity->points();
}

QList<QPointF> StepChartView::allocatedPoints() const
{
    return m_charts->allocated->isVisible() ? m_charts->allocated->points() : QList<QPointF> {};
}

QList<QPointF> StepChartView::reservedPoints() const
{
    return m_charts->reserved->points();
}

QRectF StepChartView::peakLabelBox() const
{
    const auto& c = *m_charts;
    if (!c.peakText->isVisible())
        return {};
    const QRectF r = c.peakBack->rect();
    return QRectF(c.chart->mapToValue(r.topLeft(), c.peak), c.chart->mapToValue(r.bottomRight(), c.peak))
        .normalized();
}

} // namespace headroom::ui

namespace headroom::ui {

void StepChartView::setComparison(std::shared_ptr<const RunComparison> comparison, const QString& runName)
{
    m_comparison = std::move(comparison);
    m_runName = runName;
    m_dirty = true;
    if (isVisible() || m_comparison)
        redraw();
}

bool StepChartView::showsRun() const
{
    return m_comparison != nullptr && m_stack->currentWidget() == m_run->page;
}

void StepChartView::redrawRun()
{
    auto& r = *m_run;
    const RunComparison& c = *m_comparison;
    const std::optional<AlignedStep>& chosen = m_kind == report::StepKind::First ? c.first : c.steady;
    if (!chosen) {
        m_message->setText(m_kind == report::StepKind::First
                ? tr("%1 shows no first step apart from its steady ones.").arg(m_runName)
                : tr("No training step was found in %1: only its peak is compared (the Measured run tab).")
                      .arg(m_runName));
        m_stack->setCurrentWidget(m_message);
        m_caption->clear();
        return;
    }
    const AlignedStep& step = *chosen;
    double highest = 0;
    for (const CurvePeak* p : { &step.predicted.peakAllocated, &step.predicted.peakReserved,
             &step.measured.peakAllocated, &step.measured.peakReserved }) {
        if (p->found)
            highest = std::max(highest, static_cast<double>(p->bytes));
    }
    const double top = std::max(highest * 1.15, 1.0);
    std::tie(m_unit, m_unitName) = report::chartparts::binaryUnit(top);
    setRoundTicks(r.memoryAxis, top / m_unit);
    r.memoryAxis->setTitleText(tr("Memory (%1)").arg(m_unitName));
    const std::size_t maxDrawn = kMaxDrawnMoments;
    r.predictedAllocated->replace(stepLine(step.predicted.points, false, m_unit, maxDrawn));
    r.predictedReserved->replace(stepLine(step.predicted.points, true, m_unit, maxDrawn));
    r.measuredAllocated->replace(stepLine(step.measured.points, false, m_unit, maxDrawn));
    r.measuredReserved->replace(
        step.measuredReserved ? stepLine(step.measured.points, true, m_unit, maxDrawn) : QList<QPointF> {});
    r.predictedReserved->setVisible(step.predicted.peakReserved.found);
    r.measuredReserved->setVisible(step.measuredReserved && step.measured.peakReserved.found);
    const auto peakText = [](const CurvePeak& p) { return p.found ? UiText::bytes(p.bytes) : QString(); };
    r.predictedAllocated->setName(
        tr("Predicted allocated, peak %1").arg(peakText(step.predicted.peakAllocated)));
    r.predictedReserved->setName(
        tr("Predicted reserved, peak %1").arg(peakText(step.predicted.peakReserved)));
    r.measuredAllocated->setName(
        tr("Measured allocated, peak %1").arg(peakText(step.measured.peakAllocated)));
    r.measuredReserved->setName(tr("Measured reserved, peak %1").arg(peakText(step.measured.peakReserved)));
    const auto mark = [&](QScatterSeries* s, const CurvePeak& p) {
        s->replace(
            p.found ? QList<QPointF> { { p.x, static_cast<double>(p.bytes) / m_unit } } : QList<QPointF> {});
    };
    mark(r.predictedPeak, step.predicted.peakAllocated);
    mark(r.measuredPeak, step.measured.peakAllocated);
    const auto phase = [](RunPhase p) {
        switch (p) {
        case RunPhase::Backward:
            return report::StepChart::phaseName(StepPhase::Backward);
        case RunPhase::OptimizerStep:
            return report::StepChart::phaseName(StepPhase::OptimizerStep);
        case RunPhase::BeforeSteps:
        case RunPhase::Forward:
            break;
        }
        return report::StepChart::phaseName(StepPhase::Forward);
    };
    r.peakText[0]->setText(step.predicted.peakAllocated.found
            ? tr("Predicted peak %1 (%2)")
                  .arg(UiText::bytes(step.predicted.peakAllocated.bytes),
                      phase(step.predicted.peakAllocated.phase))
            : QString());
    r.peakText[1]->setText(step.measured.peakAllocated.found
            ? tr("Measured peak %1 (%2)")
                  .arg(UiText::bytes(step.measured.peakAllocated.bytes),
                      phase(step.measured.peakAllocated.phase))
            : QString());
    // The legend: each curve's line in its colour and style, its name and peak.
    QStringList entries;
    for (const QLineSeries* series :
        { r.predictedAllocated, r.predictedReserved, r.measuredAllocated, r.measuredReserved }) {
        if (!series->isVisible())
            continue;
        const bool dashed = series->pen().style() != Qt::SolidLine;
        entries << QStringLiteral("<span style=\"color:%1; font-weight:bold\">%2</span>&nbsp;%3")
                       .arg(series->pen().color().name(),
                           dashed ? QStringLiteral("&#9472; &#9472;")
                                  : QStringLiteral("&#9473;&#9473;&#9473;"),
                           series->name().toHtmlEscaped().replace(
                               QLatin1Char(' '), QStringLiteral("&nbsp;")));
    }
    r.legend->setText(entries.join(QStringLiteral("&nbsp;&nbsp;&nbsp; ")));
    m_stack->setCurrentWidget(r.page);
    QString caption = step.firstStep
        ? tr("The first step of %1 (measured) beside the plan's first step at batch %2.")
        : tr("A steady step of %1 (measured) beside the plan's at batch %2.");
    caption = caption.arg(m_runName, UiText::count(static_cast<std::uint64_t>(c.batch)));
    caption += QLatin1Char(' ')
        + tr("Each phase spans the same width, its events spread evenly across it, so the phases line up.");
    m_caption->setText(caption);
    m_caption->setToolTip(QString());
    updateRunLabels();
}

void StepChartView::updateRunLabels()
{
    auto& r = *m_run;
    const QRectF plot = r.chart->plotArea();
    std::optional<QRectF> placed;
    const std::array<QScatterSeries*, 2> series { r.predictedPeak, r.measuredPeak };
    for (std::size_t i = 0; i < 2; ++i) {
        QGraphicsSimpleTextItem* text = r.peakText[i];
        const bool shown = m_comparison && !series[i]->points().isEmpty() && !text->text().isEmpty();
        text->setVisible(shown);
        r.peakBack[i]->setVisible(shown);
        if (!shown)
            continue;
        const QPointF at = r.chart->mapToPosition(series[i]->points().front(), series[i]);
        const QRectF box = text->boundingRect();
        // Above the marker, inside the plot; to its left in the right half. A second label that would
        // cover the first goes above it (or below it where there is no room).
        const double x = std::clamp(at.x() > plot.center().x() ? at.x() - box.width() - 8 : at.x() + 8,
            plot.left() + 2, std::max(plot.left() + 2, plot.right() - box.width() - 2));
        double y = std::max(plot.top() + 2, at.y() - box.height() - 6);
        QRectF wanted(x, y, box.width(), box.height());
        if (placed && wanted.adjusted(-3, -2, 3, 2).intersects(*placed)) {
            y = placed->top() - box.height() - 4;
            if (y < plot.top() + 2)
                y = placed->bottom() + 4;
            wanted.moveTop(y);
        }
        text->setPos(wanted.topLeft());
        r.peakBack[i]->setRect(wanted.adjusted(-3, -1, 3, 1));
        placed = wanted.adjusted(-3, -1, 3, 1);
    }
}

QList<QPointF> StepChartView::predictedAllocatedPoints() const
{
    return m_run->predictedAllocated->points();
}

QList<QPointF> StepChartView::predictedReservedPoints() const
{
    return m_run->predictedReserved->isVisible() ? m_run->predictedReserved->points() : QList<QPointF> {};
}

QString StepChartView::runMomentText(double x) const
{
    if (!m_comparison || !(x >= 0.0 && x < 3.0))
        return {};
    const std::optional<AlignedStep>& chosen
        = m_kind == report::StepKind::First ? m_comparison->first : m_comparison->steady;
    if (!chosen)
        return {};
    const double phaseStart = std::floor(x);
    const StepPhase phase = phaseStart < 1.0 ? StepPhase::Forward
        : phaseStart < 2.0                   ? StepPhase::Backward
                                             : StepPhase::OptimizerStep;
    // The curve's last point at or before x in x's phase.
    const auto at = [&](const AlignedCurve& curve) -> const CurvePoint* {
        const auto& points = curve.points;
        const auto after = std::upper_bound(
            points.begin(), points.end(), x, [](double v, const CurvePoint& p) { return v < p.x; });
        if (after == points.begin() || std::prev(after)->x < phaseStart)
            return nullptr;
        return &*std::prev(after);
    };
    QStringList lines { report::StepChart::phaseName(phase) };
    const AlignedStep& step = *chosen;
    const auto add = [&](const QString& name, const AlignedCurve& curve, bool reserved) {
        if (const CurvePoint* p = at(curve))
            lines << tr("%1: %2").arg(name, UiText::bytes(reserved ? p->reserved : p->allocated));
    };
    add(tr("Measured allocated"), step.measured, false);
    if (m_run->measuredReserved->isVisible())
        add(tr("Measured reserved"), step.measured, true);
    add(tr("Predicted allocated"), step.predicted, false);
    if (m_run->predictedReserved->isVisible())
        add(tr("Predicted reserved"), step.predicted, true);
    return lines.size() > 1 ? lines.join(QLatin1Char('\n')) : QString();
}

QList<QPointF> StepChartView::measuredAllocatedPoints() const
{
    return m_run->measuredAllocated->points();
}

QList<QPointF> StepChartView::measuredReservedPoints() const
{
    return m_run->measuredReserved->isVisible() ? m_run->measuredReserved->points() : QList<QPointF> {};
}

QList<QPointF> StepChartView::runPeakPoints() const
{
    return m_run->predictedPeak->points() + m_run->measuredPeak->points();
}

QStringList StepChartView::runPeakLabels() const
{
    QStringList labels;
    for (const QGraphicsSimpleTextItem* t : m_run->peakText) {
        if (t->isVisible())
            labels << t->text();
    }
    return labels;
}

QStringList StepChartView::runLegend() const
{
    QStringList names;
    for (const QLineSeries* s : { m_run->predictedAllocated, m_run->predictedReserved,
             m_run->measuredAllocated, m_run->measuredReserved })
        names << (s->isVisible() ? s->name() : QString());
    return names;
}

} // namespace headroom::ui
