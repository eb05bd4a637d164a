// MainWindow's remembered state: the GPU catalogue with the user's own GPUs, the set-up and the
// window's geometry (the rest of MainWindow is in MainWindow.cpp).
#include "Document.h"
#include "ErrorText.h"
#include "GpuCompareView.h"
#include "MainWindow.h"
#include "QtText.h"
#include "SetupPanel.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/SetupFile.h"

#include <QDir>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace headroom::ui {

namespace {
constexpr QSize kPreferredSize { 1480, 920 };
/// The user's own GPUs: one entry per GPU, the JSON object a model file's custom "gpu" is
/// (customGpuToJson()), so a GPU keeps every figure between sessions. Before that an entry was
/// "name<TAB>memory bytes"; such entries still load (without figures).
const QString kCustomGpusKey = QStringLiteral("customGpus");

/// The GPU a "customGpus" entry holds, or why it cannot be read (the error names "customGpus[i]").
Result<Gpu> rememberedCustomGpu(const QString& entry, qsizetype index)
{
    const std::string path = ss(kCustomGpusKey) + "[" + std::to_string(index) + "]";
    nlohmann::json object;
    if (entry.trimmed().startsWith(QLatin1Char('{'))) {
        object = nlohmann::json::parse(ss(entry), nullptr, false);
        if (object.is_discarded())
            return Error { ss(MainWindow::tr("%1 is not JSON text: %2").arg(qs(path), entry.left(60))),
                path };
    } else {
        // The older form, read as the same object so it is checked alike.
        const auto parts = entry.split(QLatin1Char('\t'));
        bool ok = false;
        const qulonglong bytes = parts.size() == 2 ? parts[1].toULongLong(&ok) : 0;
        if (!ok)
            return Error { ss(MainWindow::tr(
                               "%1 is neither a custom GPU's JSON object nor “name<TAB>bytes”: %2")
                                   .arg(qs(path), entry.left(60))),
                path };
        object = { { "name", ss(parts[0]) }, { "memory_bytes", bytes } };
    }
    // A key a later Headroom added is left unread: the rest of the GPU still loads.
    return parseCustomGpu(object, path, UnknownGpuKeys::Ignore);
}
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
    // An entry that cannot be read is skipped (and said so), the others still load.
    const QStringList entries = QSettings().value(kCustomGpusKey).toStringList();
    QStringList skipped;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        auto gpu = rememberedCustomGpu(entries[i], i);
        if (!gpu) {
            skipped << ErrorText::forUser(gpu.error());
            continue;
        }
        Gpu& custom = gpu.value();
        custom.vendor = ss(tr("Custom"));
        custom.family = ss(tr("Custom"));
        catalog.addCustom(std::move(custom));
    }
    if (!skipped.isEmpty()) {
        const auto count = static_cast<int>(skipped.size());
        statusBar()->showMessage(
            (count == 1 ? tr("Skipped a custom GPU the settings hold: %1")
                        : tr("Skipped %n custom GPUs the settings hold: %1", nullptr, count))
                .arg(skipped.join(QStringLiteral("; "))));
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
            custom << qs(customGpuToJson(g).dump());
    }
    settings.setValue(kCustomGpusKey, custom);
}

} // namespace headroom::ui
