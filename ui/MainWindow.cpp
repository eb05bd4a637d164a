#include "MainWindow.h"

#include "BatchPanel.h"
#include "ClusterPlanView.h"
#include "DialogProvider.h"
#include "Document.h"
#include "ErrorText.h"
#include "FieldCommit.h"
#include "GpuCompareView.h"
#include "GpuSelector.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MakeItFitPanel.h"
#include "MeasuredRunPanel.h"
#include "MemoryChartView.h"
#include "PipelineStagesView.h"
#include "PlanController.h"
#include "PropertyPanel.h"
#include "QtText.h"
#include "ReportWriter.h"
#include "RunController.h"
#include "ScreenBoundArea.h"
#include "SetupPanel.h"
#include "StepChartView.h"
#include "UiText.h"
#include "WarningBanner.h"
#include "WindowShortcuts.h"
#include "headroom/estimate/SetupFile.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Resources.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QGroupBox>
#include <QImage>
#include <QMenuBar>
#include <QMimeData>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>
#include <QUrl>
#include <QVBoxLayout>
#include <bit>

namespace headroom::ui {

namespace {

const QString kDefaultPreset = QStringLiteral("vgg16");

QString modelFilter()
{
    return MainWindow::tr("Headroom models (*.json);;All files (*)");
}
QString openFilter()
{
    return MainWindow::tr("Models (*.json *.onnx);;Headroom models (*.json);;ONNX models (*.onnx);;"
                          "Hugging Face configs (config.json);;All files (*)");
}
QString measuredRunFilter()
{
    return MainWindow::tr(
        "Measured runs (*.pickle *.pkl *.json *.json.gz *.html *.htm *.gz);;Memory snapshots "
        "(*.pickle *.pkl);;memory_viz pages (*.html *.htm);;Profiler exports (*.json *.json.gz "
        "*.gz);;All files (*)");
}
QString importFilter()
{
    return MainWindow::tr("Models to import (*.onnx config.json);;ONNX models (*.onnx);;Hugging Face configs "
                          "(config.json);;All files (*)");
}

/// Files Headroom reads through an importer by their name alone (any other file is tried as a
/// Headroom model first).
bool isImportedFormat(const QString& path)
{
    const std::string p = ss(path);
    return isOnnxPath(p) || isHfConfigPath(p);
}

/// Where the documentation is: installed next to the executable (bin/headroom ->
/// share/doc/headroom, as installer/CMakeLists.txt puts it), else the source tree of this build.
QString findDocDir()
{
    const QDir exe(QCoreApplication::applicationDirPath());
    for (const QString& candidate : { exe.filePath(QStringLiteral("../share/doc/headroom")),
             QStringLiteral(HEADROOM_SOURCE_RESOURCES_DIR "/../docs") }) {
        if (QFileInfo::exists(QDir(candidate).filePath(QStringLiteral("user-guide.md"))))
            return QDir::cleanPath(QDir(candidate).absolutePath());
    }
    return {};
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_dialogs { std::make_unique<DialogProvider>() }
    , m_document { new Document(this) }
    , m_controller { new PlanController(m_document, this) }
{
    setObjectName(QStringLiteral("mainWindow"));
    m_controller->setObjectName(QStringLiteral("planController"));
    m_document->setObjectName(QStringLiteral("document"));
    createViews();
    layOutViews();
    connectViews();
    createDocks();

    m_lastDir
        = DialogProvider::existingFolder(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation));
    if (const auto dir = findResourceDir(QCoreApplication::applicationFilePath().toStdString()))
        m_resourceDir = qs(*dir);
    m_docDir = findDocDir();
    new WindowShortcuts(this);
    loadCatalog();
    createMenus();
    restoreSettings();
    updateTitle();
    statusBar()->setObjectName(QStringLiteral("mainStatusBar"));
}

void MainWindow::createViews()
{
    m_layerEditor = new LayerEditor(m_document, this);
    m_layerEditor->setObjectName(QStringLiteral("layerEditor"));
    m_propertyPanel = new PropertyPanel(m_document, m_layerEditor->model(), this);
    m_propertyPanel->setObjectName(QStringLiteral("propertyPanel"));
    m_setupPanel = new SetupPanel(m_document, this);
    m_setupPanel->setObjectName(QStringLiteral("setupPanel"));
    m_batchPanel = new BatchPanel(m_document, this);
    m_batchPanel->setObjectName(QStringLiteral("batchPanel"));
    m_chartView = new MemoryChartView(this);
    m_chartView->setObjectName(QStringLiteral("memoryChart"));
    m_runs = new RunController(m_document, m_controller, this);
    m_runs->setObjectName(QStringLiteral("runController"));
    m_runPanel = new MeasuredRunPanel(m_runs, m_document, this);
    m_runPanel->setObjectName(QStringLiteral("measuredRunPanel"));
    m_runPanel->hide(); // a tab of the charts while a run is open (showMeasuredRun)
    m_stagesView = new PipelineStagesView(this);
    m_stagesView->setObjectName(QStringLiteral("pipelineStagesView"));
    m_stagesView->hide(); // a tab of the charts while the plan has a pipeline (showPipelineStages)
    setAcceptDrops(true);
}

void MainWindow::layOutViews()
{
    auto* editorSplitter = new QSplitter(Qt::Vertical, this);
    editorSplitter->setObjectName(QStringLiteral("editorSplitter"));
    editorSplitter->addWidget(m_layerEditor);
    editorSplitter->addWidget(m_propertyPanel);
    editorSplitter->setStretchFactor(0, 3);
    editorSplitter->setStretchFactor(1, 2);

    auto* right = new QWidget(this);
    right->setObjectName(QStringLiteral("rightColumn"));
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* setupGroup = new QGroupBox(tr("Training set-up"), right);
    setupGroup->setObjectName(QStringLiteral("setupGroupBox"));
    (new QVBoxLayout(setupGroup))->addWidget(m_setupPanel);
    auto* batchGroup = new QGroupBox(tr("Batch size"), right);
    batchGroup->setObjectName(QStringLiteral("batchGroupBox"));
    (new QVBoxLayout(batchGroup))->addWidget(m_batchPanel);
    rightLayout->addWidget(setupGroup);
    rightLayout->addWidget(batchGroup);
    rightLayout->addWidget(m_chartView, 1);

    auto* mainSplitter = new QSplitter(Qt::Horizontal, this);
    mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    mainSplitter->addWidget(editorSplitter);
    mainSplitter->addWidget(right);
    mainSplitter->setStretchFactor(0, 1);
    mainSplitter->setStretchFactor(1, 1);
    mainSplitter->setSizes({ 720, 720 });
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    auto* warnings = new WarningBanner(central);
    warnings->setObjectName(QStringLiteral("warningBanner"));
    centralLayout->addWidget(warnings);
    centralLayout->addWidget(mainSplitter, 1);
    // Scrolled rather than past the screen: a docked panel or a figure that grows never makes the
    // window taller than the screen (issue 25 item 3).
    setCentralWidget(new ScreenBoundArea(central, this));
    connect(m_controller, &PlanController::analysisChanged, warnings, &WarningBanner::setAnalysis);
    warnings->setAnalysis(m_controller->analysis());
}

void MainWindow::connectViews()
{
    connect(m_controller, &PlanController::analysisChanged, m_layerEditor->model(),
        &LayerTableModel::setAnalysis);
    connect(m_controller, &PlanController::estimateChanged, m_batchPanel, &BatchPanel::setEstimate);
    connect(m_controller, &PlanController::analysisChanged, m_batchPanel, &BatchPanel::setAnalysis);
    connect(m_controller, &PlanController::estimateChanged, m_setupPanel, &SetupPanel::setEstimate);
    connect(m_controller, &PlanController::estimateChanged, m_chartView, &MemoryChartView::setEstimate);
    connect(m_controller, &PlanController::estimateChanged, this, &MainWindow::showPipelineStages);
    connect(m_stagesView, &PipelineStagesView::stageChosen, m_controller, &PlanController::showStage);
    connect(m_controller, &PlanController::chartDataChanged, m_chartView, &MemoryChartView::setData);
    connect(m_controller, &PlanController::stepChartChanged, m_chartView, &MemoryChartView::setStepData);
    connect(
        m_layerEditor, &LayerEditor::currentIndexChanged, m_propertyPanel, &PropertyPanel::setCurrentIndex);
    connect(m_setupPanel, &SetupPanel::customGpuRequested, this, &MainWindow::requestCustomGpu);
    connect(m_runs, &RunController::comparisonChanged, this, &MainWindow::showMeasuredRun);
    connect(m_runPanel, &MeasuredRunPanel::closeRequested, this, &MainWindow::closeMeasuredRun);
    connect(m_chartView, &MemoryChartView::exportImageRequested, this, &MainWindow::exportChartImage);
    connect(m_chartView, &MemoryChartView::exportReportRequested, this, &MainWindow::exportReport);
    connect(m_document, &Document::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::headerChanged, this, &MainWindow::updateTitle);

    // Wrapped lines (the throughput caveats) grow with the results: keep room for them at the
    // window's minimum size.
    connect(m_controller, &PlanController::estimateChanged, this, &MainWindow::keepFiguresReadable,
        Qt::QueuedConnection);

    m_layerEditor->model()->setAnalysis(m_controller->analysis());
    m_chartView->setData(m_controller->chartData());
    m_chartView->setStepData(m_controller->stepChartData());
    m_batchPanel->setAnalysis(m_controller->analysis());
    m_batchPanel->setEstimate(m_controller->estimateState());
    m_setupPanel->setEstimate(m_controller->estimateState());
    showPipelineStages();
}

void MainWindow::createDocks()
{
    // Issue 18: the planner and every GPU side by side, docked beside the chart (which shows an
    // applied set-up at once), hidden until the Plan menu asks for them.
    m_makeItFit = new MakeItFitPanel(m_document, this);
    m_makeItFit->setObjectName(QStringLiteral("makeItFitPanel"));
    m_compareView = new GpuCompareView(m_document, {}, this);
    m_compareView->setObjectName(QStringLiteral("gpuCompareView"));
    const auto dock = [this](QWidget* content, const QString& title, const QString& name) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(content);
        addDockWidget(Qt::BottomDockWidgetArea, d);
        d->hide();
        return d;
    };
    QDockWidget* fitDock = dock(m_makeItFit, tr("Make It Fit"), QStringLiteral("makeItFitDock"));
    QDockWidget* compareDock = dock(m_compareView, tr("Compare GPUs"), QStringLiteral("compareGpusDock"));
    tabifyDockWidget(fitDock, compareDock);
}

MainWindow::~MainWindow() = default;

void MainWindow::setDialogProvider(std::unique_ptr<DialogProvider> dialogs)
{
    m_dialogs = std::move(dialogs);
}

void MainWindow::newDocument()
{
    Network network;
    network.name = ss(tr("Untitled"));
    network.input.shape.dims = { 3, 224, 224 };
    m_document->resetNetwork(std::move(network), QString());
    startModel();
}

bool MainWindow::openFile(const QString& path)
{
    return maybeSave() && loadFile(path);
}

void MainWindow::askToOpen()
{
    if (!maybeSave())
        return;
    const QString path = m_dialogs->openFileName(this, tr("Open Model"), m_lastDir, openFilter());
    if (!path.isEmpty())
        loadFile(path);
}

void MainWindow::askToOpenMeasuredRun()
{
    const QString path
        = m_dialogs->openFileName(this, tr("Open Measured Run"), m_lastDir, measuredRunFilter());
    if (!path.isEmpty())
        openMeasuredRun(path);
}

bool MainWindow::openMeasuredRun(const QString& path)
{
    FieldCommit::flushAll(this);
    return openReadRun(RunController::readOffThread(path), path, std::nullopt);
}

bool MainWindow::openMeasuredRun(const QString& path, const RunContext& context)
{
    FieldCommit::flushAll(this);
    return openReadRun(RunController::readOffThread(path), path, context);
}

bool MainWindow::openReadRun(Result<MeasuredRun> run, const QString& path, std::optional<RunContext> context)
{
    if (!run) {
        showError(tr("Cannot open the measured run"), ErrorText::printable(run.error().message));
        return false;
    }
    if (!context) {
        const Plan& plan = m_document->plan();
        const auto setup
            = m_dialogs->measuredRunSetup(this, QFileInfo(path).fileName(), plan.setup.batch, plan.precision);
        if (!setup)
            return false;
        context = RunContext { setup->batch, setup->precision, {} };
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_runs->open(std::move(run).value(), absolute, *context);
    m_lastDir = QFileInfo(absolute).absolutePath();
    m_chartView->tabs()->setCurrentWidget(m_chartView->stepView());
    statusBar()->showMessage(tr("Opened %1 beside the plan").arg(QDir::toNativeSeparators(absolute)), 5000);
    return true;
}

void MainWindow::closeMeasuredRun()
{
    m_runs->close();
}

void MainWindow::showMeasuredRun()
{
    const bool open = m_runs->isOpen();
    m_chartView->stepView()->setComparison(m_runs->comparison(), m_runs->fileName());
    // The tab is there only while a run is open.
    QTabWidget* tabs = m_chartView->tabs();
    int index = tabs->indexOf(m_runPanel);
    if (open && index < 0)
        index = tabs->addTab(m_runPanel, QString());
    else if (!open && index >= 0)
        tabs->removeTab(index);
    if (open)
        tabs->setTabText(index, tr("Measured run: %1").arg(m_runs->fileName()));
    if (m_closeRunAction != nullptr)
        m_closeRunAction->setEnabled(open);
}

void MainWindow::showPipelineStages()
{
    const PlanResult& result = m_controller->planResult();
    const PlanResult& charted = m_controller->chartedResult();
    std::size_t shown = result.heaviestStage;
    for (std::size_t s = 0; s < result.stages.size(); ++s)
        if (&result.stages[s].result == &charted)
            shown = s;
    m_stagesView->setResult(m_document->plan(), result, shown);
    QTabWidget* tabs = m_chartView->tabs();
    const int index = tabs->indexOf(m_stagesView);
    if (!result.stages.empty() && index < 0)
        tabs->insertTab(1, m_stagesView, tr("Pipeline stages"));
    else if (result.stages.empty() && index >= 0)
        tabs->removeTab(index);
}

bool MainWindow::openDroppedFile(const QString& path)
{
    // A model opens as File > Open would open it; anything else is tried as a measured run. Models are
    // JSON objects, ONNX files (by name) or Hugging Face configs: a file whose content starts otherwise (a
    // pickle, gzip, an HTML page, a Chrome trace's array) is a run without trying it as a model.
    if (isImportedFormat(path))
        return openFile(path);
    QFile file(path);
    QByteArray head;
    if (file.open(QIODevice::ReadOnly))
        head = file.read(64).trimmed();
    if (head.startsWith('{')) {
        auto model = loadModelFile(ss(path));
        if (model || loadNetworkFile(ss(path)))
            return openFile(path);
        auto run = RunController::readOffThread(path);
        if (!run) {
            showError(tr("Cannot open the file"),
                tr("%1 is neither a model nor a measured run.\nAs a model: %2\nAs a measured run: %3")
                    .arg(QDir::toNativeSeparators(path), ErrorText::forUser(model.error()),
                        ErrorText::printable(run.error().message)));
            return false;
        }
        return openReadRun(std::move(run), path, std::nullopt);
    }
    return openMeasuredRun(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QMimeData* data = event->mimeData();
    if (data->hasUrls() && !data->urls().isEmpty() && data->urls().front().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QMimeData* data = event->mimeData();
    if (!data->hasUrls() || data->urls().isEmpty() || !data->urls().front().isLocalFile())
        return;
    event->acceptProposedAction();
    const QString path = data->urls().front().toLocalFile();
    // After the drop returns: the drag's source must not wait on dialogs.
    QTimer::singleShot(0, this, [this, path] { openDroppedFile(path); });
}

void MainWindow::importModel()
{
    if (!maybeSave())
        return;
    const QString path = m_dialogs->openFileName(this, tr("Import Model"), m_lastDir, importFilter());
    if (!path.isEmpty())
        loadFile(path);
}

bool MainWindow::loadFile(const QString& path)
{
    // A Headroom model is saved back to its file. Anything read through an importer (an ONNX
    // model, a Hugging Face config under any name) is not: Save asks for a new .json file.
    bool imported = isImportedFormat(path);
    Result<ModelDocument> document = imported ? loadNetworkDocument(ss(path)) : loadModelDocument(ss(path));
    if (!document && !imported) {
        // A Hugging Face config under another name, or what the file was taken for and why not.
        auto other = loadNetworkDocument(ss(path));
        imported = other.ok();
        document = std::move(other);
    }
    if (!document) {
        showError(imported ? tr("Cannot import the model") : tr("Cannot open the model"),
            ErrorText::forUser(document.error()));
        return false;
    }
    // The set-up saved with the model (docs/model-format.md, "The saved set-up") comes back with it.
    std::optional<PlanSettings> saved;
    if (!document->training.is_null()) {
        auto read = parseTrainingSetup(document->training, m_setupPanel->catalog());
        if (!read) {
            showError(tr("Cannot open the model"),
                ErrorText::forUser(Error { ss(path) + ": " + read.error().message, read.error().location }));
            return false;
        }
        saved = std::move(read).value();
        if (saved->gpu.custom) { // listed with the user's own GPUs, and remembered with them
            GpuCatalog catalog = m_setupPanel->catalog();
            catalog.addCustom(saved->gpu);
            m_setupPanel->setCatalog(catalog);
            m_compareView->setGpus(catalog.gpus());
        }
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (imported) {
        Network n = askTrainingLength(std::move(document).value().network);
        m_document->resetNetwork(std::move(n), QString(), absolute);
        statusBar()->showMessage(tr("Imported %1").arg(QDir::toNativeSeparators(absolute)), 5000);
    } else {
        m_document->resetNetwork(std::move(document).value().network, absolute, QString(), saved);
    }
    m_lastDir = QFileInfo(absolute).absolutePath();
    addRecentFile(absolute);
    startModel(saved.has_value());
    return true;
}

Network MainWindow::askTrainingLength(Network network)
{
    // An imported config whose context is longer than one trains at starts at a shorter length: ask
    // which (HfConfig.h, kDefaultTrainingSequenceLength).
    const auto& input = network.input;
    if (!input.maxSequenceLength || input.shape.dims.size() != 1
        || *input.maxSequenceLength <= input.shape.dims[0])
        return network;
    const auto length = m_dialogs->trainingSequenceLength(
        this, qs(network.name), input.shape.dims[0], *input.maxSequenceLength);
    if (!length)
        return network;
    auto resized = atTrainingLength(network, *length);
    return resized ? std::move(resized).value() : network;
}

void MainWindow::startModel(bool savedSetup)
{
    m_layerEditor->selectPath({ 0 });
    const QStringList dropped = m_document->droppedLoraTargets();
    if (!dropped.isEmpty()) {
        const bool allLinear = m_document->plan().lora.targets.empty();
        statusBar()->showMessage(
            tr("Dropped from the set-up, as no Linear layer of this model has the name: LoRA target %1%2.")
                .arg(dropped.join(QStringLiteral(", ")),
                    allLinear ? tr(" (LoRA now adapts every Linear layer but the head)") : QString()),
            15000);
    }
    const auto& state = m_controller->estimateState();
    if (!state.estimate || savedSetup) // a saved set-up's batch is the user's choice, fitting or not
        return;
    const std::int64_t max = state.estimate->maxBatch;
    const std::int64_t batch = m_document->plan().setup.batch;
    if (batch <= max)
        return; // it fits: the user's choice stays
    // The batch of the previous model does not fit this one: the default, or the largest power of
    // two that fits (1 when nothing does: the summary then says by how much).
    m_document->resetBatch(max <= 0
            ? 1
            : std::min(
                kDefaultBatch, static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(max)))));
}

void MainWindow::keepFiguresReadable()
{
    // The top-level minimum size ignores height-for-width: at the narrowest the right column gets,
    // its word-wrapped lines need more height than its layout's minimum says. Reserve it, so no line
    // is cut off however small the window is made.
    auto* right = findChild<QWidget*>(QStringLiteral("rightColumn"));
    if (right == nullptr || right->layout() == nullptr)
        return;
    const int width = right->minimumSizeHint().width();
    int height = right->layout()->contentsMargins().top() + right->layout()->contentsMargins().bottom();
    const int spacing = right->layout()->spacing();
    for (int i = 0; i < right->layout()->count(); ++i) {
        QWidget* w = right->layout()->itemAt(i)->widget();
        if (w == nullptr || w->isHidden())
            continue;
        // The figures' wrapped lines only: the charts' heightForWidth (their Activations page wraps
        // its caption) is a preferred height, the layer list's, which added itself to the window's
        // minimum at each estimate while that page showed (issue 25 item 3).
        const int needed = w != m_chartView && w->hasHeightForWidth() ? w->heightForWidth(width) : -1;
        height += std::max(w->minimumSizeHint().height(), needed) + (i > 0 ? spacing : 0);
    }
    right->setMinimumHeight(height);
}

void MainWindow::showError(const QString& title, const QString& message)
{
    // The core names documentation pages by their place in the source tree: point at the copy a
    // user has.
    QString text = message;
    // Only a bare "docs/x.md": one inside a path (the guide's own, in "No application could open
    // /opt/x/docs/user-guide.md") is a place already.
    static const QRegularExpression page { QStringLiteral(R"((?<![\w./\\-])docs/([A-Za-z0-9_.-]+\.md)\b)") };
    for (auto m = page.match(text); m.hasMatch();) {
        const QString installed = m_docDir.isEmpty() ? QString() : QDir(m_docDir).filePath(m.captured(1));
        const QString where = QFileInfo::exists(installed)
            ? QDir::toNativeSeparators(installed)
            : tr("%1 in the documentation (Help > User Guide)").arg(m.captured(1));
        text.replace(m.capturedStart(), m.capturedLength(), where);
        m = page.match(text, m.capturedStart() + where.size());
    }
    m_dialogs->showError(this, title, text);
}

void MainWindow::showUserGuide()
{
    const QString guide
        = m_docDir.isEmpty() ? QString() : QDir(m_docDir).filePath(QStringLiteral("user-guide.md"));
    if (guide.isEmpty() || !QFileInfo::exists(guide)) {
        showError(tr("Cannot open the user guide"),
            tr("The documentation is not installed next to Headroom (it belongs in %1).")
                .arg(QDir::toNativeSeparators(
                    QDir::cleanPath(QDir(QCoreApplication::applicationDirPath())
                                        .filePath(QStringLiteral("../share/doc/headroom"))))));
        return;
    }
    if (!m_dialogs->openUrl(QUrl::fromLocalFile(guide)))
        showError(tr("Cannot open the user guide"),
            tr("No application could open %1. Open it with a text editor or a Markdown viewer.")
                .arg(QDir::toNativeSeparators(guide)));
}

QString MainWindow::presetPath(const QString& id) const
{
    if (m_resourceDir.isEmpty())
        return {};
    for (const auto& preset : listPresets(ss(m_resourceDir))) {
        if (qs(preset.id) == id)
            return qs(preset.path);
    }
    return {};
}

bool MainWindow::openPreset(const QString& id)
{
    return !presetPath(id).isEmpty() && maybeSave() && loadPreset(id);
}

bool MainWindow::loadPreset(const QString& id)
{
    const QString path = presetPath(id);
    if (path.isEmpty())
        return false;
    auto network = loadModelFile(ss(path));
    if (!network) {
        showError(tr("Cannot open the preset"), ErrorText::forUser(network.error()));
        return false;
    }
    // A preset opens as a new, unsaved model: Save asks where to put the copy.
    m_document->resetNetwork(std::move(network).value(), QString());
    startModel();
    return true;
}

bool MainWindow::save()
{
    FieldCommit::flushAll(this);
    if (m_document->filePath().isEmpty())
        return saveAs();
    return saveTo(m_document->filePath());
}

bool MainWindow::saveAs()
{
    FieldCommit::flushAll(this);
    QString suggested = m_document->filePath();
    if (suggested.isEmpty()) {
        QString stem = m_document->displayName();
        stem.replace(QLatin1Char('/'), QLatin1Char('-'));
        const QString imported = m_document->importedFrom();
        const QDir dir(imported.isEmpty() ? m_lastDir : QFileInfo(imported).absolutePath());
        suggested = dir.filePath(stem + QStringLiteral(".json"));
        if (QFileInfo(suggested) == QFileInfo(imported)) // "config" from config.json
            suggested = dir.filePath(stem + QStringLiteral("-headroom.json"));
    }
    const QString path = m_dialogs->saveFileName(this, tr("Save Model As"), suggested, modelFilter());
    if (path.isEmpty())
        return false;
    return saveTo(path);
}

bool MainWindow::saveTo(const QString& path)
{
    const QString imported = m_document->importedFrom();
    if (isOnnxPath(ss(path)) || (!imported.isEmpty() && QFileInfo(path) == QFileInfo(imported))) {
        showError(tr("Cannot save the model"),
            tr("%1 is the file the model was imported from: Headroom saves models as .json files "
               "and leaves it as it is. Choose another name.")
                .arg(QDir::toNativeSeparators(path)));
        return false;
    }
    if (const QDir folder = QFileInfo(path).absoluteDir(); !folder.exists()) {
        showError(tr("Cannot save the model"),
            tr("The folder %1 does not exist. Choose another folder for %2.")
                .arg(QDir::toNativeSeparators(folder.path()), QFileInfo(path).fileName()));
        return false;
    }
    // The set-up goes into the file with the network ("training"): opened again, the plan is as it was.
    const auto saved
        = saveModelFile(m_document->network(), ss(path), trainingSetupToJson(m_document->plan()));
    if (!saved) {
        showError(tr("Cannot save the model"), ErrorText::forUser(saved.error()));
        return false;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_document->markSaved(absolute);
    m_lastDir = QFileInfo(absolute).absolutePath();
    addRecentFile(absolute);
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(absolute)), 5000);
    return true;
}

void MainWindow::exportReport()
{
    FieldCommit::flushAll(this);
    const Plan& plan = m_document->plan();
    QString name
        = tr("%1 - %2 - batch %3.pdf")
              .arg(m_document->network().name.empty() ? m_document->displayName() : qs(plan.network.name),
                  qs(plan.gpu.name))
              .arg(plan.setup.batch);
    name.replace(QLatin1Char('/'), QLatin1Char('-'));
    const QString path = m_dialogs->saveFileName(
        this, tr("Export Report"), QDir(m_lastDir).filePath(name), tr("PDF documents (*.pdf)"));
    if (path.isEmpty())
        return;
    if (const QDir folder = QFileInfo(path).absoluteDir(); !folder.exists()) {
        showError(tr("Cannot export the report"),
            tr("The folder %1 does not exist. Choose another folder for %2.")
                .arg(QDir::toNativeSeparators(folder.path()), QFileInfo(path).fileName()));
        return;
    }
    const PlanResult result = evaluate(plan);
    report::ReportOptions options;
    for (const QString& source : { m_document->filePath(), m_document->importedFrom() }) {
        if (!source.isEmpty())
            options.sources.push_back(QFile::encodeName(source).toStdString());
    }
    if (m_includePlanAction->isChecked()) {
        options.plannerGoal = m_makeItFit->goal();
        if (auto planned = planSetups(plan, options.plannerGoal, m_makeItFit->allowances()))
            options.planner = std::move(planned).value();
    }
    // The cluster's layouts Make It Fit shows, when they answer this plan: the "Cluster layouts" section.
    options.cluster = m_makeItFit->clusterView()->reportable();
    // A measured run open beside the plan: the "Plan and measured run" page, compared with the plan reported.
    if (const auto run = m_runs->sharedRun()) {
        options.measured = report::MeasuredRunReport { run, compareRun(*run, plan, result, m_runs->context()),
            m_runs->context().source };
    }
    const auto written = report::writePdfReport(plan, result, path, options);
    if (!written) {
        showError(tr("Cannot export the report"), ErrorText::printable(written.error().message));
        return;
    }
    statusBar()->showMessage(tr("Report written to %1").arg(QDir::toNativeSeparators(path)), 5000);
}

void MainWindow::exportChartImage()
{
    const Plan& plan = m_document->plan();
    QString name = tr("%1 - %2 - %3.png")
                       .arg(plan.network.name.empty() ? m_document->displayName() : qs(plan.network.name),
                           qs(plan.gpu.name), m_chartView->chartName());
    name.replace(QLatin1Char('/'), QLatin1Char('-'));
    const QString path = m_dialogs->saveFileName(
        this, tr("Export Image"), QDir(m_lastDir).filePath(name), tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    if (!m_chartView->chartImage().save(path, "PNG")) {
        showError(tr("Cannot export the image"),
            tr("%1 could not be written: check that its folder exists and can be written to.")
                .arg(QDir::toNativeSeparators(path)));
        return;
    }
    statusBar()->showMessage(tr("Image written to %1").arg(QDir::toNativeSeparators(path)), 5000);
}

bool MainWindow::maybeSave()
{
    FieldCommit::flushAll(this);
    if (!m_document->isModified())
        return true;
    switch (m_dialogs->askToSave(this, m_document->displayName())) {
    case DialogProvider::SaveChoice::Save:
        return save();
    case DialogProvider::SaveChoice::Discard:
        return true;
    case DialogProvider::SaveChoice::Cancel:
        return false;
    }
    return false;
}

void MainWindow::loadDefault()
{
    if (!loadPreset(kDefaultPreset))
        newDocument();
}

void MainWindow::updateTitle()
{
    const QString imported = m_document->importedFrom();
    if (imported.isEmpty())
        setWindowTitle(tr("%1[*] — Headroom").arg(m_document->displayName()));
    else
        setWindowTitle(tr("%1 (imported from %2)[*] — Headroom")
                           .arg(m_document->displayName(), QFileInfo(imported).fileName()));
    setWindowModified(m_document->isModified());
    setWindowFilePath(m_document->filePath());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    FieldCommit::flushAll(this);
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    saveSettings();
    event->accept();
}

void MainWindow::showAbout()
{
    m_dialogs->showAbout(this, tr("About Headroom"),
        tr("<h3>Headroom %1</h3><p>Plans GPU memory for deep-learning training: build or open a network, "
           "pick a GPU "
           "and see the largest batch that fits.</p><p>Estimates follow PyTorch's memory behaviour; see the "
           "user guide "
           "for the assumptions.</p>")
            .arg(QStringLiteral(HEADROOM_VERSION)));
}

void MainWindow::requestCustomGpu()
{
    // On a custom GPU the dialog edits it (a new name makes another); on the catalogue's, it starts anew.
    const Gpu& current = m_document->plan().gpu;
    auto gpu = m_dialogs->customGpu(this, current.custom ? std::optional(current) : std::nullopt);
    if (!gpu)
        return;
    gpu->vendor = ss(tr("Custom"));
    gpu->family = ss(tr("Custom"));
    m_setupPanel->addCustomGpu(*gpu);
    m_compareView->setGpus(m_setupPanel->catalog().gpus());
}

} // namespace headroom::ui
