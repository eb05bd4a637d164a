#include "SetupPanel.h"

#include "Document.h"
#include "GpuSelector.h"
#include "UiText.h"

#include "headroom/Count.h"

#include <QComboBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>

namespace headroom::ui {

namespace {
constexpr std::array kPrecisions{Precision::Fp32, Precision::AmpFp16, Precision::AmpBf16, Precision::Fp16, Precision::Bf16};
} // namespace

SetupPanel::SetupPanel(Document* document, QWidget* parent) : QWidget(parent), m_document{document}
{
    m_gpu = new GpuSelector(this);
    m_optimizer = new QComboBox(this);
    m_optimizer->setObjectName(QStringLiteral("optimizerComboBox"));
    for (const Optimizer o : allOptimizers())
        m_optimizer->addItem(UiText::optimizer(o), static_cast<int>(o));
    m_precision = new QComboBox(this);
    m_precision->setObjectName(QStringLiteral("precisionComboBox"));
    for (const Precision p : kPrecisions)
        m_precision->addItem(UiText::precision(p), static_cast<int>(p));
    m_overhead = new QSpinBox(this);
    m_overhead->setObjectName(QStringLiteral("overheadSpinBox"));
    m_overhead->setRange(0, 64 * 1024);
    m_overhead->setSingleStep(64);
    m_overhead->setSuffix(tr(" MiB"));
    m_overhead->setKeyboardTracking(false);
    m_overhead->setToolTip(tr("CUDA context, kernel images, cuBLAS/cuDNN workspaces and allocator reserve"));

    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("GPU:"), m_gpu);
    form->addRow(tr("Optimizer:"), m_optimizer);
    form->addRow(tr("Precision:"), m_precision);
    form->addRow(tr("Overhead:"), m_overhead);

    connect(m_gpu, &GpuSelector::gpuSelected, this, [this](const Gpu& gpu) { m_document->setGpu(gpu); });
    connect(m_gpu, &GpuSelector::customRequested, this, &SetupPanel::customGpuRequested);
    connect(m_optimizer, &QComboBox::currentIndexChanged, this, [this] {
        m_document->setOptimizer(static_cast<Optimizer>(m_optimizer->currentData().toInt()));
    });
    connect(m_precision, &QComboBox::currentIndexChanged, this, [this] {
        m_document->setPrecision(static_cast<Precision>(m_precision->currentData().toInt()));
    });
    connect(m_overhead, &QSpinBox::valueChanged, this,
            [this](int mib) { m_document->setOverheadBytes(static_cast<std::uint64_t>(mib) * kMiB); });
    connect(document, &Document::setupChanged, this, &SetupPanel::refresh);
    connect(document, &Document::precisionChanged, this, &SetupPanel::refresh);
    refresh();
}

void SetupPanel::setCatalog(const GpuCatalog& catalog)
{
    m_gpu->setCatalog(catalog);
    refresh();
}

const GpuCatalog& SetupPanel::catalog() const { return m_gpu->catalog(); }

void SetupPanel::addCustomGpu(const Gpu& gpu)
{
    GpuCatalog catalog = m_gpu->catalog();
    catalog.addCustom(gpu);
    m_gpu->setCatalog(catalog);
    Gpu custom = gpu;
    custom.custom = true;
    m_document->setGpu(custom);
    refresh();
}

void SetupPanel::refresh()
{
    const Plan& plan = m_document->plan();
    m_gpu->setCurrentGpu(plan.gpu);
    const QSignalBlocker b1(m_optimizer);
    const QSignalBlocker b2(m_precision);
    const QSignalBlocker b3(m_overhead);
    m_optimizer->setCurrentIndex(m_optimizer->findData(static_cast<int>(plan.setup.optimizer)));
    m_precision->setCurrentIndex(m_precision->findData(static_cast<int>(plan.precision)));
    m_overhead->setValue(static_cast<int>(plan.setup.overheadBytes / kMiB));
}

} // namespace headroom::ui
