// MainWindow's remembered state: the GPU catalogue with the user's own GPUs, the set-up and the
// window's geometry (the rest of MainWindow is in MainWindow.cpp).
#include "Document.h"
#include "GpuCompareView.h"
#include "MainWindow.h"
#include "QtText.h"
#include "SetupPanel.h"
#include "headroom/estimate/Plan.h"

#include <QDir>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <algorithm>

namespace headroom::ui {

namespace {
constexpr QSize kPreferredSize { 1480, 920 };
} // namespace

void MainWindow::loadCatalog()
{
    GpuCatalog catalog;
    if (!m_resourceDir.isEmpty()) {
        auto loaded = GpuCatalog::fromFile(ss(QDir(m_resourceDir).filePath(QStringLiteral("gpus.json"))));
        if (loaded)
            catalog = std::move(loaded).value();
        else
            statusBar()->showMessage(qs(loaded.error().message));
    }
    const QSettings settings;
    for (const auto& entry : settings.value(QStringLiteral("customGpus")).toStringList()) {
        const auto parts = entry.split(QLatin1Char('\t'));
        if (parts.size() == 2 && parts[1].toULongLong() > 0) {
            Gpu gpu;
            gpu.name = ss(parts[0]);
            gpu.vendor = ss(tr("Custom"));
            gpu.family = ss(tr("Custom"));
            gpu.memoryBytes = parts[1].toULongLong();
            catalog.addCustom(gpu);
        }
    }
    m_setupPanel->setCatalog(catalog);
    m_compareView->setGpus(catalog.gpus());
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        fitToScreen();
    else if (const QScreen* s = screen() != nullptr ? screen() : QGuiApplication::primaryScreen()) {
        // Saved on another screen (1600 x 1000, now 1366 x 768): whole and draggable on this one.
        const int titleBar = style()->pixelMetric(QStyle::PM_TitleBarHeight);
        setGeometry(keptOnScreen(geometry(), s->availableGeometry(), minimumSizeHint(), titleBar));
    }
    if (auto* s = findChild<QSplitter*>(QStringLiteral("mainSplitter")))
        s->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
    if (auto* s = findChild<QSplitter*>(QStringLiteral("editorSplitter")))
        s->restoreState(settings.value(QStringLiteral("window/editorSplitter")).toByteArray());

    const GpuCatalog& catalog = m_setupPanel->catalog();
    auto remembered = catalog.find(ss(settings.value(QStringLiteral("setup/gpu")).toString()));
    const Gpu gpu = remembered ? std::move(remembered).value() : catalog.defaultGpu();
    TrainingSetup setup;
    setup.optimizer = parseOptimizer(ss(settings.value(QStringLiteral("setup/optimizer")).toString()))
                          .value_or(Optimizer::Adam);
    setup.optimizerImplementation = parseOptimizerImplementation(
        ss(settings.value(QStringLiteral("setup/optimizerImplementation")).toString()))
                                        .value_or(OptimizerImplementation::Foreach);
    setup.batch = settings.value(QStringLiteral("setup/batch"), QVariant::fromValue<qlonglong>(kDefaultBatch))
                      .toLongLong();
    setup.overheadBytes = settings
                              .value(QStringLiteral("setup/overheadBytes"),
                                  QVariant::fromValue<qulonglong>(kDefaultOverheadBytes))
                              .toULongLong();
    // The links between GPUs; a value out of range (an edited settings file) is the default.
    bool ok = false;
    const qlonglong perNode = settings.value(QStringLiteral("setup/gpusPerNode")).toLongLong(&ok);
    if (ok && perNode >= 1 && perNode <= kMaxGpus)
        setup.gpusPerNode = perNode;
    const double network = settings.value(QStringLiteral("setup/interNodeGBps")).toDouble(&ok);
    if (ok && network > 0 && network <= kMaxInterNodeGBps)
        setup.interNodeGBps = network;
    const Precision precision
        = parsePrecision(ss(settings.value(QStringLiteral("setup/precision")).toString()))
              .value_or(Precision::Fp32);
    m_document->resetSetup(precision, normalized(setup), gpu);
}

QSize MainWindow::firstWindowSize(const QSize& available, const QSize& minimum)
{
    // A little room for the window frame and the desktop's panels.
    const QSize room(available.width() * 95 / 100, available.height() * 92 / 100);
    return kPreferredSize.boundedTo(room).expandedTo(minimum);
}

QRect MainWindow::keptOnScreen(
    const QRect& geometry, const QRect& available, const QSize& minimum, int titleBar)
{
    QRect area = available.adjusted(0, titleBar, 0, 0); // the client area, below a title bar on screen
    if (area.isEmpty())
        area = available;
    QRect kept(geometry.topLeft(), geometry.size().boundedTo(area.size()).expandedTo(minimum));
    // Moved in from the right and bottom first, so a window larger than the screen keeps its top left
    // (and its title bar) on it.
    kept.moveRight(std::min(kept.right(), area.right()));
    kept.moveBottom(std::min(kept.bottom(), area.bottom()));
    kept.moveLeft(std::max(kept.left(), area.left()));
    kept.moveTop(std::max(kept.top(), area.top()));
    return kept;
}

void MainWindow::fitToScreen()
{
    const QScreen* s = screen() != nullptr ? screen() : QGuiApplication::primaryScreen();
    if (s == nullptr) {
        resize(kPreferredSize);
        return;
    }
    // The layouts make the minimum size the smallest at which every label reads in full.
    const QRect available = s->availableGeometry();
    resize(firstWindowSize(available.size(), minimumSizeHint()));
    move(available.center() - QPoint(width() / 2, height() / 2));
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    if (auto* s = findChild<QSplitter*>(QStringLiteral("mainSplitter")))
        settings.setValue(QStringLiteral("window/mainSplitter"), s->saveState());
    if (auto* s = findChild<QSplitter*>(QStringLiteral("editorSplitter")))
        settings.setValue(QStringLiteral("window/editorSplitter"), s->saveState());
    const Plan& plan = m_document->plan();
    settings.setValue(QStringLiteral("setup/gpu"), qs(plan.gpu.name));
    settings.setValue(QStringLiteral("setup/optimizer"), qs(optimizerName(plan.setup.optimizer)));
    settings.setValue(QStringLiteral("setup/optimizerImplementation"),
        qs(optimizerImplementationName(plan.setup.optimizerImplementation)));
    settings.setValue(QStringLiteral("setup/precision"), qs(precisionName(plan.precision)));
    settings.setValue(QStringLiteral("setup/batch"), QVariant::fromValue<qlonglong>(plan.setup.batch));
    settings.setValue(
        QStringLiteral("setup/overheadBytes"), QVariant::fromValue<qulonglong>(plan.setup.overheadBytes));
    settings.setValue(
        QStringLiteral("setup/gpusPerNode"), QVariant::fromValue<qlonglong>(plan.setup.gpusPerNode));
    settings.setValue(QStringLiteral("setup/interNodeGBps"), plan.setup.interNodeGBps);
    // A calibration is not remembered: it belongs to the measured run it came from, and a later session
    // that opens that run applies it again (docs/memory-model.md, "Calibration from a measured run").
    QStringList custom;
    for (const auto& g : m_setupPanel->catalog().gpus()) {
        if (g.custom)
            custom << qs(g.name) + QLatin1Char('\t') + QString::number(g.memoryBytes);
    }
    settings.setValue(QStringLiteral("customGpus"), custom);
}

} // namespace headroom::ui
