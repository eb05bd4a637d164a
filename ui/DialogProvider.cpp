#include "DialogProvider.h"

#include "CustomGpuDialog.h"
#include "UiText.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/setup/TrainingSetup.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QUrl>
#include <algorithm>
#include <limits>

namespace headroom::ui {

DialogProvider::~DialogProvider() = default;

QString DialogProvider::existingFolder(const QString& folder)
{
    QString path = folder.isEmpty() ? QDir::homePath() : QDir::cleanPath(QDir(folder).absolutePath());
    while (!QFileInfo(path).isDir()) {
        const QString up = QFileInfo(path).path();
        if (up == path)
            return QDir::homePath();
        path = up;
    }
    return path;
}

QString DialogProvider::openFileName(
    QWidget* parent, const QString& caption, const QString& dir, const QString& filter)
{
    return QFileDialog::getOpenFileName(parent, caption, existingFolder(dir), filter);
}

QString DialogProvider::saveFileName(
    QWidget* parent, const QString& caption, const QString& path, const QString& filter)
{
    const QFileInfo suggested(path);
    return QFileDialog::getSaveFileName(parent, caption,
        QDir(existingFolder(suggested.absolutePath())).filePath(suggested.fileName()), filter);
}

DialogProvider::SaveChoice DialogProvider::askToSave(QWidget* parent, const QString& documentName)
{
    const auto answer = QMessageBox::warning(parent, tr("Unsaved changes"),
        tr("“%1” has unsaved changes. Save them first?").arg(documentName),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    switch (answer) {
    case QMessageBox::Save:
        return SaveChoice::Save;
    case QMessageBox::Discard:
        return SaveChoice::Discard;
    default:
        return SaveChoice::Cancel;
    }
}

void DialogProvider::showError(QWidget* parent, const QString& title, const QString& message)
{
    QMessageBox::critical(parent, title, message);
}

void DialogProvider::showAbout(QWidget* parent, const QString& title, const QString& text)
{
    QMessageBox::about(parent, title, text);
}

bool DialogProvider::openUrl(const QUrl& url)
{
    return QDesktopServices::openUrl(url);
}

std::optional<std::int64_t> DialogProvider::trainingSequenceLength(
    QWidget* parent, const QString& modelName, std::int64_t suggested, std::int64_t longest)
{
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("sequenceLengthDialog"));
    dialog.setWindowTitle(tr("Sequence Length"));
    auto* form = new QFormLayout(&dialog);
    const QLocale locale;
    auto* explanation = new QLabel(tr("%1 takes sequences of up to %2 tokens. Training usually runs at "
                                      "fewer: Hugging Face's run_clm.py and TRL's SFTTrainer use %3 unless "
                                      "told otherwise, and memory grows with the length.")
                                       .arg(modelName, locale.toString(static_cast<qlonglong>(longest)),
                                           locale.toString(static_cast<qlonglong>(suggested))),
        &dialog);
    explanation->setWordWrap(true);
    explanation->setMinimumWidth(360);
    form->addRow(explanation);
    auto* length = new QSpinBox(&dialog);
    length->setObjectName(QStringLiteral("sequenceLengthDialogSpinBox"));
    length->setRange(1, static_cast<int>(std::min<std::int64_t>(longest, std::numeric_limits<int>::max())));
    length->setValue(static_cast<int>(std::min<std::int64_t>(suggested, length->maximum())));
    length->setSuffix(tr(" tokens"));
    length->setGroupSeparatorShown(true);
    form->addRow(tr("Train at:"), length);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return length->value();
}

std::optional<DialogProvider::RunSetup> DialogProvider::measuredRunSetup(
    QWidget* parent, const QString& fileName, std::int64_t planBatch, Precision planPrecision)
{
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("measuredRunSetupDialog"));
    dialog.setWindowTitle(tr("Measured Run"));
    auto* form = new QFormLayout(&dialog);
    auto* explanation = new QLabel(tr("%1 does not record the batch size or the precision it was trained "
                                      "at. Say which, so the plan is compared at the same set-up; if you "
                                      "do not know, the plan's are assumed and the comparison says so.")
                                       .arg(fileName),
        &dialog);
    explanation->setWordWrap(true);
    explanation->setMinimumWidth(380);
    form->addRow(explanation);
    auto* batch = new QSpinBox(&dialog);
    batch->setObjectName(QStringLiteral("measuredRunBatchSpinBox"));
    batch->setRange(1, static_cast<int>(std::min<std::int64_t>(kMaxBatch, std::numeric_limits<int>::max())));
    batch->setValue(static_cast<int>(std::clamp<std::int64_t>(planBatch, 1, batch->maximum())));
    batch->setGroupSeparatorShown(true);
    form->addRow(tr("Micro-batch of the run:"), batch);
    auto* precision = new QComboBox(&dialog);
    precision->setObjectName(QStringLiteral("measuredRunPrecisionComboBox"));
    for (const Precision p :
        { Precision::Fp32, Precision::AmpFp16, Precision::AmpBf16, Precision::Fp16, Precision::Bf16 })
        precision->addItem(UiText::precision(p), static_cast<int>(p));
    precision->setCurrentIndex(precision->findData(static_cast<int>(planPrecision)));
    form->addRow(tr("Precision of the run:"), precision);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    QPushButton* unknown
        = buttons->addButton(tr("Not Known: Assume the Plan's"), QDialogButtonBox::ActionRole);
    unknown->setObjectName(QStringLiteral("measuredRunUnknownButton"));
    form->addRow(buttons);
    bool assumed = false;
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    QObject::connect(unknown, &QPushButton::clicked, &dialog, [&] {
        assumed = true;
        dialog.accept();
    });
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    if (assumed)
        return RunSetup {};
    return RunSetup { batch->value(), static_cast<Precision>(precision->currentData().toInt()) };
}

std::optional<Gpu> DialogProvider::customGpu(QWidget* parent, const std::optional<Gpu>& start)
{
    CustomGpuDialog dialog(start, parent);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.gpu();
}

} // namespace headroom::ui
