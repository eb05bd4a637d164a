// The allocation trace of a training run (issue 23): tinyMlp()'s two steps allocation by allocation,
// worked out by hand from the PyTorch code each event stands for; where the cuBLAS and cuDNN workspaces
// go; the optimizer implementations' per-tensor temporaries; and the trace against the step's moments
// (one simulation: the live bytes of the trace peak exactly where StepTimeline's moments do).
#include "NetworkBuilder.h"
#include "headroom/allocator/ReservedModel.h"
#include "headroom/estimate/Estimate.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

Q_DECLARE_METATYPE(headroom::Network)

namespace {

TrainingSetup plainSetup(
    Optimizer o = Optimizer::Adam, OptimizerImplementation i = OptimizerImplementation::Foreach)
{
    TrainingSetup s;
    s.optimizer = o;
    s.optimizerImplementation = i;
    s.overheadBytes = 0;
    return s;
}

AllocationTrace traceOf(const Analysis& a, const TrainingSetup& s, ReservedOptions o = {})
{
    const auto model = ReservedModel::build(a, s, o);
    if (!model)
        qFatal("ReservedModel::build: %s", model.error().message.c_str());
    return model.value().trace();
}

/// One event as the test writes it: allocate or free, kind, bytes per sample + fixed.
struct Ev
{
    char action;
    TraceKind kind;
    std::uint64_t perSample;
    std::uint64_t fixed;
};

void append(std::vector<Ev>& to, const std::vector<Ev>& part)
{
    for (const Ev& e : part)
        to.push_back(e);
}

QString describe(const TraceEvent& e)
{
    return QStringLiteral("%1 %2 %3/sample + %4 (block %5, step %6, %7)")
        .arg(e.allocate ? QLatin1Char('A') : QLatin1Char('F'))
        .arg(QString::fromStdString(std::string { traceKindName(e.kind) }))
        .arg(e.bytes.perSample)
        .arg(e.bytes.fixed)
        .arg(e.block)
        .arg(e.step)
        .arg(QString::fromStdString(std::string { traceStageName(e.stage) }));
}

/// The peak of the live requested bytes of each step (no allocator: sizes as asked for), leaving out the
/// workspaces StepTimeline does not count.
std::pair<std::uint64_t, std::uint64_t> livePeaks(const AllocationTrace& t, std::int64_t batch)
{
    std::vector<std::uint64_t> size(t.blocks(), 0);
    std::uint64_t live = 0;
    std::uint64_t peak[3] = { 0, 0, 0 };
    for (const TraceEvent& e : t.events()) {
        if (e.kind == TraceKind::CublasWorkspace || e.kind == TraceKind::CudnnWorkspace)
            continue;
        if (e.allocate) {
            size[e.block] = AllocationTrace::bytesAt(e, batch);
            live += size[e.block];
        } else {
            live -= size[e.block];
            size[e.block] = 0;
        }
        peak[std::min<std::size_t>(e.step, 2)] = std::max(peak[std::min<std::size_t>(e.step, 2)], live);
    }
    return { peak[1], peak[2] };
}

} // namespace

class TestAllocationTrace : public QObject
{
    Q_OBJECT
private slots:
    void tinyMlpAllocationByAllocation();
    void cublasWorkspaceAtEachThreadsFirstCall();
    void cudnnWorkspacesAroundConvolutions();
    void optimizerImplementations_data();
    void optimizerImplementations();
    void livePeaksAreTheMoments_data();
    void livePeaksAreTheMoments();
};

void TestAllocationTrace::tinyMlpAllocationByAllocation()
{
    // tinyMlp(): fc1 Linear(4 -> 8), relu, fc2 Linear(8 -> 2), cross-entropy; Adam foreach, fp32; no
    // cuBLAS workspaces here (next test). Per sample: fc1's output 32 B, relu's 32 B, the logits 8 B,
    // log_softmax's output 8 B; the loss a 4-byte scalar (tst_steptimeline works out the same moments).
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    ReservedOptions o;
    o.cublasWorkspaces = false;
    const AllocationTrace t = traceOf(a, plainSetup(), o);
    using K = TraceKind;
    const std::vector<Ev> forwardBackward {
        // forward: fc1's output; relu's; fc1's output is freed (nothing keeps it); fc2's (the logits);
        // log_softmax's (kept), then the logits go; the scalar loss.
        { 'A', K::Activation, 32, 0 },
        { 'A', K::Activation, 32, 0 },
        { 'F', K::Activation, 0, 0 },
        { 'A', K::Activation, 8, 0 },
        { 'A', K::Activation, 8, 0 },
        { 'F', K::Activation, 0, 0 },
        { 'A', K::Activation, 0, 4 },
        // backward: the loss's gradient (a scalar: 0 here, PyTorch's 4 bytes are a 512-byte block the
        // allocator never splits off anything for); nll_loss's: the log-probabilities' gradient 8; the
        // root's goes; log_softmax's: the logits' gradient 8; the previous goes; log_softmax's output goes.
        { 'A', K::ActivationGradient, 0, 0 },
        { 'A', K::ActivationGradient, 8, 0 },
        { 'F', K::ActivationGradient, 0, 0 },
        { 'A', K::ActivationGradient, 8, 0 },
        { 'F', K::ActivationGradient, 0, 0 },
        { 'F', K::Activation, 0, 0 },
        // fc2: relu's gradient 32, then fc2.weight's 64 B and fc2.bias's 8 B (AccumulateGrad keeps them);
        // the logits' gradient goes.
        { 'A', K::ActivationGradient, 32, 0 },
        { 'A', K::ParameterGradient, 0, 64 },
        { 'A', K::ParameterGradient, 0, 8 },
        { 'F', K::ActivationGradient, 0, 0 },
        // relu: fc1's output's gradient 32; relu's input gradient goes, relu's saved output goes.
        { 'A', K::ActivationGradient, 32, 0 },
        { 'F', K::ActivationGradient, 0, 0 },
        { 'F', K::Activation, 0, 0 },
        // fc1: its input needs no gradient; fc1.weight 128 B, fc1.bias 32 B; then the last gradient and
        // the loss (the caller's `loss` held it until backward returned).
        { 'A', K::ParameterGradient, 0, 128 },
        { 'A', K::ParameterGradient, 0, 32 },
        { 'F', K::ActivationGradient, 0, 0 },
        { 'F', K::Activation, 0, 0 },
    };
    std::vector<Ev> expected {
        // the model (weight then bias, layer by layer), then the batch and its int64 labels
        { 'A', K::Weights, 0, 128 }, { 'A', K::Weights, 0, 32 }, { 'A', K::Weights, 0, 64 },
        { 'A', K::Weights, 0, 8 }, { 'A', K::Input, 16, 0 }, { 'A', K::Input, 8, 0 }
    };
    append(expected, forwardBackward);
    // step 1's optimizer.step(): _init_group makes exp_avg and exp_avg_sq (zeros_like) parameter by
    // parameter; _multi_tensor_adam's exp_avg_sq_sqrt = _foreach_sqrt(...) (one list), freed last to first
    // when step() returns; zero_grad(set_to_none=True) frees the gradients in parameter order.
    const std::vector<Ev> state { { 'A', K::OptimizerState, 0, 128 }, { 'A', K::OptimizerState, 0, 128 },
        { 'A', K::OptimizerState, 0, 32 }, { 'A', K::OptimizerState, 0, 32 },
        { 'A', K::OptimizerState, 0, 64 }, { 'A', K::OptimizerState, 0, 64 },
        { 'A', K::OptimizerState, 0, 8 }, { 'A', K::OptimizerState, 0, 8 } };
    const std::vector<Ev> stepAndZeroGrad { { 'A', K::OptimizerTemporary, 0, 128 },
        { 'A', K::OptimizerTemporary, 0, 32 }, { 'A', K::OptimizerTemporary, 0, 64 },
        { 'A', K::OptimizerTemporary, 0, 8 }, { 'F', K::OptimizerTemporary, 0, 0 },
        { 'F', K::OptimizerTemporary, 0, 0 }, { 'F', K::OptimizerTemporary, 0, 0 },
        { 'F', K::OptimizerTemporary, 0, 0 }, { 'F', K::ParameterGradient, 0, 0 },
        { 'F', K::ParameterGradient, 0, 0 }, { 'F', K::ParameterGradient, 0, 0 },
        { 'F', K::ParameterGradient, 0, 0 } };
    append(expected, state);
    append(expected, stepAndZeroGrad);
    // step 2: the same forward and backward, then the step without making state.
    append(expected, forwardBackward);
    append(expected, stepAndZeroGrad);

    const auto& events = t.events();
    QCOMPARE(events.size(), expected.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        const bool same = (e.allocate == (expected[i].action == 'A')) && e.kind == expected[i].kind
            && (!e.allocate
                || (e.bytes.perSample == expected[i].perSample && e.bytes.fixed == expected[i].fixed));
        QVERIFY2(same, qPrintable(QStringLiteral("event %1: %2").arg(i).arg(describe(e))));
    }
    // zero_grad frees fc1.weight's gradient first (parameter order), though backward made it last.
    const auto zeroGrad = std::find_if(events.begin(), events.end(),
        [](const TraceEvent& e) { return !e.allocate && e.kind == TraceKind::ParameterGradient; });
    const auto made = std::find_if(events.begin(), events.end(),
        [&](const TraceEvent& e) { return e.allocate && e.block == zeroGrad->block; });
    QCOMPARE(made->bytes.fixed, std::uint64_t { 128 });
    // Every allocation is freed once, except what lives on: the weights, the batch, the state.
    std::vector<int> frees(t.blocks(), 0);
    for (const TraceEvent& e : events)
        frees[e.block] += e.allocate ? 0 : 1;
    for (const TraceEvent& e : events) {
        if (!e.allocate)
            continue;
        const bool kept = e.kind == TraceKind::Weights || e.kind == TraceKind::Input
            || e.kind == TraceKind::OptimizerState;
        QCOMPARE(frees[e.block], kept ? 0 : 1);
    }
}

void TestAllocationTrace::cublasWorkspaceAtEachThreadsFirstCall()
{
    // The first cuBLAS call on a thread makes its handle's workspace (CublasHandlePool.cpp
    // setWorkspaceForHandle: allocateCUDABlasWorkspace(getChosenWorkspaceSize())), which the map keeps for
    // the process: fc1's addmm in the first forward (the main thread), fc2's backward mm on autograd's
    // thread. H100 (compute capability 9.0), PyTorch 2.11: 32 MiB each; an A100 (8.0): 8,519,680 bytes.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    for (const auto& [gpu, bytes] : { std::pair { ComputeCapability { 9, 0 }, 33554432ULL },
             { ComputeCapability { 8, 0 }, 8519680ULL } }) {
        ReservedOptions o;
        o.gpu = gpu;
        const AllocationTrace t = traceOf(a, plainSetup(), o);
        std::vector<std::size_t> at;
        for (std::size_t i = 0; i < t.events().size(); ++i) {
            const TraceEvent& e = t.events()[i];
            if (e.kind == TraceKind::CublasWorkspace) {
                QVERIFY(e.allocate); // never freed
                QCOMPARE(e.bytes.fixed, bytes);
                at.push_back(i);
            }
        }
        QCOMPARE(at.size(), std::size_t { 2 });
        // Right after fc1's output (event 6: after 4 weights and 2 batch tensors), in step 1's forward.
        QCOMPARE(at[0], std::size_t { 7 });
        QCOMPARE(t.events()[at[0]].stage, TraceStage::Forward);
        QCOMPARE(a.rows[t.events()[at[0]].row].name, std::string { "fc1" });
        // After fc2's backward made relu's gradient and fc2's weight and bias gradients.
        QCOMPARE(t.events()[at[1]].stage, TraceStage::Backward);
        QCOMPARE(a.rows[t.events()[at[1]].row].name, std::string { "fc2" });
        QCOMPARE(t.events()[at[1] - 1].kind, TraceKind::ParameterGradient);
    }
}

void TestAllocationTrace::cudnnWorkspacesAroundConvolutions()
{
    // lenet5's conv1: input 1x32x32 float32 (4,096 B/sample), output 6x28x28 (18,816 B/sample), weights
    // 156 parameters (624 B). cuDNN's tensor-core plans work on NHWC copies of input and output in their
    // workspace (cuDNN: "Tensor Transformations"), so the trace asks for input + output + weights:
    // 22,912 B/sample + 624, optional (try_configs skips a plan whose workspace fails), right after the
    // output and freed after the convolution.
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    ReservedOptions o;
    o.cublasWorkspaces = false;
    const AllocationTrace t = traceOf(a, plainSetup(), o);
    const auto& ev = t.events();
    const auto first = std::find_if(
        ev.begin(), ev.end(), [](const TraceEvent& e) { return e.kind == TraceKind::CudnnWorkspace; });
    QVERIFY(first != ev.end());
    QVERIFY(first->optional);
    QCOMPARE(first->bytes.perSample, std::uint64_t { 4096 + 18816 });
    QCOMPARE(first->bytes.fixed, std::uint64_t { 624 });
    QCOMPARE((first - 1)->kind, TraceKind::Activation);
    QCOMPARE((first - 1)->bytes.perSample, std::uint64_t { 18816 });
    QVERIFY(!(first + 1)->allocate && (first + 1)->block == first->block);
    // conv2's backward (input 6x14x14, output 16x10x10, 2,416 weights): the input's gradient, its
    // workspace, the weight's gradient, its workspace, then the bias's (convolution_backward's order).
    const auto conv2 = std::find_if(ev.begin(), ev.end(), [&](const TraceEvent& e) {
        return e.stage == TraceStage::Backward && e.kind == TraceKind::CudnnWorkspace
            && a.rows[e.row].name == "3";
    });
    QVERIFY(conv2 != ev.end());
    const std::uint64_t x = 6 * 14 * 14 * 4, y = 16 * 10 * 10 * 4;
    QCOMPARE((conv2 - 1)->kind, TraceKind::ActivationGradient);
    QCOMPARE((conv2 - 1)->bytes.perSample, x);
    QCOMPARE(conv2->bytes.perSample, x + y);
    QCOMPARE(conv2->bytes.fixed, std::uint64_t { 2416 * 4 });
    QCOMPARE((conv2 + 2)->kind, TraceKind::ParameterGradient);
    QCOMPARE((conv2 + 2)->bytes.fixed, std::uint64_t { 16 * 6 * 25 * 4 });
    QCOMPARE((conv2 + 3)->kind, TraceKind::CudnnWorkspace);
    QCOMPARE((conv2 + 5)->kind, TraceKind::ParameterGradient);
    QCOMPARE((conv2 + 5)->bytes.fixed, std::uint64_t { 16 * 4 });
    // conv1's input (the batch) needs no gradient: only the weight's workspace.
    std::size_t conv1Backward = 0;
    for (const TraceEvent& e : ev)
        conv1Backward += e.step == 1 && e.stage == TraceStage::Backward && e.kind == TraceKind::CudnnWorkspace
            && e.allocate && a.rows[e.row].name == "0";
    QCOMPARE(conv1Backward, std::size_t { 1 });
}

void TestAllocationTrace::optimizerImplementations_data()
{
    QTest::addColumn<int>("optimizer");
    QTest::addColumn<int>("implementation");
    QTest::addColumn<std::vector<std::uint64_t>>("step1");
    // tinyMlp's parameters in order: 128, 32, 64, 8 bytes (float32). S = state, T = temporary; each row
    // is step 1's optimizer stage, allocations only.
    QTest::newRow("Adam foreach") << int(Optimizer::Adam) << int(OptimizerImplementation::Foreach)
                                  << std::vector<std::uint64_t> { 128, 128, 32, 32, 64, 64, 8, 8, 128, 32, 64,
                                         8 };
    // fused: state["step"] is a 0-dimensional float32 CUDA tensor per parameter (4 bytes), made first;
    // one kernel, no temporaries.
    QTest::newRow("Adam fused") << int(Optimizer::Adam) << int(OptimizerImplementation::Fused)
                                << std::vector<std::uint64_t> { 4, 128, 128, 4, 32, 32, 4, 64, 64, 4, 8, 8 };
    // for-loop (_single_tensor_adam): denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps): two
    // temporaries of the parameter, the previous parameter's denom freed once the new one exists.
    QTest::newRow("Adam for-loop") << int(Optimizer::Adam) << int(OptimizerImplementation::ForLoop)
                                   << std::vector<std::uint64_t> { 128, 128, 32, 32, 64, 64, 8, 8, 128, 128,
                                          32, 32, 64, 64, 8, 8 };
    // SGD with momentum, foreach: momentum_buffer per parameter; the update is in place.
    QTest::newRow("momentum foreach") << int(Optimizer::Momentum) << int(OptimizerImplementation::Foreach)
                                      << std::vector<std::uint64_t> { 128, 32, 64, 8 };
}

void TestAllocationTrace::optimizerImplementations()
{
    QFETCH(int, optimizer);
    QFETCH(int, implementation);
    QFETCH(std::vector<std::uint64_t>, step1);
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const AllocationTrace t
        = traceOf(a, plainSetup(Optimizer(optimizer), OptimizerImplementation(implementation)));
    std::vector<std::uint64_t> made;
    for (const TraceEvent& e : t.events()) {
        if (e.step == 1 && e.stage == TraceStage::Optimizer && e.allocate)
            made.push_back(e.bytes.fixed);
    }
    QCOMPARE(made, step1);
}

void TestAllocationTrace::livePeaksAreTheMoments_data()
{
    QTest::addColumn<Network>("net");
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("checkpointing");
    QTest::addColumn<int>("optimizer");
    QTest::addColumn<int>("implementation");
    QTest::addColumn<int>("accumulation");
    QTest::addColumn<int>("gpus");
    const int fp32 = int(Precision::Fp32);
    const int adam = int(Optimizer::Adam);
    const int foreach = int(OptimizerImplementation::Foreach);
    const Network residual = network({ 16 },
        { layer("Linear", { { "out_features", 16 } }, "fc1"), layer("ReLU", {}, "relu"),
            layer("Linear", { { "out_features", 16 } }, "fc2"), layer("Add", {}, "add", { "fc2", "fc1" }),
            layer("Linear", { { "out_features", 4 } }, "head") });
    const Network blocks = network({ 32 },
        { layer("Linear", { { "out_features", 32 } }, "in"),
            repeat("b", 30, { layer("Linear", { { "out_features", 32 } }, "fc"), layer("GELU", {}, "act") }),
            layer("Linear", { { "out_features", 3 } }, "head") });
    const Network nested = network({ 8, 16 },
        { layer("Linear", { { "out_features", 16 } }, "stem"),
            repeat("outer", 6,
                { repeat("inner", 5,
                      { layer("Linear", { { "out_features", 16 } }, "fc"), layer("GELU", {}, "act") }),
                    layer("LayerNorm", {}, "norm"), layer("Add", {}, "skip", { "norm", "stem" }) }),
            layer("Linear", { { "out_features", 5 } }, "head") });
    QTest::newRow("tinyMlp") << tinyMlp() << fp32 << 0 << adam << foreach << 1 << 1;
    QTest::newRow("lenet5") << lenet5() << fp32 << 0 << adam << foreach << 1 << 1;
    QTest::newRow("lenet5 amp-bf16") << lenet5() << int(Precision::AmpBf16) << 0 << adam << foreach << 1 << 1;
    QTest::newRow("residual sums") << residual << fp32 << 0 << adam << foreach << 1 << 1;
    QTest::newRow("Repeat, hidden iterations") << blocks << fp32 << 0 << adam << foreach << 1 << 1;
    QTest::newRow("Repeat, checkpointed")
        << blocks << fp32 << int(Checkpointing::PerBlock) << adam << foreach << 1 << 1;
    QTest::newRow("nested Repeat, checkpointed amp")
        << nested << int(Precision::AmpFp16) << int(Checkpointing::PerBlock) << adam << foreach << 1 << 1;
    QTest::newRow("accumulation") << lenet5() << fp32 << 0 << adam << foreach << 4 << 1;
    QTest::newRow("for-loop AdamW") << lenet5() << fp32 << 0 << int(Optimizer::AdamW)
                                    << int(OptimizerImplementation::ForLoop) << 1 << 1;
    QTest::newRow("Adagrad foreach") << tinyMlp() << fp32 << 0 << int(Optimizer::Adagrad) << foreach << 1
                                     << 1;
    QTest::newRow("DDP buckets") << lenet5() << fp32 << 0 << adam << foreach << 1 << 4;
}

void TestAllocationTrace::livePeaksAreTheMoments()
{
    // One simulation: the trace's live bytes (as requested, no allocator) peak exactly at StepTimeline's
    // peaks, in the first step and in the steady step, at every batch (workspaces aside, which the
    // moments do not hold).
    QFETCH(Network, net);
    QFETCH(int, precision);
    QFETCH(int, checkpointing);
    QFETCH(int, optimizer);
    QFETCH(int, implementation);
    QFETCH(int, accumulation);
    QFETCH(int, gpus);
    AnalysisOptions options;
    options.precision = Precision(precision);
    options.checkpointing = Checkpointing(checkpointing);
    const Analysis a = analyze(net, options);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    TrainingSetup s = plainSetup(Optimizer(optimizer), OptimizerImplementation(implementation));
    s.accumulationSteps = accumulation;
    s.parallel.gpus = gpus;
    const auto model = MemoryModel::build(a, s);
    QVERIFY(model.ok());
    const AllocationTrace t = traceOf(a, s);
    for (const std::int64_t batch : { 1, 3, 64, 1000 }) {
        const auto [first, steady] = livePeaks(t, batch);
        QCOMPARE(first, model->firstStepPeak(batch));
        QCOMPARE(steady, model->at(batch).value().total());
    }
}

QTEST_APPLESS_MAIN(TestAllocationTrace)
#include "tst_allocationtrace.moc"
