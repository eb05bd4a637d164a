// MainWindow's menus and the recent-files list (the rest of MainWindow is in MainWindow.cpp).
#include "DialogProvider.h"
#include "Document.h"
#include "FieldCommit.h"
#include "LanguageMenu.h"
#include "LayerEditor.h"
#include "MainWindow.h"
#include "QtText.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Resources.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>

namespace headroom::ui {

namespace {

constexpr int kMaxRecentFiles = 8;

/// `standard`'s platform keys, with `fallback` first where the platform has it (or none at all).
QList<QKeySequence> keysFor(QKeySequence::StandardKey standard, const QKeySequence& fallback)
{
    QList<QKeySequence> keys = QKeySequence::keyBindings(standard);
    if (!keys.contains(fallback))
        keys.prepend(fallback);
    return keys;
}

/// An action named `name` (tests find it by that) in `menu`, running `slot` in `window`.
template <typename Slot>
QAction* menuAction(MainWindow* window, QMenu* menu, const QString& text, const QString& name,
    const QKeySequence& key, Slot slot)
{
    QAction* a = menu->addAction(text);
    a->setObjectName(name);
    a->setShortcut(key);
    QObject::connect(a, &QAction::triggered, window, slot);
    return a;
}

} // namespace

void MainWindow::createMenus()
{
    createFileMenu();
    createEditMenu();
    QMenu* layer = menuBar()->addMenu(tr("&Layer"));
    layer->setObjectName(QStringLiteral("layerMenu"));
    layer->addMenu(m_layerEditor->addLayerMenu());
    layer->addSeparator();
    layer->addActions(m_layerEditor->editActions());
    createPlanMenu();
    createViewMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("fileMenu"));
    menuAction(this, file, tr("&New"), QStringLiteral("newAction"), QKeySequence::New, [this] {
        if (maybeSave())
            newDocument();
    });
    menuAction(this, file, tr("&Open..."), QStringLiteral("openAction"), QKeySequence::Open,
        [this] { askToOpen(); });
    QAction* import = menuAction(this, file, tr("&Import..."), QStringLiteral("importAction"),
        QKeySequence(Qt::CTRL | Qt::Key_I), [this] { importModel(); });
    import->setStatusTip(tr("Opens an ONNX model or a Hugging Face config.json as a new Headroom model"));
    QAction* openRun
        = menuAction(this, file, tr("Open &Measured Run..."), QStringLiteral("openMeasuredRunAction"),
            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), [this] { askToOpenMeasuredRun(); });
    openRun->setStatusTip(tr("Opens a PyTorch memory snapshot or profiler export beside the plan"));
    m_closeRunAction = menuAction(this, file, tr("&Close Measured Run"),
        QStringLiteral("closeMeasuredRunAction"), QKeySequence(), [this] { closeMeasuredRun(); });
    m_closeRunAction->setEnabled(false);
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
    menuAction(this, file, tr("&Save"), QStringLiteral("saveAction"), QKeySequence::Save, [this] { save(); });
    QAction* saveAsAction = menuAction(
        this, file, tr("Save &As..."), QStringLiteral("saveAsAction"), QKeySequence(), [this] { saveAs(); });
    saveAsAction->setShortcuts(keysFor(QKeySequence::SaveAs, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
    menuAction(this, file, tr("&Export Report..."), QStringLiteral("exportReportAction"),
        QKeySequence(Qt::CTRL | Qt::Key_E), [this] { exportReport(); });
    file->addSeparator();
    QAction* quit = menuAction(
        this, file, tr("&Quit"), QStringLiteral("quitAction"), QKeySequence::Quit, [this] { close(); });
    quit->setMenuRole(QAction::QuitRole);
}

void MainWindow::createEditMenu()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("editMenu"));
    // What a field holds typed but not yet committed is committed first, so Undo takes back exactly
    // the change the user just made.
    QUndoStack* stack = m_document->undoStack();
    QAction* undo = menuAction(this, edit, tr("&Undo"), QStringLiteral("undoAction"), QKeySequence(), [this] {
        FieldCommit::flushAll(this);
        m_document->undoStack()->undo();
    });
    undo->setShortcuts(keysFor(QKeySequence::Undo, QKeySequence(Qt::CTRL | Qt::Key_Z)));
    QAction* redo = menuAction(this, edit, tr("&Redo"), QStringLiteral("redoAction"), QKeySequence(), [this] {
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
}

void MainWindow::createPlanMenu()
{
    QMenu* planMenu = menuBar()->addMenu(tr("&Plan"));
    planMenu->setObjectName(QStringLiteral("planMenu"));
    const auto showDock = [this](const QString& name) {
        if (auto* d = findChild<QDockWidget*>(name)) {
            d->show();
            d->raise();
        }
    };
    QAction* fit = menuAction(this, planMenu, tr("Make It &Fit..."), QStringLiteral("makeItFitAction"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
        [showDock] { showDock(QStringLiteral("makeItFitDock")); });
    fit->setStatusTip(tr("The set-ups that fit the GPU and reach a batch, fastest first"));
    QAction* compare = menuAction(this, planMenu, tr("&Compare GPUs..."), QStringLiteral("compareGpusAction"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G),
        [showDock] { showDock(QStringLiteral("compareGpusDock")); });
    compare->setStatusTip(tr("This set-up on every GPU of the catalogue"));
    planMenu->addSeparator();
    m_includePlanAction = planMenu->addAction(tr("&Include Set-ups in Reports"));
    m_includePlanAction->setObjectName(QStringLiteral("includePlanInReportAction"));
    m_includePlanAction->setCheckable(true);
    m_includePlanAction->setStatusTip(tr("Exported reports add the Make It Fit table for the panel's goal"));
}

void MainWindow::createViewMenu()
{
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    auto* language = new LanguageMenu(view);
    view->addMenu(language);
    connect(language, &LanguageMenu::languageChosen, this,
        [this](const QString& note) { statusBar()->showMessage(note, 15000); });
}

void MainWindow::createHelpMenu()
{
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction* guide = menuAction(this, help, tr("&User Guide"), QStringLiteral("userGuideAction"),
        QKeySequence::HelpContents, [this] { showUserGuide(); });
    guide->setStatusTip(tr("Opens the user guide installed with Headroom"));
    help->addSeparator();
    QAction* about = menuAction(this, help, tr("&About Headroom"), QStringLiteral("aboutAction"),
        QKeySequence(), [this] { showAbout(); });
    about->setMenuRole(QAction::AboutRole);
    QAction* aboutQt = help->addAction(tr("About &Qt"));
    aboutQt->setObjectName(QStringLiteral("aboutQtAction"));
    aboutQt->setMenuRole(QAction::AboutQtRole);
    connect(aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
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
        QAction* a
            = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
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

} // namespace headroom::ui
