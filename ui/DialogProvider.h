#pragma once

#include "headroom/setup/GpuCatalog.h"
#include "headroom/setup/Precision.h"

#include <QCoreApplication>
#include <QString>
#include <cstdint>
#include <optional>

class QUrl;
class QWidget;

namespace headroom::ui {

/// Every modal question the GUI asks goes through here, so tests can answer without a dialog
/// (install a subclass with MainWindow::setDialogProvider).
class DialogProvider
{
    Q_DECLARE_TR_FUNCTIONS(headroom::ui::DialogProvider)

public:
    enum class SaveChoice { Save, Discard, Cancel };

    DialogProvider() = default;
    DialogProvider(const DialogProvider&) = delete;
    DialogProvider& operator=(const DialogProvider&) = delete;
    virtual ~DialogProvider();

    /// `folder` if it exists, else the nearest folder above it that does (else the home folder): a
    /// file dialog given a folder that does not exist takes its last part for a file name.
    [[nodiscard]] static QString existingFolder(const QString& folder);

    /// An empty string when cancelled.
    [[nodiscard]] virtual QString openFileName(
        QWidget* parent, const QString& caption, const QString& dir, const QString& filter);
    [[nodiscard]] virtual QString saveFileName(
        QWidget* parent, const QString& caption, const QString& path, const QString& filter);
    [[nodiscard]] virtual SaveChoice askToSave(QWidget* parent, const QString& documentName);
    virtual void showError(QWidget* parent, const QString& title, const QString& message);
    virtual void showAbout(QWidget* parent, const QString& title, const QString& text);
    /// Asks for a user-defined GPU (CustomGpuDialog: its name, memory and optional figures), starting
    /// from `start` (nullopt: a new one); nullopt when cancelled.
    [[nodiscard]] virtual std::optional<Gpu> customGpu(QWidget* parent, const std::optional<Gpu>& start);
    /// Asks the sequence length to train an imported model at (`suggested` tokens to start with; the
    /// model takes up to `longest`); nullopt when cancelled (the import keeps `suggested`).
    [[nodiscard]] virtual std::optional<std::int64_t> trainingSequenceLength(
        QWidget* parent, const QString& modelName, std::int64_t suggested, std::int64_t longest);
    /// What the user says about a measured run's set-up (the file does not record it): its micro-batch
    /// and precision, or nothing (nullopt fields) to assume the plan's.
    struct RunSetup
    {
        std::optional<std::int64_t> batch;
        std::optional<Precision> precision;
    };
    /// Asks the micro-batch and precision `fileName` was recorded at, the plan's to start with; nullopt
    /// when cancelled (the run is not opened).
    [[nodiscard]] virtual std::optional<RunSetup> measuredRunSetup(
        QWidget* parent, const QString& fileName, std::int64_t planBatch, Precision planPrecision);
    /// Opens a document (the user guide) in the desktop's viewer; false if none could.
    virtual bool openUrl(const QUrl& url);
};

} // namespace headroom::ui
