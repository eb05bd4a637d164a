#include "StepChartView.h"

#include "ChartParts.h" // report/
#include "ComponentStack.h"
#include "RoundTicks.h"
#include "UiText.h"

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
    QScatterSeries* peak = nullptr;
    QGraphicsSimpleTextItem* peakText = nullptr;
    QGraphicsRectItem* peakBack = nullptr;
    QGraphicsSimpleTextItem* capacityText = nullptr;
};

StepChartView::StepChartView(QWidget* parent)
    : QWidget(parent)
    , m_charts { std::make_unique<Charts>() }
{
    buildChart();
    buildSeries();
    buildLabels();
    buildWidgets();
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
    // Reserved over the step, next to the allocated stack (the memory chart's line, in the legend too).
    const report::chartparts::LegendLine legend = report::chartparts::reservedLegend();
    c.reserved = new QLineSeries(this);
    c.reserved->setObjectName(QStringLiteral("stepReservedSeries"));
    c.reserved->setName(legend.label);
    QPen reservedPen(legend.colour);
    reservedPen.setWidth(2);
    reservedPen.setStyle(legend.style);
    c.reserved->setPen(reservedPen);
    attach(c.reserved);
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
    m_caption->setToolTip(m_chart.reservedCaption());
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
        c.capacityText->setText(tr("%1: %2").arg(m_data.gpuName, UiText::bytes(m_data.capacityBytes)));
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
