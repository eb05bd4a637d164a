// Speed of the paths: analysis on an edit, the step timeline (MemoryModel::build) on a set-up change, the
// estimate on a slider tick (the timeline's upper envelope at one batch), max batch, and a chart sweep.
// Run: build/tests/benchmarks/bench_estimate (add -iterations N or -callgrind for stable figures).
#include "BenchNetworks.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Estimate.h"

#include <QTest>
#include <utility>

using namespace headroom;

using bench::tenThousandLayers;

class BenchEstimate : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void analyzeTenThousandLayers();
    void fullEstimateTenThousandLayers();
    void buildTimelineTenThousandLayers();
    void sliderTick();
    void maxBatch();
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
    QCOMPARE(m_analysis.rows.size(), std::size_t { 10001 }); // + the loss
}

void BenchEstimate::analyzeTenThousandLayers()
{
    QBENCHMARK
    {
        const Analysis a = analyze(m_network, Precision::Fp32);
        QVERIFY(a.valid());
    }
}

void BenchEstimate::fullEstimateTenThousandLayers()
{
    QBENCHMARK
    {
        const auto e = estimate(analyze(m_network, Precision::AmpBf16), m_setup, 8ULL << 30);
        QVERIFY(e.ok());
    }
}

void BenchEstimate::buildTimelineTenThousandLayers()
{
    const auto model = MemoryModel::build(m_analysis, m_setup);
    QVERIFY(model.ok());
    static bool said = false; // QBENCHMARK runs this function once per iteration count
    if (!std::exchange(said, true))
        qInfo("%zu moments, %zu lines on the steady step's upper envelope",
            model->timeline().moments().size(), model->timeline().steady().lines().size());
    QBENCHMARK
    {
        const auto m = MemoryModel::build(m_analysis, m_setup);
        QVERIFY(m.ok());
    }
}

void BenchEstimate::sliderTick()
{
    const auto model = MemoryModel::build(m_analysis, m_setup).value();
    std::int64_t batch = 1;
    std::uint64_t sink = 0;
    QBENCHMARK
    {
        batch = batch % 4096 + 1;
        sink += model.at(batch)->total();
    }
    QVERIFY(sink > 0);
}

void BenchEstimate::maxBatch()
{
    const auto model = MemoryModel::build(m_analysis, m_setup).value();
    std::uint64_t capacity = 1ULL << 40; // 1 TiB: tens of samples of this network
    std::int64_t sink = 0;
    QBENCHMARK
    {
        capacity += 4096; // a different capacity each time, as when the GPU or the overhead changes
        sink += model.maxBatch(capacity);
    }
    QVERIFY(sink > 0);
}

void BenchEstimate::sweep1To4096()
{
    QBENCHMARK
    {
        const auto points = sweep(m_analysis, m_setup, 1, 4096);
        QCOMPARE(points->size(), std::size_t { 4096 });
    }
}

QTEST_APPLESS_MAIN(BenchEstimate)
#include "bench_estimate.moc"
