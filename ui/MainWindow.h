#pragma once

#include "headroom/estimate/RunComparison.h"
#include "headroom/model/Network.h"
#include "headroom/setup/GpuCatalog.h"

#include <QMainWindow>
#include <memory>
#include <optional>

class QAction;
class QMenu;

namespace headroom::ui {

class BatchPanel;
class DialogProvider;
class Document;
class GpuCompareView;
class MakeItFitPanel;
class LayerEditor;
class MeasuredRunPanel;
class PipelineStagesView;
class MemoryChartView;
class PlanController;
class PropertyPanel;
class RunController;
class SetupPanel;

/// The main window: the layer editor and property panel on the left; the set-up, the batch size
/// with its figures, and the charts on the right. Owns the Document and the PlanController.
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Replaces how the window asks questions (tests answer them without dialogs).
    void setDialogProvider(std::unique_ptr<DialogProvider> dialogs);

    [[nodiscard]] Document* document() const noexcept { return m_document; }
    [[nodiscard]] PlanController* controller() const noexcept { return m_controller; }
    [[nodiscard]] LayerEditor* layerEditor() const noexcept { return m_layerEditor; }
    [[nodiscard]] PropertyPanel* propertyPanel() const noexcept { return m_propertyPanel; }
    [[nodiscard]] SetupPanel* setupPanel() const noexcept { return m_setupPanel; }
    [[nodiscard]] MemoryChartView* chartView() const noexcept { return m_chartView; }
    /// Plan > Make It Fit: the planner's set-ups for the open plan (a dock, hidden until asked for).
    [[nodiscard]] MakeItFitPanel* makeItFitPanel() const noexcept { return m_makeItFit; }
    /// Plan > Compare GPUs: the set-up on every GPU (a dock, hidden until asked for).
    [[nodiscard]] GpuCompareView* gpuCompareView() const noexcept { return m_compareView; }
    /// The measured run open beside the plan (issue 36), and its "Measured run" tab beside the charts.
    [[nodiscard]] RunController* runController() const noexcept { return m_runs; }
    [[nodiscard]] MeasuredRunPanel* measuredRunPanel() const noexcept { return m_runPanel; }
    /// The pipeline's stages: a tab of the charts while the plan has a pipeline.
    [[nodiscard]] PipelineStagesView* pipelineStagesView() const noexcept { return m_stagesView; }
    /// Where presets and the GPU catalogue were found (empty if nowhere).
    [[nodiscard]] QString resourceDir() const { return m_resourceDir; }

    // File operations; each asks about unsaved changes first where it replaces the network.
    void newDocument();
    /// Opens a Headroom model file, an ONNX model or a Hugging Face config.json (through the core's
    /// loadNetworkFile); an imported model is saved to a new .json file, never over its source.
    bool openFile(const QString& path);
    /// File > Import: asks for an ONNX model or a Hugging Face config.json and opens it.
    void importModel();
    bool openPreset(const QString& id);
    /// Opens a PyTorch memory snapshot (pickle, JSON, memory_viz page) or profiler export beside the plan:
    /// read off the GUI thread, then asks the run's batch and precision (the file does not record them).
    /// Errors go to the error dialog. False when it was not opened.
    bool openMeasuredRun(const QString& path);
    /// The same with the run's set-up given (no question).
    bool openMeasuredRun(const QString& path, const RunContext& context);
    void closeMeasuredRun();
    /// A file dropped on the window: a model opens as a model (File > Open), anything else is tried as a
    /// measured run.
    bool openDroppedFile(const QString& path);
    bool save();
    bool saveAs();
    void exportReport();
    /// The chart's Export Image: asks for a .png file and writes the chart shown to it.
    void exportChartImage();
    /// The start-up state: the remembered set-up (or VGG-16 on a GTX 1080, Adam, FP32, batch 32).
    void loadDefault();
    /// Asks to save unsaved changes; false if the user cancelled.
    bool maybeSave();
    /// Help > User Guide: opens the installed copy of docs/user-guide.md.
    void showUserGuide();
    /// Where the documentation was found (share/doc/headroom next to the executable, or the source
    /// tree's docs/ in a build); empty if nowhere.
    [[nodiscard]] QString docDir() const { return m_docDir; }
    /// The size the window first opens at on a screen with `available` space: the preferred size,
    /// or less to fit (never below `minimum`, the size below which labels would be cut).
    [[nodiscard]] static QSize firstWindowSize(const QSize& available, const QSize& minimum);
    /// A remembered window `geometry` (without its frame) moved and shrunk into the `available` screen
    /// area, keeping `titleBar` pixels above it on screen: a window saved on a larger screen, or
    /// above this one, comes back whole and draggable (never smaller than `minimum`, which the
    /// layouts need to read).
    [[nodiscard]] static QRect keptOnScreen(
        const QRect& geometry, const QRect& available, const QSize& minimum, int titleBar);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createViews();
    void layOutViews();
    /// The controller's results to the views that show them, the document's changes to the title.
    void connectViews();
    void createDocks();
    void createMenus(); // MainWindowMenus.cpp
    void createFileMenu();
    void createEditMenu();
    void createPlanMenu();
    void createViewMenu();
    void createHelpMenu();
    /// File > Open: asks about unsaved changes, then for the file.
    void askToOpen();
    /// File > Open Measured Run: asks for the file.
    void askToOpenMeasuredRun();
    /// A run read (or why not) opened beside the plan; `context` nullopt: asked.
    bool openReadRun(Result<MeasuredRun> run, const QString& path, std::optional<RunContext> context);
    /// The run's comparison to the step chart and the "Measured run" tab (shown only with a run open).
    void showMeasuredRun();
    /// The pipeline stages' tab, there only while the plan has stages, and its table.
    void showPipelineStages();
    void loadCatalog(); // MainWindowSettings.cpp
    bool loadFile(const QString& path);
    bool loadPreset(const QString& id);
    bool saveTo(const QString& path);
    /// After New, Open, Import or a preset: select the first layer, and bring a batch that does not
    /// fit the new model down to one that does, unless it comes from the file's `savedSetup`.
    void startModel(bool savedSetup = false);
    /// An imported model with a long context at the length the user trains at (asked).
    [[nodiscard]] Network askTrainingLength(Network network);
    /// An error dialog; paths into the documentation ("docs/onnx-import.md") point at the copy
    /// installed with Headroom.
    void showError(const QString& title, const QString& message);
    void fitToScreen();
    void keepFiguresReadable();
    void addRecentFile(const QString& path);
    void updateRecentFilesMenu();
    void updateTitle();
    void restoreSettings(); // MainWindowSettings.cpp
    void saveSettings() const;
    void showAbout();
    void requestCustomGpu();
    [[nodiscard]] QString presetPath(const QString& id) const;

    std::unique_ptr<DialogProvider> m_dialogs;
    Document* m_document;
    PlanController* m_controller;
    LayerEditor* m_layerEditor;
    PropertyPanel* m_propertyPanel;
    SetupPanel* m_setupPanel;
    BatchPanel* m_batchPanel;
    MemoryChartView* m_chartView;
    MakeItFitPanel* m_makeItFit;
    GpuCompareView* m_compareView;
    RunController* m_runs = nullptr;
    MeasuredRunPanel* m_runPanel = nullptr;
    PipelineStagesView* m_stagesView = nullptr;
    QAction* m_closeRunAction = nullptr;
    QAction* m_includePlanAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_presetMenu = nullptr;
    QString m_resourceDir;
    QString m_docDir;
    QString m_lastDir;
};

} // namespace headroom::ui
