#include "MainWindow.h"

#include "BatchPanel.h"
#include "DialogProvider.h"
#include "Document.h"
#include "ErrorText.h"
#include "FieldCommit.h"
#include "GpuCompareView.h"
#include "GpuSelector.h"
#include "LanguageMenu.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MakeItFitPanel.h"
#include "MemoryChartView.h"
#include "PlanController.h"
#include "PropertyPanel.h"
#include "QtText.h"
#include "SetupPanel.h"
#include "UiText.h"
#include "WarningBanner.h"
#include "WindowShortcuts.h"

#include "ReportWriter.h"

#include "headroom/HfConfig.h"
#include "headroom/ModelFile.h"
#include "headroom/NetworkFile.h"
#include "headroom/Resources.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QGroupBox>
#include <QRegularExpression>
#include <QScreen>
#include <QUrl>
#include <QMenuBar>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>

#include <bit>

namespace headroom::ui {

namespace {

constexpr int kMaxRecentFiles = 8;
constexpr std::int64_t kDefaultBatch = 32;
constexpr QSize kPreferredSize{1480, 920};
const QString kDefaultPreset = QStringLiteral("vgg16");
const QString kDefaultGpu = QStringLiteral("GTX 1080");

QString modelFilter() { return MainWindow::tr("Headroom models (*.json);;All files (*)"); }
QString openFilter()
{
    return MainWindow::tr("Models (*.json *.onnx);;Headroom models (*.json);;ONNX models (*.onnx);;"
                          "Hugging Face configs (config.json);;All files (*)");
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
    for (const QString& candidate : {exe.filePath(QStringLiteral("../share/doc/headroom")),
                                     QStringLiteral(HEADROOM_SOURCE_RESOURCES_DIR "/../docs")}) {
        if (QFileInfo::exists(QDir(candidate).filePath(QStringLiteral("user-guide.md"))))
            return QDir::cleanPath(QDir(candidate).absolutePath());
    }
    return {};
}

/// `standard`'s platform keys, with `fallback` first where the platform has it (or none at all).
QList<QKeySequence> keysFor(QKeySequence::StandardKey standard, const QKeySequence& fallback)
{
    QList<QKeySequence> keys = QKeySequence::keyBindings(standard);
    if (!keys.contains(fallback))
        keys.prepend(fallback);
    return keys;
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_dialogs{std::make_unique<DialogProvider>()},
      m_document{new Document(this)},
      m_controller{new PlanController(m_document, this)}
{
    setObjectName(QStringLiteral("mainWindow"));
    m_controller->setObjectName(QStringLiteral("planController"));
    m_document->setObjectName(QStringLiteral("document"));

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
    mainSplitter->setSizes({720, 720});
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    auto* warnings = new WarningBanner(central);
    warnings->setObjectName(QStringLiteral("warningBanner"));
    centralLayout->addWidget(warnings);
    centralLayout->addWidget(mainSplitter, 1);
    setCentralWidget(central);
    connect(m_controller, &PlanController::analysisChanged, warnings, &WarningBanner::setAnalysis);
    warnings->setAnalysis(m_controller->analysis());

    connect(m_controller, &PlanController::analysisChanged, m_layerEditor->model(), &LayerTableModel::setAnalysis);
    connect(m_controller, &PlanController::estimateChanged, m_batchPanel, &BatchPanel::setEstimate);
    connect(m_controller, &PlanController::analysisChanged, m_batchPanel, &BatchPanel::setAnalysis);
    connect(m_controller, &PlanController::estimateChanged, m_setupPanel, &SetupPanel::setEstimate);
    connect(m_controller, &PlanController::estimateChanged, m_chartView, &MemoryChartView::setEstimate);
    connect(m_controller, &PlanController::chartDataChanged, m_chartView, &MemoryChartView::setData);
    connect(m_controller, &PlanController::stepChartChanged, m_chartView, &MemoryChartView::setStepData);
    connect(m_layerEditor, &LayerEditor::currentIndexChanged, m_propertyPanel, &PropertyPanel::setCurrentIndex);
    connect(m_setupPanel, &SetupPanel::customGpuRequested, this, &MainWindow::requestCustomGpu);
    connect(m_document, &Document::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::headerChanged, this, &MainWindow::updateTitle);

    // Wrapped lines (the throughput caveats) grow with the results: keep room for them at the
    // window's minimum size.
    connect(m_controller, &PlanController::estimateChanged, this, &MainWindow::keepFiguresReadable, Qt::QueuedConnection);

    m_layerEditor->model()->setAnalysis(m_controller->analysis());
    m_chartView->setData(m_controller->chartData());
    m_chartView->setStepData(m_controller->stepChartData());
    m_batchPanel->setAnalysis(m_controller->analysis());
    m_batchPanel->setEstimate(m_controller->estimateState());
    m_setupPanel->setEstimate(m_controller->estimateState());

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

    m_lastDir = DialogProvider::existingFolder(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation));
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

MainWindow::~MainWindow() = default;

void MainWindow::setDialogProvider(std::unique_ptr<DialogProvider> dialogs) { m_dialogs = std::move(dialogs); }

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

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("fileMenu"));
    const auto add = [this](QMenu* menu, const QString& text, const QString& name, const QKeySequence& key, auto slot) {
        QAction* a = menu->addAction(text);
        a->setObjectName(name);
        a->setShortcut(key);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    add(file, tr("&New"), QStringLiteral("newAction"), QKeySequence::New, [this] {
        if (maybeSave())
            newDocument();
    });
    add(file, tr("&Open..."), QStringLiteral("openAction"), QKeySequence::Open, [this] {
        if (!maybeSave())
            return;
        const QString path = m_dialogs->openFileName(this, tr("Open Model"), m_lastDir, openFilter());
        if (!path.isEmpty())
            loadFile(path);
    });
    QAction* import = add(file, tr("&Import..."), QStringLiteral("importAction"), QKeySequence(Qt::CTRL | Qt::Key_I),
                          [this] { importModel(); });
    import->setStatusTip(tr("Opens an ONNX model or a Hugging Face config.json as a new Headroom model"));
    m_presetMenu = file->addMenu(tr("Open &Preset"));
    m_presetMenu->setObjectName(QStringLiteral("presetMenu"));
    if (!m_resourceDir.isEmpty()) {
        for (const auto& preset : listPresets(ss(m_resourceDir))) {
            const QString id = qs(preset.id);
            QString title = id;
            if (auto net = loadModelFile(preset.path); net && !net->name.empty())
                title = qs(net->name);
            QAction* a = m_presetMenu->addAction(title);
            a->setObjectName(QStringLiteral("preset_") + id + QStringLiteral("Action"));
            connect(a, &QAction::triggered, this, [this, id] { openPreset(id); });
        }
    }
    m_presetMenu->setEnabled(!m_presetMenu->isEmpty());
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentFilesMenu"));
    updateRecentFilesMenu();
    file->addSeparator();
    add(file, tr("&Save"), QStringLiteral("saveAction"), QKeySequence::Save, [this] { save(); });
    QAction* saveAsAction = add(file, tr("Save &As..."), QStringLiteral("saveAsAction"), QKeySequence(), [this] { saveAs(); });
    saveAsAction->setShortcuts(keysFor(QKeySequence::SaveAs, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
    add(file, tr("&Export Report..."), QStringLiteral("exportReportAction"), QKeySequence(Qt::CTRL | Qt::Key_E),
        [this] { exportReport(); });
    file->addSeparator();
    QAction* quit = add(file, tr("&Quit"), QStringLiteral("quitAction"), QKeySequence::Quit, [this] { close(); });
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("editMenu"));
    // What a field holds typed but not yet committed is committed first, so Undo takes back exactly
    // the change the user just made.
    QUndoStack* stack = m_document->undoStack();
    QAction* undo = add(edit, tr("&Undo"), QStringLiteral("undoAction"), QKeySequence(), [this] {
        FieldCommit::flushAll(this);
        m_document->undoStack()->undo();
    });
    undo->setShortcuts(keysFor(QKeySequence::Undo, QKeySequence(Qt::CTRL | Qt::Key_Z)));
    QAction* redo = add(edit, tr("&Redo"), QStringLiteral("redoAction"), QKeySequence(), [this] {
        FieldCommit::flushAll(this);
        m_document->undoStack()->redo();
    });
    redo->setShortcuts(keysFor(QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    const auto follow = [stack](QAction* action, bool isUndo) {
        const auto update = [stack, action, isUndo] {
            const QString what = isUndo ? stack->undoText() : stack->redoText();
            action->setEnabled(isUndo ? stack->canUndo() : stack->canRedo());
            action->setText(what.isEmpty() ? (isUndo ? tr("&Undo") : tr("&Redo"))
                                           : (isUndo ? tr("&Undo %1") : tr("&Redo %1")).arg(what));
        };
        connect(stack, &QUndoStack::indexChanged, action, update);
        connect(stack, &QUndoStack::cleanChanged, action, update);
        update();
    };
    follow(undo, true);
    follow(redo, false);

    QMenu* layer = menuBar()->addMenu(tr("&Layer"));
    layer->setObjectName(QStringLiteral("layerMenu"));
    layer->addMenu(m_layerEditor->addLayerMenu());
    layer->addSeparator();
    layer->addActions(m_layerEditor->editActions());

    QMenu* planMenu = menuBar()->addMenu(tr("&Plan"));
    planMenu->setObjectName(QStringLiteral("planMenu"));
    const auto showDock = [this](const QString& name) {
        if (auto* d = findChild<QDockWidget*>(name)) {
            d->show();
            d->raise();
        }
    };
    QAction* fit = add(planMenu, tr("Make It &Fit..."), QStringLiteral("makeItFitAction"),
                       QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F), [showDock] { showDock(QStringLiteral("makeItFitDock")); });
    fit->setStatusTip(tr("The set-ups that fit the GPU and reach a batch, fastest first"));
    QAction* compare = add(planMenu, tr("&Compare GPUs..."), QStringLiteral("compareGpusAction"),
                           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G), [showDock] { showDock(QStringLiteral("compareGpusDock")); });
    compare->setStatusTip(tr("This set-up on every GPU of the catalogue"));
    planMenu->addSeparator();
    m_includePlanAction = planMenu->addAction(tr("&Include Set-ups in Reports"));
    m_includePlanAction->setObjectName(QStringLiteral("includePlanInReportAction"));
    m_includePlanAction->setCheckable(true);
    m_includePlanAction->setStatusTip(tr("Exported reports add the Make It Fit table for the panel's goal"));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    auto* language = new LanguageMenu(view);
    view->addMenu(language);
    connect(language, &LanguageMenu::languageChosen, this, [this](const QString& note) { statusBar()->showMessage(note, 15000); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction* guide = add(help, tr("&User Guide"), QStringLiteral("userGuideAction"), QKeySequence::HelpContents,
                         [this] { showUserGuide(); });
    guide->setStatusTip(tr("Opens the user guide installed with Headroom"));
    help->addSeparator();
    QAction* about = add(help, tr("&About Headroom"), QStringLiteral("aboutAction"), QKeySequence(), [this] { showAbout(); });
    about->setMenuRole(QAction::AboutRole);
    QAction* aboutQt = help->addAction(tr("About &Qt"));
    aboutQt->setObjectName(QStringLiteral("aboutQtAction"));
    aboutQt->setMenuRole(QAction::AboutQtRole);
    connect(aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
}

void MainWindow::newDocument()
{
    Network network;
    network.name = ss(tr("Untitled"));
    network.input.shape.dims = {3, 224, 224};
    m_document->resetNetwork(std::move(network), QString());
    startModel();
}

bool MainWindow::openFile(const QString& path) { return maybeSave() && loadFile(path); }

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
    Result<Network> network = imported ? loadNetworkFile(ss(path)) : loadModelFile(ss(path));
    if (!network && !imported) {
        // A Hugging Face config under another name, or what the file was taken for and why not.
        auto other = loadNetworkFile(ss(path));
        imported = other.ok();
        network = std::move(other);
    }
    if (!network) {
        showError(imported ? tr("Cannot import the model") : tr("Cannot open the model"),
                  ErrorText::forUser(network.error()));
        return false;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (imported) {
        m_document->resetNetwork(std::move(network).value(), QString(), absolute);
        statusBar()->showMessage(tr("Imported %1").arg(QDir::toNativeSeparators(absolute)), 5000);
    } else {
        m_document->resetNetwork(std::move(network).value(), absolute);
    }
    m_lastDir = QFileInfo(absolute).absolutePath();
    addRecentFile(absolute);
    startModel();
    return true;
}

void MainWindow::startModel()
{
    m_layerEditor->selectPath({0});
    const auto& state = m_controller->estimateState();
    if (!state.estimate)
        return;
    const std::int64_t max = state.estimate->maxBatch;
    const std::int64_t batch = m_document->plan().setup.batch;
    if (batch <= max)
        return; // it fits: the user's choice stays
    // The batch of the previous model does not fit this one: the default, or the largest power of
    // two that fits (1 when nothing does: the summary then says by how much).
    m_document->resetBatch(max <= 0 ? 1 : std::min(kDefaultBatch, static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(max)))));
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
        const int needed = w->hasHeightForWidth() ? w->heightForWidth(width) : -1;
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
    static const QRegularExpression page{QStringLiteral(R"((?<![\w./\\-])docs/([A-Za-z0-9_.-]+\.md)\b)")};
    for (auto m = page.match(text); m.hasMatch();) {
        const QString installed = m_docDir.isEmpty() ? QString() : QDir(m_docDir).filePath(m.captured(1));
        const QString where = QFileInfo::exists(installed) ? QDir::toNativeSeparators(installed)
                                                           : tr("%1 in the documentation (Help > User Guide)").arg(m.captured(1));
        text.replace(m.capturedStart(), m.capturedLength(), where);
        m = page.match(text, m.capturedStart() + where.size());
    }
    m_dialogs->showError(this, title, text);
}

void MainWindow::showUserGuide()
{
    const QString guide = m_docDir.isEmpty() ? QString() : QDir(m_docDir).filePath(QStringLiteral("user-guide.md"));
    if (guide.isEmpty() || !QFileInfo::exists(guide)) {
        showError(tr("Cannot open the user guide"),
                  tr("The documentation is not installed next to Headroom (it belongs in %1).")
                      .arg(QDir::toNativeSeparators(QDir::cleanPath(
                          QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/doc/headroom"))))));
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

bool MainWindow::openPreset(const QString& id) { return !presetPath(id).isEmpty() && maybeSave() && loadPreset(id); }

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
    const auto saved = saveModelFile(m_document->network(), ss(path));
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
    QString name = tr("%1 - %2 - batch %3.pdf")
                       .arg(m_document->network().name.empty() ? m_document->displayName() : qs(plan.network.name),
                            qs(plan.gpu.name))
                       .arg(plan.setup.batch);
    name.replace(QLatin1Char('/'), QLatin1Char('-'));
    const QString path = m_dialogs->saveFileName(this, tr("Export Report"), QDir(m_lastDir).filePath(name),
                                                 tr("PDF documents (*.pdf)"));
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
    if (m_includePlanAction->isChecked()) {
        options.plannerGoal = m_makeItFit->goal();
        if (auto planned = planSetups(plan, options.plannerGoal, m_makeItFit->allowances()))
            options.planner = std::move(planned).value();
    }
    const auto written = report::writePdfReport(plan, result, path, options);
    if (!written) {
        showError(tr("Cannot export the report"), ErrorText::printable(written.error().message));
        return;
    }
    statusBar()->showMessage(tr("Report written to %1").arg(QDir::toNativeSeparators(path)), 5000);
}

bool MainWindow::maybeSave()
{
    FieldCommit::flushAll(this);
    if (!m_document->isModified())
        return true;
    switch (m_dialogs->askToSave(this, m_document->displayName())) {
    case DialogProvider::SaveChoice::Save: return save();
    case DialogProvider::SaveChoice::Discard: return true;
    case DialogProvider::SaveChoice::Cancel: return false;
    }
    return false;
}

void MainWindow::loadDefault()
{
    if (!loadPreset(kDefaultPreset))
        newDocument();
}

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(QStringLiteral("recentFiles")).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), files);
    updateRecentFilesMenu();
}

void MainWindow::updateRecentFilesMenu()
{
    m_recentMenu->clear();
    const QStringList files = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (qsizetype i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction* a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
        a->setToolTip(QDir::toNativeSeparators(path));
        a->setStatusTip(QDir::toNativeSeparators(path));
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        QAction* clear = m_recentMenu->addAction(tr("Clear Recent Files"));
        connect(clear, &QAction::triggered, this, [this] {
            QSettings().remove(QStringLiteral("recentFiles"));
            updateRecentFilesMenu();
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
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

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        fitToScreen();
    if (auto* s = findChild<QSplitter*>(QStringLiteral("mainSplitter")))
        s->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
    if (auto* s = findChild<QSplitter*>(QStringLiteral("editorSplitter")))
        s->restoreState(settings.value(QStringLiteral("window/editorSplitter")).toByteArray());

    const GpuCatalog& catalog = m_setupPanel->catalog();
    Gpu gpu;
    auto remembered = catalog.find(ss(settings.value(QStringLiteral("setup/gpu")).toString()));
    if (!remembered)
        remembered = catalog.find(ss(kDefaultGpu));
    if (remembered) {
        gpu = remembered.value();
    } else if (!catalog.gpus().empty()) {
        gpu = catalog.gpus().front();
    } else {
        gpu.name = "8 GiB GPU";
        gpu.memoryBytes = 8 * kGiB;
        gpu.custom = true;
    }
    TrainingSetup setup;
    setup.optimizer = parseOptimizer(ss(settings.value(QStringLiteral("setup/optimizer")).toString())).value_or(Optimizer::Adam);
    setup.optimizerImplementation
        = parseOptimizerImplementation(ss(settings.value(QStringLiteral("setup/optimizerImplementation")).toString()))
              .value_or(OptimizerImplementation::Foreach);
    if (setup.optimizerImplementation == OptimizerImplementation::Fused && !hasFusedImplementation(setup.optimizer))
        setup.optimizerImplementation = OptimizerImplementation::Foreach;
    setup.batch = settings.value(QStringLiteral("setup/batch"), 32).toLongLong();
    setup.overheadBytes = settings.value(QStringLiteral("setup/overheadBytes"), QVariant::fromValue<qulonglong>(kDefaultOverheadBytes))
                              .toULongLong();
    const Precision precision
        = parsePrecision(ss(settings.value(QStringLiteral("setup/precision")).toString())).value_or(Precision::Fp32);
    m_document->resetSetup(precision, setup, gpu);
}

QSize MainWindow::firstWindowSize(const QSize& available, const QSize& minimum)
{
    // A little room for the window frame and the desktop's panels.
    const QSize room(available.width() * 95 / 100, available.height() * 92 / 100);
    return kPreferredSize.boundedTo(room).expandedTo(minimum);
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
    settings.setValue(QStringLiteral("setup/overheadBytes"), QVariant::fromValue<qulonglong>(plan.setup.overheadBytes));
    QStringList custom;
    for (const auto& g : m_setupPanel->catalog().gpus()) {
        if (g.custom)
            custom << qs(g.name) + QLatin1Char('\t') + QString::number(g.memoryBytes);
    }
    settings.setValue(QStringLiteral("customGpus"), custom);
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
    m_dialogs->showAbout(
        this, tr("About Headroom"),
        tr("<h3>Headroom %1</h3><p>Plans GPU memory for deep-learning training: build or open a network, pick a GPU "
           "and see the largest batch that fits.</p><p>Estimates follow PyTorch's memory behaviour; see the user guide "
           "for the assumptions.</p>")
            .arg(QStringLiteral(HEADROOM_VERSION)));
}

void MainWindow::requestCustomGpu()
{
    const auto custom = m_dialogs->customGpu(this);
    if (!custom)
        return;
    Gpu gpu;
    gpu.name = ss(custom->name);
    gpu.vendor = ss(tr("Custom"));
    gpu.family = ss(tr("Custom"));
    gpu.memoryBytes = custom->memoryBytes;
    m_setupPanel->addCustomGpu(gpu);
    m_compareView->setGpus(m_setupPanel->catalog().gpus());
}

} // namespace headroom::ui
