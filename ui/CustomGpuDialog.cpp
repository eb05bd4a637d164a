#include "CustomGpuDialog.h"

#include "QtText.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace headroom::ui {

namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
// The largest figures the fields take, far above any GPU made (B200: 8,000 GB/s of memory bandwidth,
// 2,250 dense FP16 TFLOPS, NVLink 5 at 900 GB/s each way); model files may hold more (SetupFile.cpp).
constexpr double kMaxBandwidthGBps = 100'000;
constexpr double kMaxTflops = 100'000;
constexpr double kMaxLinkGBps = 10'000;
/// The PCIe generations pcieX16GBps() knows.
constexpr int kMaxPcieGeneration = 6;
/// The name's length a custom GPU may have (parseCustomGpu()).
constexpr int kMaxNameLength = 200;

} // namespace

/// A figure's field: shown without trailing zeros ("989.5 TFLOPS", not "989.500"), and keeping the exact
/// value it was set to while the user leaves it alone.
class CustomGpuDialog::FigureSpinBox final : public QDoubleSpinBox
{
public:
    FigureSpinBox(QWidget* parent, const char* objectName, double max, int decimals, const QString& suffix)
        : QDoubleSpinBox(parent)
    {
        setObjectName(QString::fromLatin1(objectName));
        setDecimals(decimals);
        setRange(0, max);
        setSuffix(suffix);
        setGroupSeparatorShown(true);
    }
    /// Shows `exact` (rounded to the field's decimals) and remembers it.
    void setFigure(double exact)
    {
        setValue(exact);
        m_exact = exact;
        m_shown = value();
    }
    /// The value set by setFigure() while the field still shows it, else what the field holds.
    [[nodiscard]] double figure() const { return value() == m_shown ? m_exact : value(); }

protected:
    QString textFromValue(double v) const override
    {
        QString text = QDoubleSpinBox::textFromValue(v);
        const QString point = locale().decimalPoint();
        if (decimals() > 0 && text.contains(point)) {
            while (text.endsWith(QLatin1Char('0')))
                text.chop(1);
            if (text.endsWith(point))
                text.chop(point.size());
        }
        return text;
    }

private:
    double m_exact = 0;
    double m_shown = 0;
};

CustomGpuDialog::CustomGpuDialog(const std::optional<Gpu>& start, QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("customGpuDialog"));
    setWindowTitle(tr("Custom GPU"));
    if (start) {
        m_start = *start;
    } else {
        m_start.name = ss(tr("My GPU"));
        m_start.memoryBytes = 16ULL << 30;
    }
    auto* layout = new QVBoxLayout(this);
    auto* explanation = new QLabel(tr("The memory plan needs only the memory. The figures below, from the "
                                      "vendor's specifications, give the step time and samples per second; "
                                      "leave a figure you do not have at “Not known”."),
        this);
    explanation->setWordWrap(true);
    explanation->setMinimumWidth(380);
    layout->addWidget(explanation);

    auto* form = new QFormLayout;
    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("customGpuNameLineEdit"));
    m_name->setMaxLength(kMaxNameLength);
    m_name->setText(qs(m_start.name));
    m_name->setToolTip(tr("The name in the GPU list; a GPU of the same name is replaced"));
    m_memory = new FigureSpinBox(this, "customGpuMemorySpinBox", kMaxCustomGpuGiB, 2, tr(" GiB"));
    m_memory->setMinimum(kMinCustomGpuGiB);
    m_memory->setFigure(static_cast<double>(m_start.memoryBytes) / kBytesPerGiB);
    m_memory->setToolTip(tr("The GPU's memory as the vendor states it: 24 GB of GDDR6X is 24 GiB"));
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Memory:"), m_memory);
    layout->addLayout(form);

    const QString notKnown = tr("Not known");
    auto* speed = new QGroupBox(tr("Step time (optional)"), this);
    speed->setObjectName(QStringLiteral("customGpuSpeedGroupBox"));
    auto* speedForm = new QFormLayout(speed);
    m_bandwidth = new FigureSpinBox(speed, "customGpuBandwidthSpinBox", kMaxBandwidthGBps, 1, tr(" GB/s"));
    m_bandwidth->setToolTip(tr("Memory bandwidth in GB/s (RTX 4090: 1,008): a layer that moves more bytes "
                               "than it computes takes as long as its bytes need. Not known: that check "
                               "is skipped"));
    m_fp32 = new FigureSpinBox(speed, "customGpuFp32SpinBox", kMaxTflops, 3, tr(" TFLOPS"));
    m_fp32->setToolTip(tr("Peak dense FP32 TFLOPS (RTX 4090: 82.58): the step time in fp32. Not known: "
                          "no step time in fp32"));
    m_fp16 = new FigureSpinBox(speed, "customGpuFp16SpinBox", kMaxTflops, 3, tr(" TFLOPS"));
    m_fp16->setToolTip(tr("Peak dense FP16 TFLOPS, on tensor cores where the GPU has them (RTX 4090: "
                          "165.2): the step time in fp16 and mixed fp16. Not known: no step time in fp16"));
    m_bf16 = new FigureSpinBox(speed, "customGpuBf16SpinBox", kMaxTflops, 3, tr(" TFLOPS"));
    m_bf16->setToolTip(tr("Peak dense BF16 TFLOPS (RTX 4090: 165.2): the step time in bf16 and mixed "
                          "bf16. Not known, or a GPU without bfloat16: no step time in bf16"));
    for (FigureSpinBox* field : { m_bandwidth, m_fp32, m_fp16, m_bf16 })
        field->setSpecialValueText(notKnown);
    m_bandwidth->setFigure(m_start.bandwidthGBps);
    m_fp32->setFigure(m_start.fp32Tflops);
    m_fp16->setFigure(m_start.fp16Tflops);
    m_bf16->setFigure(m_start.bf16Tflops);
    speedForm->addRow(tr("Memory bandwidth:"), m_bandwidth);
    speedForm->addRow(tr("FP32:"), m_fp32);
    speedForm->addRow(tr("FP16:"), m_fp16);
    speedForm->addRow(tr("BF16:"), m_bf16);
    layout->addWidget(speed);

    auto* links = new QGroupBox(tr("Several GPUs (optional)"), this);
    links->setObjectName(QStringLiteral("customGpuLinksGroupBox"));
    auto* linksForm = new QFormLayout(links);
    m_link = new FigureSpinBox(links, "customGpuLinkSpinBox", kMaxLinkGBps, 2, tr(" GB/s"));
    m_link->setSpecialValueText(tr("Not known (the PCIe rate)"));
    m_link->setToolTip(tr("GPU-to-GPU bandwidth within a node, GB/s each way: NVLink's per-GPU figure "
                          "(H100 SXM: 900 GB/s both ways, so 450), else the PCIe x16 rate. Not known: "
                          "the PCIe generation's x16 rate. Changes the step time with several GPUs, not "
                          "memory"));
    m_link->setFigure(m_start.linkGBps);
    m_pcie = new QComboBox(links);
    m_pcie->setObjectName(QStringLiteral("customGpuPcieComboBox"));
    m_pcie->addItem(tr("Not known (4.0 assumed)"), 0);
    const QLocale locale;
    for (int generation = 1; generation <= kMaxPcieGeneration; ++generation)
        m_pcie->addItem(
            tr("%1.0 (x16: %2 GB/s each way)").arg(generation).arg(locale.toString(pcieX16GBps(generation))),
            generation);
    m_pcie->setCurrentIndex(std::max(0, m_pcie->findData(m_start.pcieGeneration)));
    m_pcie->setToolTip(tr("The PCIe generation of the GPU's host link: its x16 rate is the link between "
                          "GPUs when that is not known. Not known: PCIe 4.0"));
    linksForm->addRow(tr("GPU-to-GPU link:"), m_link);
    linksForm->addRow(tr("PCIe generation:"), m_pcie);
    layout->addWidget(links);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.trimmed().isEmpty());
    });
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!m_name->text().trimmed().isEmpty());
}

Gpu CustomGpuDialog::gpu() const
{
    Gpu gpu = m_start;
    gpu.name = ss(m_name->text().trimmed());
    gpu.memoryBytes = static_cast<std::uint64_t>(std::llround(m_memory->figure() * kBytesPerGiB));
    gpu.bandwidthGBps = m_bandwidth->figure();
    gpu.fp32Tflops = m_fp32->figure();
    gpu.fp16Tflops = m_fp16->figure();
    gpu.bf16Tflops = m_bf16->figure();
    gpu.linkGBps = m_link->figure();
    gpu.pcieGeneration = m_pcie->currentData().toInt();
    gpu.custom = true;
    return gpu;
}

} // namespace headroom::ui
