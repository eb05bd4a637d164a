#include "ReportWriter.h"

#include "ReportCanvas.h"
#include "ReportComposer.h"
#include "ReportStyle.h"
#include "headroom/model/SaveTarget.h"
#include "headroom/support/Format.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLocale>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <optional>
#include <utility>

namespace headroom::report {

namespace {

constexpr int kResolutionDpi = 1200;

Error failure(const QString& path, const QString& why)
{
    // The path as typed, cut to 64 characters when longer (a 4,200-character path is one short line).
    return Error { "cannot write the report to "
            + shortForMessage(QDir::toNativeSeparators(path).toStdString()) + ": " + why.toStdString(),
        path.toStdString() };
}

/// US Letter where the locale measures in inches, A4 elsewhere.
QPageSize pageSize()
{
    return QPageSize { QLocale {}.measurementSystem() == QLocale::ImperialUSSystem ? QPageSize::Letter
                                                                                   : QPageSize::A4 };
}

/// Why `path` cannot take a report (no GUI application, no name, a folder, a missing folder), or nothing.
std::optional<Error> checkTarget(const QString& path)
{
    if (qobject_cast<QGuiApplication*>(QCoreApplication::instance()) == nullptr)
        return failure(
            path, QStringLiteral("writing a PDF needs a QGuiApplication (the offscreen platform is enough)"));
    if (path.isEmpty())
        return Error { "no file name given for the report", "" };
    const QFileInfo target { path };
    if (target.isDir())
        return failure(path, QStringLiteral("it is a folder"));
    if (!target.dir().exists())
        return failure(path,
            QStringLiteral("the folder %1 does not exist")
                .arg(QString::fromStdString(
                    shortForMessage(QDir::toNativeSeparators(target.dir().path()).toStdString()))));
    return std::nullopt;
}

/// The report into `file`, in two passes (layout, then painting).
std::optional<Error> paintReport(QSaveFile& file, const Plan& plan, const PlanResult& result,
    const QString& path, const ReportOptions& options)
{
    QPdfWriter writer { &file };
    writer.setResolution(kResolutionDpi);
    writer.setPageLayout(QPageLayout { pageSize(), QPageLayout::Portrait,
        QMarginsF {
            style::kMarginLeftMm, style::kMarginTopMm, style::kMarginRightMm, style::kMarginBottomMm },
        QPageLayout::Millimeter });
    const ReportComposer composer { plan, result, QDateTime::currentDateTime(), options };
    writer.setTitle(composer.title());
    writer.setCreator(QStringLiteral("Headroom " HEADROOM_VERSION));

    // Pass 1 lays the report out without drawing, to learn the page count for "Page N of M".
    ReportCanvas measure { writer, nullptr, 0, composer.footerText() };
    composer.compose(measure);
    (void)measure.finish();

    QPainter painter;
    if (!painter.begin(&writer))
        return failure(path, QStringLiteral("the PDF writer could not start"));
    ReportCanvas canvas { writer, &painter, measure.page(), composer.footerText() };
    composer.compose(canvas);
    const bool pagesOk = canvas.finish();
    Q_ASSERT(canvas.page() == measure.page()); // both passes run the same layout
    if (!painter.end() || !pagesOk)
        return failure(path,
            file.error() != QFileDevice::NoError ? file.errorString()
                                                 : QStringLiteral("the PDF writer failed"));
    return std::nullopt;
}

/// The finished file renamed over the target, and its folder synced.
std::optional<Error> commitReport(QSaveFile& file, const QString& targetPath, const QString& path)
{
    if (!file.commit()) {
        // Moving the finished file into place can fail with no useful message ("Unknown error").
        const bool vague
            = file.error() == QFileDevice::RenameError || file.error() == QFileDevice::UnspecifiedError;
        return failure(path,
            vague ? QStringLiteral("the finished report could not be moved into place (%1)")
                        .arg(file.errorString())
                  : file.errorString());
    }
    // The rename is durable only once the folder is synced too.
    if (!syncFolder(QFile::encodeName(QFileInfo { targetPath }.absolutePath()).toStdString()))
        return failure(
            path, QStringLiteral("the report is written but its folder could not be synced to disk"));
    return std::nullopt;
}

} // namespace

Result<bool> writePdfReport(
    const Plan& plan, const PlanResult& result, const QString& path, const ReportOptions& options)
{
    if (auto error = checkTarget(path))
        return std::move(*error);

    // A link is written through to its target; a device, a FIFO, a read-only file or the model the report
    // is made from is never replaced.
    const auto resolved = saveTarget(QFile::encodeName(path).toStdString(), options.sources);
    if (!resolved) // the message names the path, cut (saveTarget)
        return Error { "cannot write the report to " + resolved.error().message, path.toStdString() };

    // Written to a temporary file next to the target and renamed over it only once complete: a
    // failure at any point (including a full disk) leaves no partial file, and an existing report
    // in its place intact. QSaveFile keeps the replaced file's permissions and syncs the file.
    const QString targetPath = QFile::decodeName(QByteArray::fromStdString(resolved.value()));
    QSaveFile file { targetPath };
    if (!file.open(QIODevice::WriteOnly))
        return failure(path, file.errorString());
    if (auto error = paintReport(file, plan, result, path, options))
        return std::move(*error);
    if (auto error = commitReport(file, targetPath, path))
        return std::move(*error);
    return true;
}

} // namespace headroom::report
