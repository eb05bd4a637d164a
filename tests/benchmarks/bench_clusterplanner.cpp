// Speed of the cluster planner (issue 37, item 4: "well under a second for a 70B dense model or a 235B
// MoE on 1,024 GPUs"): a Llama-3-70B-shaped model, Qwen3-30B-A3B, Qwen3-235B-A22B and DeepSeek-V3 on 64
// and 1,024 H100s, mixed bf16 precision with Adam at 4,096 tokens, every recomputation mode and ZeRO
// stage. Each search runs once, its processor time (every thread) and wall clock printed (they are
// seconds long at worst, not microseconds). Run:
// build/tests/benchmarks/bench_clusterplanner; docs/planner.md keeps the numbers.
#include "headroom/importers/HfConfig.h"
#include "headroom/planner/ClusterPlanner.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Format.h"

#include <QElapsedTimer>
#include <QTest>
#include <ctime>

using namespace headroom;

class BenchClusterPlanner : public QObject
{
    Q_OBJECT
private slots:
    void plan_data()
    {
        QTest::addColumn<QString>("config");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<qint64>("globalBatch");
        QTest::newRow("70B dense, 64 GPUs") << "Llama-3-70B-like.json" << qint64 { 64 } << qint64 { 256 };
        QTest::newRow("70B dense, 1,024 GPUs")
            << "Llama-3-70B-like.json" << qint64 { 1024 } << qint64 { 2048 };
        QTest::newRow("Qwen3-30B-A3B, 64 GPUs") << "Qwen3-30B-A3B.json" << qint64 { 64 } << qint64 { 256 };
        QTest::newRow("Qwen3-30B-A3B, 1,024 GPUs")
            << "Qwen3-30B-A3B.json" << qint64 { 1024 } << qint64 { 2048 };
        QTest::newRow("Qwen3-235B-A22B, 1,024 GPUs")
            << "Qwen3-235B-A22B.json" << qint64 { 1024 } << qint64 { 2048 };
        QTest::newRow("DeepSeek-V3, 1,024 GPUs") << "DeepSeek-V3.json" << qint64 { 1024 } << qint64 { 2048 };
    }

    void plan()
    {
        QFETCH(QString, config);
        QFETCH(qint64, gpus);
        QFETCH(qint64, globalBatch);
        auto network = importHfConfigFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/" + config.toStdString());
        QVERIFY2(network, network ? "" : network.error().message.c_str());
        auto catalog = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
        QVERIFY(catalog);
        auto gpu = catalog->find("H100 SXM");
        QVERIFY(gpu);
        Plan plan;
        plan.network = std::move(network).value();
        plan.sequenceLength = 4096;
        plan.precision = Precision::AmpBf16;
        plan.gpu = gpu.value();
        plan.setup.overheadBytes = defaultOverheadBytes(plan.gpu);
        plan.setup.optimizer = Optimizer::AdamW;
        ClusterRequest request;
        request.gpus = gpus;
        request.globalBatch = globalBatch;
        QElapsedTimer timer;
        timer.start();
        const std::clock_t processor = std::clock();
        const auto planned = planCluster(plan, request);
        const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        const double cpuMs = 1e3 * static_cast<double>(std::clock() - processor) / CLOCKS_PER_SEC;
        QVERIFY2(planned, planned ? "" : planned.error().message.c_str());
        const ClusterPlan& r = planned.value();
        qInfo("%s: %.0f ms processor time, %.0f ms wall clock; %zu layouts, %zu examined, %zu analyses, %zu "
              "step models, %zu replays, %zu listed",
            QTest::currentDataTag(), cpuMs, ms, r.layoutsEnumerated, r.layoutsExamined, r.analyses,
            r.memoryModels, r.replays, r.layouts.size());
        if (!r.layouts.empty()) {
            const ClusterLayout& best = r.layouts.front();
            const Parallelism& p = best.settings.setup.parallel;
            qInfo("  fastest: TP %lld PP %lld (%s v %lld) CP %lld EP %lld DP %lld %s %s mb %lld x %lld: %.3f "
                  "s, "
                  "held %s, reserved peak %s",
                static_cast<long long>(p.tensorParallel), static_cast<long long>(p.pipelineParallel),
                std::string(pipelineScheduleName(p.schedule)).c_str(),
                static_cast<long long>(p.virtualStages), static_cast<long long>(p.contextParallel),
                static_cast<long long>(p.expertParallel), static_cast<long long>(p.dataParallel()),
                std::string(shardingName(p.sharding)).c_str(),
                std::string(checkpointingName(best.settings.checkpointing)).c_str(),
                static_cast<long long>(best.settings.setup.batch),
                static_cast<long long>(best.settings.setup.accumulationSteps), best.throughput.stepSeconds,
                formatBytes(best.estimate.heldBytes).c_str(),
                formatBytes(best.reserved.peakWithOverheadBytes()).c_str());
        } else {
            qInfo("  %s", r.nothingFits.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(BenchClusterPlanner)
#include "bench_clusterplanner.moc"
