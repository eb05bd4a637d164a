#pragma once

#include "headroom/setup/GpuCatalog.h"

#include <QDialog>
#include <optional>

class QComboBox;
class QDialogButtonBox;
class QLineEdit;

namespace headroom::ui {

/// The dialog "Custom..." in the GPU list opens (DialogProvider::customGpu): a GPU's name and memory,
/// and the figures the step time uses, all optional: its memory bandwidth, its peak TFLOPS in FP32,
/// FP16 and BF16, and its links to other GPUs (Gpu::linkGBps, Gpu::pcieGeneration). A figure left at
/// "Not known" is 0, as in the catalogue. Started on a GPU, it edits it: a figure the user does not
/// touch keeps every digit it had, even those the field does not show (0.03341 TFLOPS).
class CustomGpuDialog final : public QDialog
{
    Q_OBJECT

public:
    /// `start`: the GPU to edit; nullopt for a new one ("My GPU", 16 GiB, no figures).
    explicit CustomGpuDialog(const std::optional<Gpu>& start, QWidget* parent = nullptr);

    /// The GPU as the fields say (`custom` set; vendor and family those of `start`).
    [[nodiscard]] Gpu gpu() const;

private:
    class FigureSpinBox;

    Gpu m_start;
    QLineEdit* m_name;
    FigureSpinBox* m_memory;
    FigureSpinBox* m_bandwidth;
    FigureSpinBox* m_fp32;
    FigureSpinBox* m_fp16;
    FigureSpinBox* m_bf16;
    FigureSpinBox* m_link;
    QComboBox* m_pcie;
    QDialogButtonBox* m_buttons;
};

} // namespace headroom::ui
