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
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QUrl>

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
