// Speed of the two paths: analysis on an edit, estimate on a slider tick, and a chart sweep.
// Run: build/tests/benchmarks/bench_estimate (add -iterations N or -callgrind for stable figures).
#include "../core/NetworkBuilder.h"
#include "headroom/Analysis.h"
#include "headroom/Estimate.h"

#include <QTest>

using namespace headroom;

namespace {

/// 10,000 layers: 2,000 residual blocks of conv-BN-ReLU-conv-add on 64x32x32 maps, unrolled
/// (no Repeat) so the analysis walks every spec.
Network tenThousandLayers()
{
    Network n;
    n.name = "bench";
    n.input = InputSpec{Shape{{64, 32, 32}}, DType::Float32};
    const nlohmann::json conv = {{"out_channels", 64}, {"kernel_size", 3}, {"padding", 1}, {"bias", false}};
    std::string previous = "input";
    for (int b = 0; b < 2000; ++b) {
        const std::string p = "b" + std::to_string(b) + ".";
        n.layers.push_back(test::layer("Conv2d", conv, p + "conv1"));
        n.layers.push_back(test::layer("BatchNorm2d", {}, p + "bn"));
        n.layers.push_back(test::layer("ReLU", {{"inplace", true}}, p + "relu"));
        n.layers.push_back(test::layer("Conv2d", conv, p + "conv2"));
        n.layers.push_back(test::layer("Add", {}, p + "add", {p + "conv2", previous}));
        previous = p + "add";
    }
    return n;
}

} // namespace

class BenchEstimate : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void analyzeTenThousandLayers();
    void fullEstimateTenThousandLayers();
    void sliderTick();
    void sweep1To4096();

private:
    Network m_network;
    Analysis m_analysis;
    TrainingSetup m_setup;
};

void BenchEstimate::initTestCase()
{
    m_network = tenThousandLayers();
    m_analysis = analyze(m_network, Precision::Fp32);
    QVERIFY2(m_analysis.valid(), m_analysis.error ? m_analysis.error->message.c_str() : "");
    QCOMPARE(m_analysis.rows.size(), std::size_t{10001}); // + the loss
}

void BenchEstimate::analyzeTenThousandLayers()
{
    QBENCHMARK {
        const Analysis a = analyze(m_network, Precision::Fp32);
        QVERIFY(a.valid());
    }
}

void BenchEstimate::fullEstimateTenThousandLayers()
{
    QBENCHMARK {
        const auto e = estimate(analyze(m_network, Precision::AmpBf16), m_setup);
        QVERIFY(e.ok());
    }
}

void BenchEstimate::sliderTick()
{
    const auto model = MemoryModel::build(m_analysis, m_setup).value();
    std::int64_t batch = 1;
    std::uint64_t sink = 0;
    QBENCHMARK {
        batch = batch % 4096 + 1;
        sink += model.at(batch)->total() + static_cast<std::uint64_t>(model.maxBatch(m_setup.gpuMemoryBytes));
    }
    QVERIFY(sink > 0);
}

void BenchEstimate::sweep1To4096()
{
    QBENCHMARK {
        const auto points = sweep(m_analysis, m_setup, 1, 4096);
        QCOMPARE(points->size(), std::size_t{4096});
    }
}

QTEST_APPLESS_MAIN(BenchEstimate)
#include "bench_estimate.moc"
