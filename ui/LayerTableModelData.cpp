// LayerTableModel's item data: each cell's text, tooltip, style and the model's own roles.
#include "CoreText.h"
#include "ErrorText.h"
#include "LayerTableModel.h"
#include "QtText.h"
#include "UiText.h"
#include "headroom/layers/LayerRegistry.h"

#include <QApplication>
#include <QBrush>
#include <QFont>
#include <QPalette>
#include <QStyle>

namespace headroom::ui {

namespace {

/// The dtype as ML code abbreviates it ("bf16"): every row of a half-precision network carries one,
/// and the full names would push the numbers out of view.
QString shortDtype(DType t)
{
    switch (t) {
    case DType::Float32:
        return QStringLiteral("fp32");
    case DType::Float16:
        return QStringLiteral("fp16");
    case DType::BFloat16:
        return QStringLiteral("bf16");
    case DType::Float64:
        return QStringLiteral("fp64");
    case DType::Int64:
        return QStringLiteral("i64");
    case DType::Int32:
        return QStringLiteral("i32");
    case DType::UInt8:
        return QStringLiteral("u8");
    case DType::Bool:
        return QStringLiteral("bool");
    }
    return qs(dtypeName(t));
}

QString shapeText(const TensorInfo& info, bool shortType)
{
    QString s = qs(info.shape.toBatchedString(info.batchAxis));
    if (info.dtype != DType::Float32)
        s += QStringLiteral(" (%1)").arg(shortType ? shortDtype(info.dtype) : qs(dtypeName(info.dtype)));
    return s;
}

} // namespace

std::optional<LayerTableModel::Cell> LayerTableModel::cellOf(const QModelIndex& index) const
{
    Cell cell;
    cell.path = pathOf(index);
    cell.spec = m_document->spec(cell.path);
    if (cell.spec == nullptr)
        return std::nullopt;
    const RowInfo* info = infoOf(index);
    cell.info = info;
    cell.row = analysisRow(index);
    cell.invalid = info != nullptr && info->error.has_value();
    cell.blocked = cell.invalid && info->blocked;
    // Frozen: marked so, or (per the analysis) has parameters of which none is trained but adapters.
    cell.frozen = cell.spec->frozen
        || (info != nullptr && !cell.invalid && info->params > info->loraParams && info->trainedParams == 0);
    cell.checkpointed = info != nullptr && !cell.invalid && info->checkpointed;
    cell.lora = info != nullptr && !cell.invalid ? info->loraParams : 0;
    return cell;
}

QVariant LayerTableModel::displayData(const Cell& cell, int column) const
{
    const LayerSpec* spec = cell.spec;
    const RowInfo* info = cell.info;
    const LayerRow* row = cell.row;
    const bool invalid = cell.invalid;
    switch (column) {
    case IndexColumn:
        // Positions change whenever rows are inserted above: the view's delegate paints them
        // (an item's data stays the same while it moves, as QAbstractItemModelTester checks).
        return {};
    case NameColumn:
        if (!spec->name.empty())
            return qs(spec->name);
        return row != nullptr ? qs(row->name) : QString();
    case TypeColumn:
        return spec->isRepeat() ? tr("Repeat × %1").arg(spec->times) : qs(spec->type);
    case OutputColumn:
        return row != nullptr && !invalid ? shapeText(row->output, true) : QStringLiteral("—");
    case ParametersColumn:
        return info != nullptr && !invalid ? UiText::count(info->params) : QString();
    case ActivationColumn:
        return info != nullptr && !invalid ? UiText::bytes(info->activationBytes) : QString();
    case FlopsColumn:
        return info != nullptr && !invalid ? UiText::flops(
                   static_cast<double>(info->forwardFlops) + static_cast<double>(info->backwardFlops))
                                           : QString();
    case TrainingColumn: {
        QStringList parts;
        if (cell.frozen)
            parts << tr("frozen");
        if (cell.checkpointed)
            parts << tr("checkpointed");
        if (cell.lora > 0)
            parts << tr("LoRA +%1").arg(UiText::count(cell.lora));
        return parts.join(QStringLiteral(", "));
    }
    case InputsColumn:
        if (spec->inputs.empty())
            return {};
        if (row != nullptr && !row->inputs.empty()) {
            QStringList names;
            for (const auto& n : row->inputs)
                names << qs(n);
            return names.join(QStringLiteral(", "));
        } else {
            QStringList names;
            for (const auto& n : spec->inputs)
                names << qs(n);
            return names.join(QStringLiteral(", "));
        }
    default:
        return {};
    }
}

QVariant LayerTableModel::toolTipData(const Cell& cell, const QModelIndex& index) const
{
    const LayerSpec* spec = cell.spec;
    const RowInfo* info = cell.info;
    if (cell.invalid)
        return ErrorText::withoutLayer(*info->error);
    if (index.column() == TypeColumn) {
        if (const LayerKind* kind = LayerRegistry::builtin().find(spec->type))
            return tr("%1: %2").arg(qs(spec->type), CoreText::translate(kind->summary()));
    }
    // Columns may be too narrow for their text (names are elided in the middle): the full value.
    if (index.column() == OutputColumn && cell.row != nullptr)
        return shapeText(cell.row->output, false);
    // An automatic name counts from 0 beside numbers that count from 1: say where it comes from.
    if (index.column() == NameColumn && spec->name.empty() && cell.row != nullptr)
        return tr("%1: no name in the file, so named by its place in its list counted from 0, as PyTorch "
                  "names the layers of an nn.Sequential. Messages call it layer %2 (%3).")
            .arg(qs(cell.row->name), qs(layerNumber(Document::specPath(cell.path))), qs(spec->type));
    if (index.column() == NameColumn || index.column() == InputsColumn)
        return data(index, Qt::DisplayRole);
    if (index.column() == ParametersColumn && info != nullptr)
        return tr("Parameters: %1").arg(UiText::count(info->params));
    if (index.column() == ActivationColumn && info != nullptr)
        return tr("%1 per sample kept for the backward pass").arg(UiText::bytes(info->activationBytes));
    if (index.column() == FlopsColumn && info != nullptr)
        return tr("Forward %1 + backward %2 per sample")
            .arg(UiText::flops(static_cast<double>(info->forwardFlops)),
                UiText::flops(static_cast<double>(info->backwardFlops)));
    if (index.column() == TrainingColumn) {
        QStringList lines;
        if (cell.frozen)
            lines << tr("Frozen: no gradients or optimizer state for its parameters");
        if (cell.checkpointed)
            lines << tr("Checkpointed: its activations are recomputed in the backward pass");
        if (cell.lora > 0)
            lines << tr("LoRA adapters: %1 trainable parameters").arg(UiText::count(cell.lora));
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
    return {};
}

QVariant LayerTableModel::styleData(const Cell& cell, int column, int role)
{
    switch (role) {
    case Qt::DecorationRole:
        if (column == NameColumn && cell.invalid && !cell.blocked)
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ForegroundRole:
        if (cell.invalid)
            return QBrush(cell.blocked ? QColor(0xb0, 0x60, 0x60) : QColor(0xc0, 0x10, 0x10));
        if ((column == NameColumn && cell.spec->name.empty()) || (cell.frozen && column != TrainingColumn))
            return QApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        if (column == TrainingColumn && (cell.checkpointed || cell.lora > 0))
            return QBrush(QColor(0x1f, 0x6f, 0x8b));
        return {};
    case Qt::FontRole:
        if (cell.spec->isRepeat() || cell.frozen) {
            QFont f;
            f.setBold(cell.spec->isRepeat());
            f.setItalic(cell.frozen);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column == ParametersColumn || column == ActivationColumn || column == FlopsColumn
            || column == IndexColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant LayerTableModel::customRoleData(const Cell& cell, int role)
{
    const RowInfo* info = cell.info;
    switch (role) {
    case ErrorRole:
        return cell.invalid ? ErrorText::withoutLayer(*info->error) : QString();
    case SpecPathRole:
        return qs(Document::specPath(cell.path));
    case NumberRole:
        return qs(layerNumber(Document::specPath(cell.path)));
    case IsRepeatRole:
        return cell.spec->isRepeat();
    case ParametersRole:
        return QVariant::fromValue<qulonglong>(info != nullptr ? info->params : 0);
    case ActivationBytesRole:
        return QVariant::fromValue<qulonglong>(info != nullptr ? info->activationBytes : 0);
    case FrozenRole:
        return cell.frozen;
    case CheckpointedRole:
        return cell.checkpointed;
    case LoraParamsRole:
        return QVariant::fromValue<qulonglong>(cell.lora);
    default:
        return {};
    }
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const std::optional<Cell> cell = cellOf(index);
    if (!cell)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return displayData(*cell, index.column());
    case Qt::EditRole:
        if (index.column() == NameColumn)
            return qs(cell->spec->name);
        return data(index, Qt::DisplayRole);
    case Qt::ToolTipRole:
        return toolTipData(*cell, index);
    case Qt::DecorationRole:
    case Qt::ForegroundRole:
    case Qt::FontRole:
    case Qt::TextAlignmentRole:
        return styleData(*cell, index.column(), role);
    default:
        return customRoleData(*cell, role);
    }
}

} // namespace headroom::ui
