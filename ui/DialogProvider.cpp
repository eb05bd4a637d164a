#include "DialogProvider.h"

#include "headroom/setup/GpuCatalog.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
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

std::optional<DialogProvider::CustomGpu> DialogProvider::customGpu(QWidget* parent)
{
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("customGpuDialog"));
    dialog.setWindowTitle(tr("Custom GPU"));
    auto* form = new QFormLayout(&dialog);
    auto* name = new QLineEdit(&dialog);
    name->setObjectName(QStringLiteral("customGpuNameLineEdit"));
    name->setText(tr("My GPU"));
    auto* memory = new QDoubleSpinBox(&dialog);
    memory->setObjectName(QStringLiteral("customGpuMemorySpinBox"));
    memory->setRange(kMinCustomGpuGiB, kMaxCustomGpuGiB);
    memory->setDecimals(2);
    memory->setValue(16.0);
    memory->setSuffix(QStringLiteral(" GiB"));
    form->addRow(tr("Name:"), name);
    form->addRow(tr("Memory:"), memory);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    QObject::connect(name, &QLineEdit::textChanged, &dialog, [buttons](const QString& text) {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.trimmed().isEmpty());
    });
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    return CustomGpu { name->text().trimmed(), static_cast<std::uint64_t>(memory->value() * kGiB) };
}

} // namespace headroom::ui
