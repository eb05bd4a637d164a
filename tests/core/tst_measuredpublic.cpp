// Real files PyTorch wrote on other people's GPUs (tests/data/measured/public, README.md there: origin,
// licence, what each run did). Every expected figure comes from
//     /usr/bin/python3 tests/reference/public_measured_runs.py
// which reads the files with Python's own pickle / json / gzip, not with Headroom: allocated at the
// snapshot = the sum of the active_allocated blocks' sizes, reserved = the sum of the segments' total_size,
// the trace walked forward from (end - sum of its changes) with each block's size from the segments when
// still allocated, else round_size of the request; for the Chrome trace the max of "Total Allocated" /
// "Total Reserved" over the CUDA device's [memory] events, overall and per ProfilerStep span. The number
// of steps, their phases and whether the first is the run's first come from the recording scripts in the
// source repositories (named in the README), not from the files.
#include "headroom/measured/MeasuredRun.h"

#include <QTest>
#include <array>
#include <string>
#include <vector>

using namespace headroom;

namespace {

std::filesystem::path publicFile(const std::string& name)
{
    return std::filesystem::path(HEADROOM_TEST_SOURCE_DIR) / "tests/data/measured/public" / name;
}

std::vector<RunPhase> phasesOf(const MeasuredStep& step)
{
    std::vector<RunPhase> out;
    for (const MeasuredPhase& p : step.phases)
        out.push_back(p.phase);
    return out;
}

const MeasuredPhase* phase(const MeasuredStep& step, RunPhase which)
{
    for (const MeasuredPhase& p : step.phases) {
        if (p.phase == which)
            return &p;
    }
    return nullptr;
}

} // namespace

class TestMeasuredPublic : public QObject
{
    Q_OBJECT

private slots:
    void snapshots_data();
    void snapshots();
    void chromeTraceOfADdpRank();
    void chromeTraceWithBytesOnly();
    void rawTimelineIsCoalesced();
};

void TestMeasuredPublic::snapshots_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qsizetype>("entries");
    QTest::addColumn<quint64>("endAllocated");
    QTest::addColumn<quint64>("endReserved");
    QTest::addColumn<quint64>("peakAllocated");
    QTest::addColumn<qsizetype>("peakEntry");
    QTest::addColumn<quint64>("peakReserved");
    QTest::addColumn<bool>("optimizer");
    QTest::addColumn<qsizetype>("optimizerFirstAlloc"); // first alloc in the Optimizer.step# span, or -1

    // One forward and backward of a 12-layer LM, no optimizer (test_steps=1 after 5 warm-up steps): no
    // annotations, phases from the frames. No segment_alloc in the trace: the 216 segments were all
    // reserved in the warm-up, so reserved stays 14,180,941,824 throughout.
    QTest::newRow("cs336 forward and backward (frames)")
        << "cs336_gpt_small_forward_backward.pickle" << qsizetype { 5163 } << quint64 { 1377753600 }
        << quint64 { 14180941824 } << quint64 { 13927832064 } << qsizetype { 1402 } << quint64 { 14180941824 }
        << false << qsizetype { -1 };
    // fake_train(1) after fake_train(10) under torch.compile with the assignment's AdamW: one steady step
    // whose compiled forward runs inside torch.autograd.Function.apply (not a backward frame).
    QTest::newRow("cs336 torch.compile step")
        << "cs336_compiled_adamw_step.pickle.gz" << qsizetype { 6486 } << quint64 { 3072871424 }
        << quint64 { 4238344192 } << quint64 { 3857686016 } << qsizetype { 6463 } << quint64 { 4238344192 }
        << true << qsizetype { 1818 };
    // One steady step (zero_grad(set_to_none=True) before it) of the 24-layer "medium" LM; its AdamW
    // writes exp_avg / exp_avg_sq out of place, so every step keeps new state blocks and frees the old.
    QTest::newRow("cs336 medium training step")
        << "cs336_medium_training_step.pickle.gz" << qsizetype { 19136 } << quint64 { 6816891392 }
        << quint64 { 7235174400 } << quint64 { 7021691392 } << qsizetype { 19122 } << quint64 { 7235174400 }
        << true << qsizetype { 9938 };
    // An older PyTorch 2.x (entries without compile_context / user_metadata); the peak is in the forward.
    QTest::newRow("cs336 nvtx step, older PyTorch")
        << "cs336_nvtx_training_step.pickle.gz" << qsizetype { 19464 } << quint64 { 16019091968 }
        << quint64 { 23842521088 } << quint64 { 23165567488 } << qsizetype { 5701 } << quint64 { 23842521088 }
        << true << qsizetype { 18483 };
}

void TestMeasuredPublic::snapshots()
{
    QFETCH(QString, file);
    QFETCH(qsizetype, entries);
    QFETCH(quint64, endAllocated);
    QFETCH(quint64, endReserved);
    QFETCH(quint64, peakAllocated);
    QFETCH(qsizetype, peakEntry);
    QFETCH(quint64, peakReserved);
    QFETCH(bool, optimizer);
    QFETCH(qsizetype, optimizerFirstAlloc);

    const auto result = readMeasuredRun(publicFile(file.toStdString()));
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QVERIFY(run.kind == RunFileKind::SnapshotPickle);
    QCOMPARE(run.device, std::int64_t { 0 });
    QVERIFY2(run.absolute, run.whyNotAbsolute.c_str());
    QCOMPARE(run.samples.size(), static_cast<std::size_t>(entries));
    QCOMPARE(run.samples.back().allocated, endAllocated);
    QCOMPARE(run.samples.back().reserved, endReserved);
    QCOMPARE(run.peakAllocated, peakAllocated);
    QCOMPARE(run.peakAllocatedSample, static_cast<std::size_t>(peakEntry));
    QCOMPARE(run.peakReserved, peakReserved);
    QCOMPARE(run.outOfMemoryEvents, std::uint32_t { 0 });

    // One step recorded, after warm-up steps: not the run's first.
    QCOMPARE(run.steps.size(), std::size_t { 1 });
    const MeasuredStep& step = run.steps.front();
    QVERIFY(!step.first);
    QCOMPARE(step.peakAllocated, peakAllocated);
    const std::vector<RunPhase> expected = optimizer
        ? std::vector<RunPhase> { RunPhase::Forward, RunPhase::Backward, RunPhase::OptimizerStep }
        : std::vector<RunPhase> { RunPhase::Forward, RunPhase::Backward };
    QCOMPARE(phasesOf(step), expected);
    if (optimizerFirstAlloc >= 0) {
        const MeasuredPhase* opt = phase(step, RunPhase::OptimizerStep);
        QVERIFY(opt != nullptr);
        QCOMPARE(opt->firstSample, static_cast<std::size_t>(optimizerFirstAlloc));
        QCOMPARE(opt->source, PhaseSource::Annotations);
    }
    // The phases tile the step.
    QCOMPARE(step.phases.front().firstSample, step.firstSample);
    QCOMPARE(step.phases.back().endSample, step.endSample);
    for (std::size_t k = 1; k < step.phases.size(); ++k)
        QCOMPARE(step.phases[k].firstSample, step.phases[k - 1].endSample);
}

// Rank 1 of a two-GPU DDP run (V100, SGD), 5 ProfilerStep spans. Python over the 26,770 [memory] events
// of CUDA device 1: max Total Allocated 6,629,508,096 (the same in each step's span), max Total Reserved
// 12,782,141,440; no allocation falls inside the Optimizer.step#SGD.step spans (plain SGD allocates
// nothing), so each step's first allocation in its ProfilerStep span is what starts it.
void TestMeasuredPublic::chromeTraceOfADdpRank()
{
    const auto result = readMeasuredRun(publicFile("hta_ddp_rank1_memory.json.gz"));
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QVERIFY(run.kind == RunFileKind::ChromeTrace);
    QCOMPARE(run.device, std::int64_t { 1 });
    QCOMPARE(run.samples.size(), std::size_t { 26770 });
    QCOMPARE(run.peakAllocated, std::uint64_t { 6629508096 });
    QCOMPARE(run.peakReserved, std::uint64_t { 12782141440 });
    QCOMPARE(run.steps.size(), std::size_t { 5 });
    for (const MeasuredStep& step : run.steps) {
        QVERIFY(!step.first);
        QCOMPARE(step.peakAllocated, std::uint64_t { 6629508096 });
        QCOMPARE(phasesOf(step), (std::vector<RunPhase> { RunPhase::Forward, RunPhase::Backward }));
        QCOMPARE(step.phases.front().source, PhaseSource::Annotations);
    }
    for (std::size_t k = 1; k < run.steps.size(); ++k)
        QCOMPARE(run.steps[k].firstSample, run.steps[k - 1].endSample);
}

// PyTorch 1.9's Kineto (pytorch/kineto's TensorBoard plugin sample: ResNet-50, SGD with momentum, six
// ProfilerStep spans): [memory] events with Bytes only. Python over CUDA device 0's 8,220 events in time
// order: the running sum of Bytes less its lowest value peaks at 2,791,636,480, within each of the six
// steps too; no allocation inside the Optimizer.step#SGD.step spans and no autograd engine spans, so each
// step's backward starts after its maximum (the pattern).
void TestMeasuredPublic::chromeTraceWithBytesOnly()
{
    const auto result = readMeasuredRun(publicFile("kineto_resnet50_pytorch19.json.gz"));
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QVERIFY(run.kind == RunFileKind::ChromeTrace);
    QCOMPARE(run.device, std::int64_t { 0 });
    QVERIFY(!run.absolute);
    QVERIFY(!run.hasReserved);
    QVERIFY(run.whyNotAbsolute.find("only Bytes") != std::string::npos);
    QCOMPARE(run.samples.size(), std::size_t { 8220 });
    QCOMPARE(run.peakAllocated, std::uint64_t { 2791636480 });
    QCOMPARE(run.peakReserved, std::uint64_t { 0 });
    QCOMPARE(run.steps.size(), std::size_t { 6 });
    for (const MeasuredStep& step : run.steps) {
        QVERIFY(!step.first);
        QCOMPARE(step.peakAllocated, std::uint64_t { 2791636480 });
        QCOMPARE(phasesOf(step), (std::vector<RunPhase> { RunPhase::Forward, RunPhase::Backward }));
        QCOMPARE(step.phases[0].source, PhaseSource::Annotations);
        QCOMPARE(step.phases[1].source, PhaseSource::Pattern);
        // The backward starts right after the step's allocated maximum.
        std::size_t top = step.firstSample;
        for (std::size_t i = step.firstSample; i < step.endSample; ++i) {
            if (run.samples[i].allocated > run.samples[top].allocated)
                top = i;
        }
        QCOMPARE(step.phases[1].firstSample, top + 1);
    }
}

// export_memory_timeline_raw's form (HolisticTraceAnalysis's tests/data/memory_analysis): 16,845
// [time, action, bytes, category] rows, added up per category at each of their 7,721 distinct times.
// Python (as PyTorch's _coalesce_timeline and HTA's _process_raw_events): the largest total 3,082,832,104
// bytes at sample 762; at sample 744 the categories hold what HTA's own test_memory_analysis.py asserts.
void TestMeasuredPublic::rawTimelineIsCoalesced()
{
    const auto result = readMeasuredRun(publicFile("hta_memory_timeline.raw.gz"));
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QVERIFY(run.kind == RunFileKind::MemoryTimeline);
    QVERIFY(!run.hasReserved);
    QCOMPARE(run.samples.size(), std::size_t { 7721 });
    QCOMPARE(run.peakAllocated, std::uint64_t { 3082832104 });
    QCOMPARE(run.peakAllocatedSample, std::size_t { 762 });
    // PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, unknown.
    const std::array<std::uint64_t, kProfilerCategories> at744 { 102440608, 102228128, 19395584, 0,
        2618160128, 58417152, 41811968, 25494440 };
    QCOMPARE(run.categories.at(744), at744);
    // Times in microseconds (the rows' nanoseconds / 1000), the tensors from before the profile at the
    // first time.
    QCOMPARE(run.samples.front().timeUs, std::int64_t { 1696966047096061 });
    QCOMPARE(run.samples.back().timeUs, std::int64_t { 1696966048083248 });
}

QTEST_APPLESS_MAIN(TestMeasuredPublic)
#include "tst_measuredpublic.moc"
