// Takes the user guide's screenshots (docs/images) from the real application. Not a test: run
//   cmake --build <build> --target headroom_screenshots
//   xvfb-run -s "-screen 0 1600x1000x24" <build>/tests/ui/headroom_screenshots docs/images
// and, for the translated UI, with LANG=zh_CN.UTF-8 and the extra argument "--locale-only"; with
// "--measured-run-only" only the measured run's (measured-run.png, measured-run-table.png); with
// "--cluster-only" only Make It Fit's cluster layouts (make-it-fit-cluster.png, on a 1366x768 screen).
// It needs an X server (Xvfb) because menus and pop-ups are separate windows, grabbed from the
// screen; widgets alone are grabbed with QWidget::grab().

#include "ClusterPlanView.h"
#include "DialogProvider.h"
#include "Document.h"
#include "GpuSelector.h"
#include "LayerActivationsView.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MakeItFitPanel.h"
#include "MeasuredRunPanel.h"
#include "MemoryChartView.h"
#include "PropertyPanel.h"
#include "SetupPanel.h"
#include "StepChartView.h"
#include "headroom/estimate/Plan.h"

#include <QAction>
#include <QApplication>
#include <QCursor>
#include <QDir>
#include <QFile>
#include <QGroupBox>
#include <QLocale>
#include <QMenu>
#include <QPixmap>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolTip>
#include <QTranslator>
#include <QTreeView>
#include <QUndoStack>
#include <algorithm>
#include <functional>
#include <vector>

using namespace headroom;
using namespace headroom::ui;

namespace {

QRect globalRect(const QWidget* w)
{
    return QRect(w->mapToGlobal(QPoint(0, 0)), w->size());
}

void saveScreen(const QString& path, const QRect& area)
{
    QScreen* screen = QGuiApplication::primaryScreen();
    const QPixmap shot = screen->grabWindow(0).copy(area.intersected(screen->geometry()));
    if (!shot.save(path))
        qWarning("cannot write %s", qPrintable(path));
    else
        qInfo("wrote %s (%dx%d)", qPrintable(path), shot.width(), shot.height());
}

void saveWidget(const QString& path, QWidget* w)
{
    if (!w->grab().save(path))
        qWarning("cannot write %s", qPrintable(path));
    else
        qInfo("wrote %s", qPrintable(path));
}

/// Moves the tooltip shown (Qt's QTipLabel, a top-level widget) up so it ends inside `area`: a tall one
/// shown low would be cut off by the picture's edge.
void keepTooltipInside(const QRect& area)
{
    for (QWidget* w : QApplication::topLevelWidgets()) {
        if (!w->isVisible() || !w->inherits("QTipLabel"))
            continue;
        const int overflow = w->geometry().bottom() - (area.bottom() - 8);
        if (overflow > 0)
            w->move(w->x(), std::max(area.top() + 8, w->y() - overflow));
    }
}

template <typename T> T* find(QObject* root, const char* name)
{
    T* w = root->findChild<T*>(QString::fromLatin1(name));
    if (w == nullptr)
        qFatal("no %s", name);
    return w;
}

/// The real dialogs, but for the question an import asks: the guide's walk-throughs train at 512 tokens.
class ScreenshotDialogs final : public DialogProvider
{
public:
    std::optional<std::int64_t> trainingSequenceLength(
        QWidget*, const QString&, std::int64_t, std::int64_t) override
    {
        return 512;
    }
};

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // never read or write the user's settings
    QApplication::setOrganizationName(QStringLiteral("HeadroomScreenshots"));
    QApplication::setApplicationName(QStringLiteral("HeadroomScreenshots"));
    QSettings().clear();
    const QStringList args = QApplication::arguments();
    const QDir out(args.size() > 1 ? args[1] : QStringLiteral("."));
    const bool localeOnly = args.contains(QStringLiteral("--locale-only"));
    QTranslator translator;
    if (translator.load(QLocale(), QStringLiteral("headroom"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QApplication::installTranslator(&translator);

    QTemporaryDir configDir; // a Hugging Face config must be called config.json
    MainWindow window;
    window.setDialogProvider(std::make_unique<ScreenshotDialogs>());
    // As a first start on this screen (1600x1000 under the Xvfb above): the window fitted to it.
    const QSize first = MainWindow::firstWindowSize(
        QGuiApplication::primaryScreen()->availableGeometry().size(), window.minimumSizeHint());
    window.setGeometry(0, 0, first.width(), first.height());
    window.show();
    window.loadDefault();
    const auto path = [&](const char* name) { return out.filePath(QString::fromLatin1(name)); };
    const auto frame = [&] { return window.frameGeometry(); };

    std::vector<std::function<void()>> steps;
    const auto addMeasuredRunSteps = [&] {
        // Issue 36: a measured run beside the plan (tests/data/measured/snapshot_steps.pickle, a
        // hand-made two-step run) on the step chart, then its "Measured run" tab, calibrated.
        steps.push_back([&] {
            if (auto* dock = window.findChild<QWidget*>(QStringLiteral("compareGpusDock")))
                dock->hide();
            // A small classifier on 1,024 features: the snapshot's 4 MiB weights, its optimizer state and
            // the rest are more than this plan holds, so the run proposes a calibration.
            Network mlp;
            mlp.name = "Small classifier";
            mlp.input.shape.dims = { 1024 };
            LayerSpec fc1;
            fc1.type = "Linear";
            fc1.name = "fc1";
            fc1.attributes = { { "out_features", 64 } };
            LayerSpec relu;
            relu.type = "ReLU";
            LayerSpec fc2;
            fc2.type = "Linear";
            fc2.name = "fc2";
            fc2.attributes = { { "out_features", 10 } };
            mlp.layers = { fc1, relu, fc2 };
            Document* doc = window.document();
            doc->resetNetwork(mlp, QString());
            if (auto gpu = window.setupPanel()->catalog().find("RTX 4090"))
                doc->setGpu(gpu.value());
            doc->setLora(LoraOptions {});
            doc->setPrecision(Precision::Fp32);
            doc->setOptimizer(Optimizer::Adam);
            doc->setAccumulationSteps(1);
            doc->setBatch(256);
            if (!window.openMeasuredRun(
                    QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/measured/snapshot_steps.pickle"),
                    RunContext { 256, Precision::Fp32, {} }))
                qFatal("cannot open the measured run");
        });
        steps.push_back([&] { saveScreen(path("measured-run.png"), frame()); });
        steps.push_back([&] {
            window.chartView()->tabs()->setCurrentWidget(window.measuredRunPanel());
            find<QPushButton>(&window, "calibratePlanButton")->click();
        });
        steps.push_back([&] { // The whole tab, as tall as its content (on screen it scrolls).
            saveWidget(path("measured-run-table.png"),
                find<QScrollArea>(&window, "measuredRunScrollArea")->widget());
        });
        steps.push_back([&] {
            window.document()->undoStack()->undo(); // the calibration
            window.closeMeasuredRun();
            window.chartView()->tabs()->setCurrentIndex(0);
        });
    };
    if (args.contains(QStringLiteral("--measured-run-only"))) {
        addMeasuredRunSteps();
    } else if (args.contains(QStringLiteral("--cluster-only"))) {
        // Issue 37: which layouts of 64 H100s fit a Llama-3-70B-like model at 4,096 tokens and a global
        // batch of 1,024 (user guide, "Which layout for a 70B model on 64 H100s"); taken on a 1366x768
        // screen: xvfb-run -s "-screen 0 1366x768x24" ... --cluster-only.
        steps.push_back([&] {
            window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
            const QString config = configDir.filePath(QStringLiteral("config.json"));
            QFile::copy(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/hf/Llama-3-70B-like.json"), config);
            if (!window.openFile(config))
                qFatal("cannot import %s", qPrintable(config));
        });
        steps.push_back([&] {
            Document* doc = window.document();
            if (auto gpu = window.setupPanel()->catalog().find("H100 SXM5 80GB"))
                doc->setGpu(gpu.value());
            doc->setOptimizer(Optimizer::AdamW);
            doc->setPrecision(Precision::AmpBf16);
            doc->setSequenceLength(4096);
            Parallelism p;
            p.gpus = 64;
            doc->setParallelism(p);
            doc->setAccumulationSteps(8);
            doc->setBatch(2); // 2 x 8 steps x 64 GPUs: a global batch of 1,024
            find<QAction>(&window, "makeItFitAction")->trigger();
            window.makeItFitPanel()->tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
            find<QPushButton>(&window, "findLayoutsButton")->click();
        });
        steps.push_back([&] {
            while (window.makeItFitPanel()->clusterView()->searching())
                QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        });
        steps.push_back([&] { saveScreen(path("make-it-fit-cluster.png"), frame()); });
    } else if (localeOnly) {
        steps.push_back([&] {
            saveScreen(path(qPrintable(QStringLiteral("main-window-%1.png").arg(QLocale().name()))), frame());
        });
    } else {
        steps.push_back([&] { saveScreen(path("main-window-vgg16.png"), frame()); });
        // The GPU selector, open.
        steps.push_back([&] {
            auto* combo = find<GpuSelector>(&window, "gpuComboBox");
            combo->showPopup();
        });
        steps.push_back([&] {
            auto* combo = find<GpuSelector>(&window, "gpuComboBox");
            const QRect area = globalRect(find<QWidget>(&window, "setupGroupBox"))
                                   .united(globalRect(combo->view()->window()));
            saveScreen(path("gpu-selector.png"), area.adjusted(-4, -4, 4, 4));
            combo->hidePopup();
        });
        steps.push_back(
            [&] { saveWidget(path("setup-panel.png"), find<QWidget>(&window, "setupGroupBox")); });
        // Set to max.
        steps.push_back([&] { find<QPushButton>(&window, "setMaxBatchButton")->click(); });
        steps.push_back([&] {
            const QRect area
                = globalRect(find<QWidget>(&window, "batchGroupBox")).united(globalRect(window.chartView()));
            saveScreen(path("max-batch.png"), area);
        });
        // Too large a batch: the shortfall.
        steps.push_back([&] { window.document()->setBatch(96); });
        steps.push_back([&] {
            const QRect area
                = globalRect(find<QWidget>(&window, "batchGroupBox")).united(globalRect(window.chartView()));
            saveScreen(path("shortfall.png"), area);
        });
        // Hover breakdown at batch 48.
        steps.push_back([&] {
            window.document()->setBatch(48);
            auto* view = find<QWidget>(&window, "memoryChartView");
            QToolTip::showText(view->mapToGlobal(QPoint(view->width() / 2, view->height() / 2)),
                window.chartView()->breakdownText(48), view);
        });
        steps.push_back([&] { saveScreen(path("chart-tooltip.png"), globalRect(window.chartView())); });
        // During one step at batch 32, the peak's moment hovered.
        steps.push_back([&] {
            QToolTip::hideText();
            window.document()->setBatch(32);
            window.chartView()->tabs()->setCurrentWidget(window.chartView()->stepView());
        });
        steps.push_back([&] {
            StepChartView* step = window.chartView()->stepView();
            const QPoint peak = step->peakPosition();
            // Over the forward pass, left of the peak, so the backward pass and the step stay in view.
            QToolTip::showText(step->mapToGlobal(QPoint(std::max(70, peak.x() - 300), peak.y() + 70)),
                step->momentText(step->xOfMoment(step->peakMoment())), step);
        });
        steps.push_back([&] { keepTooltipInside(globalRect(window.chartView())); });
        steps.push_back([&] { saveScreen(path("during-one-step.png"), globalRect(window.chartView())); });
        // The per-layer bars.
        steps.push_back([&] {
            QToolTip::hideText();
            window.chartView()->tabs()->setCurrentWidget(window.chartView()->layerView());
        });
        steps.push_back(
            [&] { saveScreen(path("activations-per-layer.png"), globalRect(window.chartView())); });
        // Adding a layer from the categorised menu.
        steps.push_back([&] {
            window.chartView()->tabs()->setCurrentIndex(0);
            window.document()->setBatch(32);
            window.layerEditor()->selectPath({ 1 });
            auto* button = find<QWidget>(&window, "addLayerButton");
            QMenu* menu = window.layerEditor()->addLayerMenu();
            menu->popup(button->mapToGlobal(QPoint(0, button->height())));
        });
        steps.push_back([&] {
            QMenu* menu = window.layerEditor()->addLayerMenu();
            QMenu* norm = find<QMenu>(menu, "NormalizationMenu");
            menu->setActiveAction(norm->menuAction());
            norm->popup(menu->mapToGlobal(menu->actionGeometry(norm->menuAction()).topRight()));
            norm->setActiveAction(norm->actions().value(1));
        });
        steps.push_back([&] {
            QMenu* menu = window.layerEditor()->addLayerMenu();
            QMenu* norm = find<QMenu>(menu, "NormalizationMenu");
            const QRect area
                = globalRect(window.layerEditor()).united(globalRect(norm)).united(globalRect(menu));
            saveScreen(path("add-layer-menu.png"), area.adjusted(0, 0, 8, 0));
            norm->hide();
            menu->hide();
            find<QAction>(&window, "addBatchNorm2dAction")->trigger();
        });
        steps.push_back([&] {
            const QRect area = globalRect(window.layerEditor()).united(globalRect(window.propertyPanel()));
            saveScreen(path("layer-added.png"), area);
        });
        // An invalid layer: a 9x9 pooling window on a 7x7 map.
        steps.push_back([&] {
            window.document()->undoStack()->clear();
            window.loadDefault();
        });
        steps.push_back([&] {
            const auto& layers = window.document()->network().layers;
            int pool = -1;
            for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
                if (layers[static_cast<std::size_t>(i)].type == "MaxPool2d")
                    pool = i;
            }
            if (pool < 0)
                qFatal("no MaxPool2d in the default preset");
            window.layerEditor()->selectPath({ pool });
            window.document()->setLayerAttribute({ pool }, "kernel_size", 32);
            window.layerEditor()->view()->scrollTo(
                window.layerEditor()->model()->indexOf({ pool }), QAbstractItemView::PositionAtCenter);
        });
        steps.push_back([&] { saveScreen(path("invalid-layer.png"), frame()); });
        // A residual block around a shape-keeping pair (the last Conv2d + ReLU before a pooling layer).
        steps.push_back([&] {
            window.document()->undoStack()->undo();
            const auto& layers = window.document()->network().layers;
            int conv = -1;
            for (int i = 1; i + 1 < static_cast<int>(layers.size()); ++i) {
                const auto& l = layers[static_cast<std::size_t>(i)];
                const auto& prev = layers[static_cast<std::size_t>(i - 1)];
                if (l.type == "Conv2d" && prev.type == "ReLU"
                    && layers[static_cast<std::size_t>(i + 1)].type == "ReLU")
                    conv = i; // keeps its channel count when the previous conv had the same
            }
            if (conv < 0)
                qFatal("no Conv2d + ReLU pair");
            window.layerEditor()->selectPath({ conv });
            window.layerEditor()->view()->selectionModel()->select(
                window.layerEditor()->model()->indexOf({ conv + 1 }),
                QItemSelectionModel::Select | QItemSelectionModel::Rows);
            find<QAction>(&window, "wrapResidualAction")->trigger();
            const QModelIndex block = window.layerEditor()->model()->indexOf({ conv });
            window.layerEditor()->view()->setCurrentIndex(window.layerEditor()->model()->index(2, 0, block));
            window.layerEditor()->view()->scrollTo(block, QAbstractItemView::PositionAtCenter);
        });
        steps.push_back([&] {
            const QRect area = globalRect(window.layerEditor()).united(globalRect(window.propertyPanel()));
            saveScreen(path("residual-block.png"), area);
        });
        // Strategies: QLoRA on Llama-2-7B (imported from its Hugging Face config.json) on a 24 GB card;
        // then ResNet-50 on four GPUs with ZeRO-2.
        steps.push_back([&] {
            window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
            const QString config = configDir.filePath(QStringLiteral("config.json"));
            QFile::copy(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"), config);
            if (!window.openFile(config))
                qFatal("cannot import %s", qPrintable(config));
        });
        steps.push_back([&] {
            Document* doc = window.document();
            if (auto gpu = window.setupPanel()->catalog().find("RTX 4090"))
                doc->setGpu(gpu.value());
            doc->setPrecision(Precision::AmpBf16);
            doc->setOptimizer(Optimizer::AdamW);
            doc->setCheckpointing(Checkpointing::PerBlock);
            doc->setSequenceLength(512);
            LoraOptions lora;
            lora.rank = 16;
            lora.targets = { "q_proj", "v_proj" };
            lora.quantizeBase = true;
            doc->setLora(lora);
            doc->setAccumulationSteps(8);
            doc->setBatch(4);
            find<QTabWidget>(&window, "setupTabWidget")->setCurrentIndex(SetupPanel::StrategyTab);
        });
        steps.push_back([&] { saveScreen(path("strategy-qlora-llama.png"), frame()); });
        steps.push_back([&] {
            window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
            window.document()->setLora(LoraOptions {});
            window.document()->setCheckpointing(Checkpointing::None);
            window.document()->setAccumulationSteps(1);
            window.openPreset(QStringLiteral("resnet50"));
            window.statusBar()->clearMessage(); // the import's message is about the previous model
        });
        steps.push_back([&] {
            // As the user guide's walkthrough: four RTX 3090s, AdamW, FP16 autocast, 128 images per GPU.
            Document* doc = window.document();
            if (auto gpu = window.setupPanel()->catalog().find("RTX 3090"))
                doc->setGpu(gpu.value());
            doc->setOptimizer(Optimizer::AdamW);
            doc->setPrecision(Precision::AmpFp16);
            Parallelism p;
            p.gpus = 4;
            p.sharding = Sharding::Zero2;
            doc->setParallelism(p);
            doc->setBatch(128);
            find<QTabWidget>(&window, "setupTabWidget")->setCurrentIndex(SetupPanel::MultiGpuTab);
        });
        steps.push_back([&] { saveScreen(path("multi-gpu-zero2-resnet50.png"), frame()); });
        // Issue 37: GPT-2 small cut into 4 pipeline stages (user guide, "Pipeline and other parallelism").
        steps.push_back([&] {
            window.document()->setParallelism(Parallelism {});
            window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
            window.openPreset(QStringLiteral("gpt2_small"));
            window.statusBar()->clearMessage();
            Document* doc = window.document();
            if (auto gpu = window.setupPanel()->catalog().find("A100 40GB"))
                doc->setGpu(gpu.value());
            doc->setOptimizer(Optimizer::AdamW);
            doc->setPrecision(Precision::AmpBf16);
            doc->setAccumulationSteps(8);
            doc->setBatch(8);
            Parallelism p;
            p.gpus = 4;
            p.pipelineParallel = 4;
            doc->setParallelism(p);
            find<QTabWidget>(&window, "setupTabWidget")->setCurrentIndex(SetupPanel::MultiGpuTab);
            window.chartView()->tabs()->setCurrentWidget(find<QWidget>(&window, "pipelineStagesView"));
        });
        steps.push_back([&] { saveScreen(path("pipeline-stages-gpt2.png"), frame()); });
        steps.push_back([&] {
            window.chartView()->tabs()->setCurrentIndex(0);
            window.document()->setAccumulationSteps(1);
        });
        // Issue 18: Make It Fit for an effective batch of 256 of VGG-16 on a GTX 1080; every GPU for
        // LoRA on Llama-2-7B (user guide, "Effective batch 256 ..." and "Which GPU for LoRA ...").
        steps.push_back([&] {
            window.document()->setParallelism(Parallelism {});
            window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
            window.openPreset(QStringLiteral("vgg16"));
            Document* doc = window.document();
            if (auto gpu = window.setupPanel()->catalog().find("GTX 1080"))
                doc->setGpu(gpu.value());
            doc->setOptimizer(Optimizer::Adam);
            doc->setPrecision(Precision::Fp32);
            doc->setBatch(32);
            find<QAction>(&window, "makeItFitAction")->trigger();
            find<QSpinBox>(&window, "targetBatchSpinBox")->setValue(256);
        });
        steps.push_back([&] {
            // The panel searches off the GUI thread: its list, not "Searching…".
            while (window.makeItFitPanel()->searching())
                QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
            saveScreen(path("make-it-fit-vgg16.png"), frame());
        });
        steps.push_back([&] {
            window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
            const QString config = configDir.filePath(QStringLiteral("config.json"));
            if (!window.openFile(config))
                qFatal("cannot import %s", qPrintable(config));
        });
        steps.push_back([&] {
            Document* doc = window.document();
            if (auto gpu = window.setupPanel()->catalog().find("RTX 4090"))
                doc->setGpu(gpu.value());
            doc->setPrecision(Precision::Bf16);
            doc->setOptimizer(Optimizer::Adam);
            doc->setCheckpointing(Checkpointing::None);
            doc->setSequenceLength(512);
            LoraOptions lora;
            lora.rank = 8;
            doc->setLora(lora);
            doc->setAccumulationSteps(4);
            doc->setBatch(4);
            find<QAction>(&window, "compareGpusAction")->trigger();
        });
        steps.push_back([&] { saveScreen(path("compare-gpus-llama.png"), frame()); });
        addMeasuredRunSteps();
        steps.push_back([&] {
            window.resize(1280, 800);
            find<QTabWidget>(&window, "setupTabWidget")->setCurrentIndex(SetupPanel::StrategyTab);
        });
        steps.push_back([&] { saveScreen(path("window-1280x800.png"), frame()); });
        // The smallest the window goes: every label still reads.
        steps.push_back([&] {
            window.resize(window.minimumSizeHint());
            find<QTabWidget>(&window, "setupTabWidget")->setCurrentIndex(SetupPanel::GpuTab);
        });
        steps.push_back([&] { saveScreen(path("window-minimum.png"), frame()); });
    }
    std::size_t next = 0;
    QTimer timer;
    timer.setInterval(800); // time for the window to repaint between steps on a busy machine
    QObject::connect(&timer, &QTimer::timeout, &app, [&] {
        if (next < steps.size()) {
            steps[next++]();
            return;
        }
        window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
        QApplication::quit();
    });
    timer.start();
    return QApplication::exec();
}
