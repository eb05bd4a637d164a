// The command line as scripts use it: the real `headroom` binary run as a process.
#include "RunHeadroom.h"
#include "headroom/support/Format.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// LeNet-5: 61,706 parameters; per sample 44,984 activation, 4,104 input and 37,632 transient bytes
// (worked out in tests/core/tst_activations.cpp).
const char* kLeNet = R"({"format": "headroom-model", "version": 1, "name": "LeNet-5",
  "input": {"shape": [1, 32, 32]},
  "layers": [
    {"type": "Conv2d", "out_channels": 6, "kernel_size": 5}, {"type": "ReLU"}, {"type": "MaxPool2d", "kernel_size": 2},
    {"type": "Conv2d", "out_channels": 16, "kernel_size": 5}, {"type": "ReLU"}, {"type": "MaxPool2d", "kernel_size": 2},
    {"type": "Flatten"}, {"type": "Linear", "out_features": 120}, {"type": "ReLU"},
    {"type": "Linear", "out_features": 84}, {"type": "ReLU"}, {"type": "Linear", "out_features": 10}]})";

// A two-layer MLP whose every parameter tensor has a multiple of 8 elements (64x64 + 64, 8x64 + 8:
// 4,680 parameters), so sharding over 2, 4 or 8 GPUs divides each tensor exactly: fp32 Adam keeps
// 18,720 bytes of weights, 18,720 of gradients and 37,440 of optimizer state on one GPU.
const char* kMlp = R"({"format": "headroom-model", "version": 1, "name": "Shardable MLP",
  "input": {"shape": [64]},
  "layers": [{"type": "Linear", "name": "fc1", "out_features": 64}, {"type": "ReLU"},
             {"type": "Linear", "name": "fc2", "out_features": 8}]})";

// Attention-style projections on a [16, 64] sequence: q_proj and v_proj 64x64 + 64 (4,160 each),
// head 64x10 + 10 (650): 8,970 base parameters. LoRA rank 8 on q_proj,v_proj adds A (8x64) and B
// (64x8) to each: 2 x 1,024 = 2,048 trainable adapter parameters, every base weight frozen.
const char* kProjections = R"({"format": "headroom-model", "version": 1, "name": "Projections",
  "input": {"shape": [16, 64]},
  "layers": [{"type": "Linear", "name": "q_proj", "out_features": 64},
             {"type": "Linear", "name": "v_proj", "out_features": 64}, {"type": "ReLU"},
             {"type": "Linear", "name": "head", "out_features": 10}]})";

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void versionAndHelp();
    void estimateJson();
    void estimateTable();
    void layerTableKeepsLongNamesApart();
    void maxBatch();
    void overheadDefaultsToTheGpusContext();
    void gpus();
    void errors_data();
    void errors();
    void reportWritesPdf();

    // Issue #7: training strategies on the command line.
    void onnxFile();
    void hfConfigFile();
    void strategiesInHelp();
    void accumulationMultipliesEffectiveBatch();
    void tensorParallelDividesReplicas();
    void sharding_data();
    void sharding();
    void offloadAndEightBitOptimizer();
    void lora();
    void freeze();
    void layerFlopsJson();
    void optimizerStepPeak();
    void checkpointingSavings();
    void attentionAndSequenceLength();
    void throughputJson();
    void throughputTable();
    void setupLinesOnlyWhenNotDefault();
    void reportWithStrategies();
    void lossOption_data();
    void lossOption();
    void warningsGoToStderr();
    void moeImbalance();

    // Issues #16 and #17: help, mistakes and hostile input on the command line.
    void subcommandHelp_data();
    void subcommandHelp();
    void nonUtf8NamesAreEscaped_data();
    void nonUtf8NamesAreEscaped();
    void longNamesAreCut();
    void tinyNumbersAreInRange();
    void reportKeepsSpecialFiles_data();
    void reportKeepsSpecialFiles();
    void unestimableReportWritesNothing();
    void commandLineWithoutGui();

    // Issue #18: plan and compare.
    void planSetupsReEstimate_data();
    void planSetupsReEstimate();
    void planTable();
    void planNothingFits();
    void compareAgreesWithMaxBatch();
    void compareTable();
    void reportIncludesPlan();

private:
    [[nodiscard]] nlohmann::json jsonOf(const QStringList& args);
    QTemporaryDir m_dir;
    QString m_lenet;
    QString m_mlp;
    QString m_tiny;
    QString m_projections;
    QString m_gpt2;
};

nlohmann::json TestCli::jsonOf(const QStringList& args)
{
    const Run r = runHeadroom(
        QStringList { QStringLiteral("estimate") } + args + QStringList { QStringLiteral("--json") });
    if (r.exitCode != 0) {
        qWarning("headroom estimate %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.exitCode,
            qPrintable(r.err));
        return {};
    }
    return nlohmann::json::parse(r.out.toStdString());
}

void TestCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_lenet = m_dir.filePath(QStringLiteral("lenet.json"));
    QFile f(m_lenet);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kLeNet);
    f.close();
    QFile broken(m_dir.filePath(QStringLiteral("broken.json")));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{\"format\": \"headroom-model\",\n  \"version\": 1,\n  \"layers\": [");
    broken.close();
    const auto writeFile = [&](const QString& name, const QByteArray& text) {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(text);
        return f.fileName();
    };
    m_mlp = writeFile(QStringLiteral("mlp.json"), kMlp);
    // tests/core's tinyMlp(), whose training step tst_steptimeline works out by hand moment by moment.
    m_tiny = writeFile(QStringLiteral("tiny.json"),
        R"({"format": "headroom-model", "version": 1, "name": "tiny", "input": {"shape": [4]},
                           "layers": [{"type": "Linear", "name": "fc1", "out_features": 8},
                                      {"type": "ReLU", "name": "relu"},
                                      {"type": "Linear", "name": "fc2", "out_features": 2}]})");
    m_projections = writeFile(QStringLiteral("projections.json"), kProjections);
    // Bad files for the error table: an ONNX file cut off mid-way, a config.json with a broken value.
    QFile resnet(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/resnet18.onnx"));
    QVERIFY(resnet.open(QIODevice::ReadOnly));
    writeFile(QStringLiteral("truncated.onnx"), resnet.read(resnet.size() / 2));
    QDir(m_dir.path()).mkpath(QStringLiteral("hf"));
    writeFile(QStringLiteral("hf/config.json"),
        R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 30,
                  "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096})");
    m_gpt2 = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    QVERIFY(QFile::exists(m_gpt2));

    // Issue #17: bad input that crashed, lied or overwrote.
    writeFile(QStringLiteral("duplicate_key.json"),
        QByteArray(kLeNet).replace("\"layers\": [", "\"layers\": [],\n \"layers\": ["));
    const char16_t utf16[] = u"{\"format\": \"headroom-model\"}"; // as Windows Notepad's "Unicode" saves it
    writeFile(QStringLiteral("utf16.json"),
        QByteArray("\xFF\xFE", 2) + QByteArray(reinterpret_cast<const char*>(utf16), sizeof utf16 - 2));
    writeFile(QStringLiteral("random.json"), QByteArray("\xEF\x12\x99\xFF\x41\x80", 6));
    // conv1 with padding 2^31 - 1: (32 + 2 x 2147483647 - 5) / 1 + 1 = 4,294,967,322 per side, so its
    // 6 x 4,294,967,322^2 output has about 1.1e20 elements, more than 64 bits hold.
    writeFile(QStringLiteral("overflow.json"),
        QByteArray(kLeNet).replace("\"kernel_size\": 5}", "\"kernel_size\": 5, \"padding\": 2147483647}"));
    // Linear(8 -> 4) has a [4, 8] weight, Linear(4 -> 8) an [8, 4] one: as many elements, and no
    // matrix product takes one for the other.
    writeFile(QStringLiteral("tied_transposed.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "Linear", "name": "a", "out_features": 4},
                 {"type": "Linear", "name": "b", "out_features": 8, "tied_to": "a"}]})");
    writeFile(QStringLiteral("repeat_name_clash.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "Repeat", "name": "b", "times": 2, "layers": [{"type": "ReLU", "name": "r"}]},
                 {"type": "ReLU", "name": "b.0.r"}]})");
    writeFile(QStringLiteral("index_name_clash.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "ReLU"}, {"type": "ReLU", "name": "0"}]})");
    // Softmax over axis 5 of a [B, 3] output: loads, but cannot be estimated.
    writeFile(QStringLiteral("unestimable.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "Linear", "out_features": 3}, {"type": "Softmax", "dim": 5}]})");
}

void TestCli::versionAndHelp()
{
    const Run v = runHeadroom({ QStringLiteral("--version") });
    QCOMPARE(v.exitCode, 0);
    QCOMPARE(v.out, QStringLiteral("headroom " HEADROOM_VERSION "\n"));
    const Run h = runHeadroom({ QStringLiteral("--help") });
    QCOMPARE(h.exitCode, 0);
    for (const char* fragment : { "GeForce GTX 1080]", "[adam]", "[fp32]", "[32]", "max-batch", "report",
             "gpus", "headroom plan FILE", "headroom compare FILE", "--target-batch N", "--allow LIST",
             "--gpus-list LIST" })
        QVERIFY2(h.out.contains(QLatin1String(fragment)), fragment);
}

void TestCli::estimateJson()
{
    // tinyMlp with Adam fp32 at batch 32 (tst_steptimeline): the peak is relu's backward, 4,612 bytes +
    // 512 MiB overhead: weights 232, fc2's gradients 72, Adam 464, relu's output 1,024 and the 4-byte
    // loss the training loop's `loss` still holds, the batch 768, the gradients of relu's and fc1's
    // outputs 2,048. The overhead is the GTX 1080's CUDA context (Pascal, lazy loading: 512 MiB,
    // docs/memory-model.md). Max batch by the tensors alone: from batch 5 the peak is 772 + 120 B bytes +
    // overhead: (8 GiB - 512 MiB - 772) / 120 = 67,108,857.6; see maxBatch() for the reserved answer.
    const Run r = runHeadroom({ QStringLiteral("estimate"), m_tiny, QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["params"]["total"].get<std::uint64_t>(), std::uint64_t { 58 });
    QCOMPARE(j["params"]["trainable"].get<std::uint64_t>(), std::uint64_t { 58 });
    QCOMPARE(j["batch"].get<int>(), 32);
    QCOMPARE(j["gpu"]["name"].get<std::string>(), std::string("GeForce GTX 1080"));
    QCOMPARE(j["gpu"]["memory_bytes"].get<std::uint64_t>(), std::uint64_t { 8 } << 30);
    QCOMPARE(j["bytes"]["weights"].get<std::uint64_t>(), std::uint64_t { 232 });
    QCOMPARE(j["bytes"]["gradients"].get<std::uint64_t>(), std::uint64_t { 72 });
    QCOMPARE(j["bytes"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 464 });
    QCOMPARE(j["bytes"]["activations"].get<std::uint64_t>(), std::uint64_t { 1024 + 4 });
    QCOMPARE(j["bytes"]["input"].get<std::uint64_t>(), std::uint64_t { 768 });
    QCOMPARE(j["bytes"]["transient"].get<std::uint64_t>(), std::uint64_t { 2048 });
    QCOMPARE(j["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 512 } << 20);
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t { 4612 + (512ULL << 20) });
    QCOMPARE(j["peak"]["phase"].get<std::string>(), std::string("backward"));
    QCOMPARE(j["peak"]["layer"].get<std::string>(), std::string("relu"));
    QVERIFY(j["fits"].get<bool>());
    QVERIFY(j["max_batch"].get<std::int64_t>() <= 67'108'857);
    QCOMPARE(j["max_batch"].get<std::int64_t>(), j["reserved"]["max_batch"].get<std::int64_t>());
    // Reserved at batch 32, by hand from the allocator's rules: every tensor is under 1 MiB, so all share
    // one 2 MiB small-pool segment (a few dozen blocks of 512 B or 1 KiB); the two cuBLAS workspaces
    // (Pascal, PyTorch 2.x: ":4096:2:16:8" = 8,519,680 B each, forward and backward) are 1-10 MiB
    // requests: the first gets a 20 MiB large-pool segment, the second its free remainder (12,451,840 B).
    QCOMPARE(
        j["reserved"]["peak_bytes"].get<std::uint64_t>(), std::uint64_t { (20ULL << 20) + (2ULL << 20) });
    QCOMPARE(j["reserved"]["peak_with_overhead_bytes"].get<std::uint64_t>(),
        std::uint64_t { (22ULL << 20) + (512ULL << 20) });
    QCOMPARE(j["reserved"]["overhead_bytes"].get<std::uint64_t>(), std::uint64_t { 512 } << 20);
    QCOMPARE(j["reserved"]["cuda_context"]["bytes"].get<std::uint64_t>(), std::uint64_t { 512 } << 20);
    QCOMPARE(j["reserved"]["capacity_bytes"].get<std::uint64_t>(),
        (std::uint64_t { 8 } << 30) - (std::uint64_t { 512 } << 20));
    QCOMPARE(
        j["reserved"]["workspaces"]["cublas_bytes"].get<std::uint64_t>(), std::uint64_t { 2 * 8'519'680 });
    QCOMPARE(j["reserved"]["workspaces"]["cudnn_largest_bytes"].get<std::uint64_t>(),
        std::uint64_t { 0 }); // no convolution
    QVERIFY(j["reserved"]["fits"].get<bool>());
    QVERIFY(!j["reserved"]["expandable_segments"].get<bool>());
    // --expandable-segments (issue 23): the small pool grows one segment by 2 MiB pages, the large pool
    // another by 20 MiB pages. The tensors still need one small page; the two 8,519,680-byte
    // workspaces (16.25 MiB) one large page: the same 22 MiB, now from two segments that can grow.
    const Run x = runHeadroom({ QStringLiteral("estimate"), m_tiny, QStringLiteral("--json"),
        QStringLiteral("--expandable-segments") });
    QCOMPARE(x.exitCode, 0);
    const auto xj = nlohmann::json::parse(x.out.toStdString());
    QVERIFY(xj["reserved"]["expandable_segments"].get<bool>());
    QCOMPARE(xj["reserved"]["peak_bytes"].get<std::uint64_t>(), std::uint64_t { 22ULL << 20 });
    const Run xt
        = runHeadroom({ QStringLiteral("estimate"), m_tiny, QStringLiteral("--expandable-segments") });
    QVERIFY2(xt.out.contains(
                 QStringLiteral("Reserved by PyTorch's caching allocator (expandable segments): 22.00 MiB")),
        qPrintable(xt.out));
    // When forward ends: relu's and log_softmax's outputs (40 B per sample) and the scalar loss.
    QCOMPARE(j["at_end_of_forward"]["activations"].get<std::uint64_t>(), std::uint64_t { 32 * 40 + 4 });
    // The optimizer step: every gradient (232) and foreach Adam's temporary list (232).
    QCOMPARE(j["at_optimizer_step"]["gradients"].get<std::uint64_t>(), std::uint64_t { 232 });
    QCOMPARE(j["at_optimizer_step"]["transient"].get<std::uint64_t>(), std::uint64_t { 232 });
    QCOMPARE(j["layers"].size(), std::size_t { 4 }); // 3 layers + the loss
    std::uint64_t perSample = 0;
    for (const auto& l : j["layers"])
        perSample += l["activation_bytes_per_sample"].get<std::uint64_t>();
    QCOMPARE(perSample, std::uint64_t { 40 });

    // Under autocast fp16 with SGD: fc1 keeps a half copy of its input (for its weight gradient, 8 B),
    // relu's half output (16 B) is kept, the loss casts the half logits to float32 and keeps its
    // log-softmax (8 B): 32 B per sample, at batch 8 with the scalar loss 260 bytes. SGD keeps no state.
    const Run amp = runHeadroom({ QStringLiteral("estimate"), m_tiny, QStringLiteral("--json"),
        QStringLiteral("--precision"), QStringLiteral("amp-fp16"), QStringLiteral("--optimizer"),
        QStringLiteral("sgd"), QStringLiteral("--batch"), QStringLiteral("8"), QStringLiteral("--gpu"),
        QStringLiteral("RTX 4090") });
    QCOMPARE(amp.exitCode, 0);
    const auto k = nlohmann::json::parse(amp.out.toStdString());
    QCOMPARE(k["at_end_of_forward"]["activations"].get<std::uint64_t>(), std::uint64_t { 8 * 32 + 4 });
    QCOMPARE(k["bytes"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 0 });
    QCOMPARE(k["gpu"]["memory_bytes"].get<std::uint64_t>(), std::uint64_t { 24 } << 30);
}

void TestCli::estimateTable()
{
    const Run r = runHeadroom(
        { QStringLiteral("estimate"), m_lenet, QStringLiteral("--batch"), QStringLiteral("64") });
    QCOMPARE(r.exitCode, 0);
    for (const char* fragment :
        { "LeNet-5", "61,706 parameters", "GeForce GTX 1080", "batch 64", "Activations", "Optimizer state",
            "Max batch: ", "The peak is in the backward pass, at layer", "CrossEntropyLoss" })
        QVERIFY2(r.out.contains(QLatin1String(fragment)),
            qPrintable(QLatin1String(fragment) + QLatin1Char('\n') + r.out));
    const Run tiny = runHeadroom({ QStringLiteral("estimate"), m_tiny });
    const Run tinyMax = runHeadroom({ QStringLiteral("max-batch"), m_tiny }); // maxBatch() bounds it by hand
    QVERIFY2(tiny.out.contains(QStringLiteral("Max batch: ") + tinyMax.out), qPrintable(tiny.out));
    QVERIFY2(tiny.out.contains(QStringLiteral("The peak is in the backward pass, at layer relu")),
        qPrintable(tiny.out));
}

// Llama's layer names ("model.layers.0.post_attention_layernorm") are longer than any fixed column.
void TestCli::layerTableKeepsLongNamesApart()
{
    const Run r = runHeadroom({ QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"),
        QStringLiteral("--sequence-length"), QStringLiteral("128") });
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = r.out.split(QLatin1Char('\n'));
    const auto header = std::find_if(
        lines.begin(), lines.end(), [](const QString& l) { return l.startsWith(QLatin1Char('#')); });
    QVERIFY2(header != lines.end(), qPrintable(r.out));
    int layerRows = 0;
    for (auto line = std::next(header); line != lines.end() && !line->isEmpty(); ++line) {
        const QStringList cells = line->split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QVERIFY2(cells.size() >= 6, qPrintable(*line));
        QVERIFY2(
            !cells[1].contains(QStringLiteral("Linear")) && !cells[1].contains(QStringLiteral("RMSNorm")),
            qPrintable(*line));
        ++layerRows;
    }
    // The embedding, the 14 layers of the 32 identical blocks (one line each: "model.layers.0–31.x
    // × 32"), the final norm, the head and the loss.
    QCOMPARE(layerRows, 1 + 14 + 2 + 1);
    QVERIFY2(r.out.contains(
                 QRegularExpression(QStringLiteral("model\\.layers\\.0\u2013"
                                                   "31\\.post_attention_layernorm \u00d7 32 +RMSNorm "))),
        qPrintable(r.out));
}

void TestCli::maxBatch()
{
    // tinyMlp (estimateJson). The answer comes from the reserved peak (issue 23), which is at least
    // the tensors' (rounding, workspaces), and keeps a margin of 2 % of the allocator's capacity
    // (docs/memory-model.md). The allocator gets C = 8 GiB - 512 MiB (the GTX 1080's context);
    // Pascal's two cuBLAS workspaces (8,519,680 B each) share one 20 MiB segment; at these batches
    // every per-sample tensor is a large block rounded up to 2 MiB (a few of them alive at once: at
    // most 16 MiB of rounding, 139,810 samples).
    //   above: the tensors alone, (C - 772) / 120 = 67,108,857.6 (the old answer);
    //   below: (C - 2 % of C - 20 MiB - 16 MiB - 772) / 120 = 65,452,107.5.
    const Run r = runHeadroom({ QStringLiteral("max-batch"), m_tiny });
    QCOMPARE(r.exitCode, 0);
    const qint64 answer = r.out.trimmed().toLongLong();
    QVERIFY2(answer <= 67'108'857 && answer >= 65'452'107, qPrintable(r.out));
    // The smallest custom card, 0.25 GiB, with no overhead: the tensors alone would allow
    // (268,435,456 - 768) / 120 = 2,236,955.7, but a custom GPU gets Hopper's cuBLAS workspaces
    // (2 x 32 MiB, each its own segment), which leave (268,435,456 - 64 MiB - 768) / 120 = 1,677,715.2
    // at most; less the 2 % margin (5,368,709 B) and 16 MiB of rounding: 1,493,165.8 at least.
    const Run small = runHeadroom({ QStringLiteral("max-batch"), m_tiny, QStringLiteral("--gpu-memory-gib"),
        QStringLiteral("0.25"), QStringLiteral("--overhead-mib"), QStringLiteral("0") });
    QCOMPARE(small.exitCode, 0);
    const qint64 smallAnswer = small.out.trimmed().toLongLong();
    QVERIFY2(smallAnswer <= 1'677'715 && smallAnswer >= 1'493'165, qPrintable(small.out));
}

void TestCli::overheadDefaultsToTheGpusContext()
{
    // Without --overhead-mib the overhead is the CUDA context Headroom assumes for the GPU
    // (docs/memory-model.md): 768 MiB on Hopper (718 MB measured on an H100, rounded up), 512 MiB on
    // the default GTX 1080 (Pascal); --overhead-mib 0 gives the allocator the whole memory.
    const auto h100 = jsonOf({ m_lenet, QStringLiteral("--gpu"), QStringLiteral("H100 SXM5 80GB") });
    QCOMPARE(h100["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 768 } << 20);
    QCOMPARE(h100["reserved"]["overhead_bytes"].get<std::uint64_t>(), std::uint64_t { 768 } << 20);
    QCOMPARE(h100["reserved"]["cuda_context"]["bytes"].get<std::uint64_t>(), std::uint64_t { 768 } << 20);
    QCOMPARE(h100["reserved"]["capacity_bytes"].get<std::uint64_t>(),
        h100["gpu"]["memory_bytes"].get<std::uint64_t>() - (std::uint64_t { 768 } << 20));
    // Hopper's cuBLAS workspace: 32 MiB per handle, two handles (forward and backward threads).
    QCOMPARE(h100["reserved"]["workspaces"]["cublas_bytes"].get<std::uint64_t>(), std::uint64_t { 64 } << 20);
    const auto pascal = jsonOf({ m_lenet });
    QCOMPARE(pascal["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 512 } << 20);
    const auto none = jsonOf({ m_lenet, QStringLiteral("--gpu"), QStringLiteral("H100 SXM5 80GB"),
        QStringLiteral("--overhead-mib"), QStringLiteral("0") });
    QCOMPARE(none["reserved"]["capacity_bytes"].get<std::uint64_t>(),
        h100["gpu"]["memory_bytes"].get<std::uint64_t>());
    QCOMPARE(none["reserved"]["cuda_context"]["bytes"].get<std::uint64_t>(),
        std::uint64_t { 768 } << 20); // still said
    // The text says both figures and where the max batch comes from.
    const Run text = runHeadroom({ QStringLiteral("estimate"), m_lenet });
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(
        text.out.contains(QStringLiteral("Reserved by PyTorch's caching allocator: ")), qPrintable(text.out));
    QVERIFY2(text.out.contains(QStringLiteral("from the reserved peak, keeping ")), qPrintable(text.out));
}

void TestCli::gpus()
{
    const Run r = runHeadroom({ QStringLiteral("gpus"), QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(j.size() >= 30);
    const Run table = runHeadroom({ QStringLiteral("gpus") });
    QVERIFY(table.out.contains(QStringLiteral("GeForce GTX 1080")));
    // Every catalogue row keeps its name, vendor and figures in separate columns.
    const QStringList rows = table.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(rows.size(), static_cast<qsizetype>(j.size()) + 1);
    for (const QString& row : rows.mid(1))
        QVERIFY2(row.contains(QRegularExpression(QStringLiteral("\\S  +(NVIDIA|AMD|Intel) +\\d"))),
            qPrintable(row));
}

void TestCli::errors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("ambiguous gpu") << QStringList {
        QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--gpu"), QStringLiteral("1080")
    } << "GPU \"1080\" is ambiguous: it matches GeForce GTX 1080, GeForce GTX 1080 Ti";
    QTest::newRow("unknown gpu") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--gpu"), QStringLiteral("Voodoo") }
                                 << "unknown GPU \"Voodoo\"";
    QTest::newRow("bad batch") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--batch"), QStringLiteral("lots") }
                               << "--batch must be an integer from 1 to 2147483648, not \"lots\"";
    QTest::newRow("zero batch") << QStringList { QStringLiteral("max-batch"), QStringLiteral("@lenet"),
        QStringLiteral("--batch"), QStringLiteral("0") }
                                << "--batch must be an integer";
    QTest::newRow("bad optimizer") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--optimizer"), QStringLiteral("lion") }
                                   << "--optimizer must be one of sgd|momentum";
    QTest::newRow("bad precision") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--precision"), QStringLiteral("fp8") }
                                   << "--precision must be one of";
    QTest::newRow("unknown option") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--fast") } << "unknown option \"--fast\" (see headroom estimate --help)";
    QTest::newRow("missing file") << QStringList { QStringLiteral("estimate") }
                                  << "estimate needs a model file";
    QTest::newRow("no such file") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("/nonexistent/model.json") }
                                  << "/nonexistent/model.json: no such file";
    QTest::newRow("truncated file") << QStringList { QStringLiteral("estimate"), QStringLiteral("@broken") }
                                    << "broken.json: line 3, column 14:";
    QTest::newRow("option without value")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--gpu") }
        << "--gpu needs a value";
    QTest::newRow("report without output")
        << QStringList { QStringLiteral("report"), QStringLiteral("@lenet") } << "report needs -o OUT.pdf";

    // Issue #7 options.
    const auto lenet = [](std::initializer_list<const char*> rest) {
        QStringList args { QStringLiteral("estimate"), QStringLiteral("@lenet") };
        for (const char* a : rest)
            args << QString::fromLatin1(a);
        return args;
    };
    QTest::newRow("unknown sharding")
        << lenet({ "--sharding", "zero4" })
        << "--sharding must be one of ddp|zero1|zero2|zero3|fsdp-shard-grad-op|fsdp-full-shard, not "
           "\"zero4\"";
    QTest::newRow("zero gpus") << lenet({ "--gpus", "0" })
                               << "--gpus must be an integer from 1 to 1048576, not \"0\"";
    QTest::newRow("gpus not a number") << lenet({ "--gpus", "four" }) << "--gpus must be an integer";
    QTest::newRow("tensor parallel not dividing")
        << lenet({ "--gpus", "4", "--tensor-parallel", "3" }) << "--tensor-parallel 3 must divide --gpus 4";
    QTest::newRow("tensor parallel above gpus")
        << lenet({ "--tensor-parallel", "2" }) << "--tensor-parallel 2 must divide --gpus 1";
    QTest::newRow("negative lora rank")
        << lenet({ "--lora-rank", "-1" }) << "--lora-rank must be an integer from 1 to 65536, not \"-1\"";
    QTest::newRow("qlora without rank") << lenet({ "--qlora" }) << "--qlora needs --lora-rank";
    QTest::newRow("lora targets without rank")
        << lenet({ "--lora-targets", "q_proj" }) << "--lora-targets needs --lora-rank";
    QTest::newRow("empty lora target")
        << lenet({ "--lora-rank", "8", "--lora-targets", "q_proj,,v_proj" })
        << "--lora-targets must be a comma-separated list of layer names, not \"q_proj,,v_proj\"";
    QTest::newRow("lora dropout 1") << lenet({ "--lora-rank", "8", "--lora-dropout", "1" })
                                    << "--lora-dropout must be a probability";
    QTest::newRow("zero sequence length")
        << lenet({ "--sequence-length", "0" }) << "--sequence-length must be an integer from 1 to 2147483648";
    QTest::newRow("absurd sequence length")
        << lenet({ "--sequence-length", "100000000000000" })
        << "--sequence-length must be an integer from 1 to 2147483648, not \"100000000000000\"";
    QTest::newRow("sequence length of a CNN") << lenet({ "--sequence-length", "128" }) << "sequence";
    QTest::newRow("sequence beyond the position table") << QStringList { QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json"),
        QStringLiteral("--sequence-length"),
        QStringLiteral("4096") } << "the sequence has 4096 positions but the table only 1024";
    QTest::newRow("sequence overflowing eager attention") << QStringList { QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"),
        QStringLiteral("--sequence-length"), QStringLiteral("2147483648"), QStringLiteral("--attention"),
        QStringLiteral("eager") } << "overflow";
    QTest::newRow("unknown checkpointing")
        << lenet({ "--checkpointing", "all" })
        << "--checkpointing must be one of none|per-block|selective, not \"all\"";
    QTest::newRow("unknown attention")
        << lenet({ "--attention", "flash3" }) << "--attention must be sdpa or eager, not \"flash3\"";
    QTest::newRow("zero accumulation")
        << lenet({ "--accumulation-steps", "0" }) << "--accumulation-steps must be an integer from 1";
    QTest::newRow("steps x gpus too many") << lenet({ "--accumulation-steps", "1048576", "--gpus", "4096" })
                                           << "--accumulation-steps x --gpus must be at most 2147483648";
    QTest::newRow("zero utilization") << lenet({ "--utilization", "0" })
                                      << "--utilization must be a fraction of peak from 0.01 to 1, not \"0\"";
    QTest::newRow("vanishing utilization")
        << lenet({ "--utilization", "1e-300" }) << "--utilization must be a fraction of peak from 0.01 to 1";
    QTest::newRow("freeze unknown layer")
        << lenet({ "--freeze", "encoder" }) << "--freeze: no layer is named \"encoder\"";
    QTest::newRow("offload without zero")
        << lenet({ "--offload-optimizer" }) << "offloading the optimizer to the CPU needs DeepSpeed ZeRO";
    QTest::newRow("vanishing gpu memory")
        << lenet({ "--gpu-memory-gib", "1e-12" })
        << "--gpu-memory-gib must be a number of GiB from 0.25 to 4096, not \"1e-12\"";
    QTest::newRow("absurd gpu memory") << lenet({ "--gpu-memory-gib", "1e6" })
                                       << "--gpu-memory-gib must be a number of GiB from 0.25 to 4096";
    QTest::newRow("utilization above 1")
        << lenet({ "--utilization", "1.5" }) << "--utilization must be a fraction";
    QTest::newRow("max-batch validates too") << QStringList { QStringLiteral("max-batch"),
        QStringLiteral("@lenet"), QStringLiteral("--sharding"), QStringLiteral("zero") }
                                             << "--sharding must be one of";
    QTest::newRow("report validates too") << QStringList { QStringLiteral("report"), QStringLiteral("@lenet"),
        QStringLiteral("-o"), QStringLiteral("@out.pdf"), QStringLiteral("--gpus"), QStringLiteral("0") }
                                          << "--gpus must be an integer";
    QTest::newRow("truncated onnx") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("@truncated.onnx") }
                                    << "truncated.onnx";
    QTest::newRow("onnx opset 99") << QStringList { QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/opset99.onnx") }
                                   << "opset99.onnx";
    QTest::newRow("bad config.json") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("@hf/config.json") }
                                     << "config.json";

    // Issue #17: no option takes a non-finite number (NaN converted to a byte count is undefined).
    QTest::newRow("overhead nan") << lenet({ "--overhead-mib", "nan" })
                                  << "--overhead-mib must be a number of MiB from 0 to 1048576, not \"nan\"";
    QTest::newRow("overhead inf") << lenet({ "--overhead-mib", "inf" })
                                  << "--overhead-mib must be a number of MiB";
    QTest::newRow("overhead 1e400") << lenet({ "--overhead-mib", "1e400" })
                                    << "--overhead-mib must be a number of MiB";
    QTest::newRow("gpu memory nan") << lenet({ "--gpu-memory-gib", "nan" })
                                    << "--gpu-memory-gib must be a number of GiB";
    QTest::newRow("gpu memory -inf") << lenet({ "--gpu-memory-gib", "-inf" })
                                     << "--gpu-memory-gib must be a number of GiB";
    QTest::newRow("utilization nan") << lenet({ "--utilization", "NaN" })
                                     << "--utilization must be a fraction of peak";
    QTest::newRow("utilization infinity")
        << lenet({ "--utilization", "infinity" }) << "--utilization must be a fraction";
    QTest::newRow("lora dropout nan")
        << lenet({ "--lora-rank", "4", "--lora-dropout", "nan" }) << "--lora-dropout must be a probability";
    QTest::newRow("hexadecimal overhead")
        << lenet({ "--overhead-mib", "0x10" }) << "--overhead-mib must be a number";
    QTest::newRow("gpu and custom memory")
        << lenet({ "--gpu", "RTX 4090", "--gpu-memory-gib", "24" })
        << "--gpu and --gpu-memory-gib both choose the GPU: give one of them";
    // Files the command line must refuse with a message, never a crash or a silently different model.
    QTest::newRow("duplicate key")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@duplicate_key") }
        << "duplicate_key.json: layers is given more than once; give each key once (the "
           "second is at line 4, column 2)";
    QTest::newRow("UTF-16 file") << QStringList { QStringLiteral("estimate"), QStringLiteral("@utf16") }
                                 << "utf16.json: the file is UTF-16 text; save it as UTF-8";
    QTest::newRow("random bytes")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@random") }
        << "random.json: read as a Headroom model file (its name does not end in .onnx or "
           "config.json), but it cannot be read as JSON: line 1, column 1: not UTF-8 text: "
           "byte 0 is 0xEF";
    QTest::newRow("shape overflow")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@overflow") }
        << "layers[0] (Conv2d): its output [6, 4294967322, 4294967322] overflows 64-bit "
           "sizes";
    QTest::newRow("tied transposed weights")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@tied_transposed") }
        << "layers[1].tied_to: this layer's weight is [8, 4] but \"a\"'s is [4, 8]";
    QTest::newRow("name of a Repeat's layer")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@repeat_name_clash") }
        << "layers[1]: its name \"b.0.r\" is already the name of layers[0].layers[0]";
    QTest::newRow("name of an unnamed layer") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("@index_name_clash") } << "layers[1]: its name \"0\" is already the name of layers[0]";
    QTest::newRow("endless file") << QStringList { QStringLiteral("estimate"), QStringLiteral("/dev/zero") }
                                  << "/dev/zero: holds more than the 64.00 MiB (67,108,864 bytes) allowed";
    QTest::newRow("report of an unestimable network") << QStringList { QStringLiteral("report"),
        QStringLiteral("@unestimable"), QStringLiteral("-o"), QStringLiteral("@never.pdf") }
                                                      << "layers[1] (Softmax): dim 5 is not a feature axis";
    // Issue #16: a first argument that is neither a command nor a file is an error, not the GUI.
    QTest::newRow("mistyped command")
        << QStringList { QStringLiteral("estmate"), QStringLiteral("@lenet") }
        << "\"estmate\" is neither a command nor an existing file; the commands are "
           "estimate, max-batch, plan, compare, report, gpus, help (did you mean estimate?)";
    QTest::newRow("missing file without a command")
        << QStringList { QStringLiteral("/nonexistent/model.json") }
        << "\"/nonexistent/model.json\" is neither a command nor an existing file";
    QTest::newRow("folder without a command")
        << QStringList { QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests") }
        << "is a folder; give a model file to open, or a command";
    QTest::newRow("unknown first option")
        << QStringList { QStringLiteral("--fast") } << "unknown option \"--fast\"";
    QTest::newRow("help on no command") << QStringList { QStringLiteral("help"), QStringLiteral("estmate") }
                                        << "help: \"estmate\" is neither a command";
    // Issue #18: plan and compare.
    const auto plan = [&](std::initializer_list<const char*> rest) {
        QStringList args = lenet(rest);
        args.front() = QStringLiteral("plan");
        return args;
    };
    const auto compare = [&](std::initializer_list<const char*> rest) {
        QStringList args = lenet(rest);
        args.front() = QStringLiteral("compare");
        return args;
    };
    QTest::newRow("plan: unknown allow item")
        << plan({ "--allow", "lora,fast" })
        << "--allow: \"fast\" is not something plan may change; give precision, "
           "lora or 8bit-optimizer";
    QTest::newRow("plan: empty allow item")
        << plan({ "--allow", "lora," }) << "--allow must be a comma-separated list";
    QTest::newRow("plan: unknown gpu") << plan({ "--gpu", "Voodoo" }) << "unknown GPU \"Voodoo\"";
    QTest::newRow("plan: zero target") << plan({ "--target-batch", "0" })
                                       << "--target-batch must be an integer from 1 to 2147483648, not \"0\"";
    QTest::newRow("plan: negative step time")
        << plan({ "--max-step-seconds", "-1" }) << "--max-step-seconds must be a number of seconds above 0";
    QTest::newRow("plan: nan step time")
        << plan({ "--max-step-seconds", "nan" }) << "--max-step-seconds must be a number";
    QTest::newRow("plan: batch") << plan({ "--batch",
        "8" }) << "plan chooses the micro-batch: give the goal with --target-batch instead of --batch";
    QTest::newRow("plan: gpus list") << plan({ "--gpus-list", "RTX 4090" })
                                     << "--gpus-list is an option of headroom compare, not of plan";
    QTest::newRow("estimate: allow") << lenet({ "--allow", "lora" })
                                     << "--allow is an option of headroom plan and report, not of estimate";
    QTest::newRow("estimate: target")
        << lenet({ "--target-batch", "64" })
        << "--target-batch is an option of headroom plan, compare and report, not of estimate";
    QTest::newRow("report: allow without include-plan")
        << QStringList { QStringLiteral("report"), QStringLiteral("@lenet"), QStringLiteral("-o"),
               QStringLiteral("@x.pdf"), QStringLiteral("--allow"), QStringLiteral("lora") }
        << "--allow on report is the goal of the planner's table: it needs --include-plan";
    QTest::newRow("estimate: include-plan")
        << lenet({ "--include-plan" }) << "--include-plan is an option of headroom report, not of estimate";
    QTest::newRow("compare: gpu")
        << compare({ "--gpu", "RTX 4090" })
        << "compare runs the set-up on every GPU of the catalogue: choose some with --gpus-list, not --gpu";
    QTest::newRow("compare: unknown gpu in list")
        << compare({ "--gpus-list", "RTX 4090,Voodoo" }) << "--gpus-list: unknown GPU \"Voodoo\"";
    QTest::newRow("compare: ambiguous gpu in list")
        << compare({ "--gpus-list", "1080" }) << "--gpus-list: GPU \"1080\" is ambiguous";
    QTest::newRow("plan: unestimable network") << QStringList { QStringLiteral("plan"),
        QStringLiteral("@unestimable") } << "cannot plan: layers[1] (Softmax): dim 5 is not a feature axis";
}

void TestCli::errors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    for (auto& a : args) {
        if (a.startsWith(QLatin1Char('@')))
            a = m_dir.filePath(a.contains(QLatin1Char('.')) ? a.mid(1) : a.mid(1) + QStringLiteral(".json"));
    }
    const Run r = runHeadroom(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith(QStringLiteral("headroom: error: ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1); // one clear line
}

void TestCli::reportWritesPdf()
{
    const QString pdf = m_dir.filePath(QStringLiteral("plan.pdf"));
    const Run r = runHeadroom({ QStringLiteral("report"), m_lenet, QStringLiteral("-o"), pdf,
        QStringLiteral("--batch"), QStringLiteral("16") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(5) == "%PDF-");
}

void TestCli::onnxFile()
{
    // torchvision's ResNet-18 exported to ONNX: PyTorch's parameter count, and exactly the activation
    // bytes of the native preset (docs/onnx-import.md, docs/accuracy.md: 21,581,728 per sample in fp32).
    const auto onnx = jsonOf({ QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/resnet18.onnx") });
    QVERIFY(!onnx.is_null());
    QCOMPARE(onnx["params"]["total"].get<std::uint64_t>(), std::uint64_t { 11689512 });
    QCOMPARE(onnx["per_sample_bytes"]["activations"].get<std::uint64_t>(), std::uint64_t { 21581728 });
    const auto preset
        = jsonOf({ QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/resnet18.json") });
    QCOMPARE(onnx["bytes"]["total"].get<std::uint64_t>(), preset["bytes"]["total"].get<std::uint64_t>());
    const Run table = runHeadroom({ QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/resnet18.onnx") });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(QStringLiteral("11,689,512 parameters")), qPrintable(table.out.left(400)));
    const Run maxBatch = runHeadroom({ QStringLiteral("max-batch"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/resnet18.onnx") });
    QCOMPARE(maxBatch.exitCode, 0);
    QCOMPARE(maxBatch.out, QString::number(preset["max_batch"].get<std::int64_t>()) + QLatin1Char('\n'));
}

void TestCli::hfConfigFile()
{
    // Hugging Face config.json files (docs/hf-import.md): the published parameter counts.
    const auto gpt2 = jsonOf({ QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/gpt2.json"),
        QStringLiteral("--sequence-length"), QStringLiteral("128"), QStringLiteral("--batch"),
        QStringLiteral("1") });
    QVERIFY2(!gpt2.is_null(), "gpt2.json does not load");
    QCOMPARE(gpt2["params"]["total"].get<std::uint64_t>(), std::uint64_t { 124439808 });
    const auto llama = jsonOf({ QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"),
        QStringLiteral("--sequence-length"), QStringLiteral("64"), QStringLiteral("--batch"),
        QStringLiteral("1"), QStringLiteral("--gpu"), QStringLiteral("A100 SXM4 80GB") });
    QVERIFY2(!llama.is_null(), "Llama-2-7b-hf.json does not load");
    QCOMPARE(llama["params"]["total"].get<std::uint64_t>(), std::uint64_t { 6738415616 });
}

void TestCli::strategiesInHelp()
{
    const Run h = runHeadroom({ QStringLiteral("--help") });
    for (const char* option : { "--checkpointing", "--attention", "--sequence-length", "--lora-rank",
             "--lora-targets", "--lora-dropout", "--qlora", "--accumulation-steps", "--gpus", "--sharding",
             "ddp|zero1|zero2|zero3|fsdp-shard-grad-op|fsdp-full-shard", "--tensor-parallel",
             "--offload-optimizer", "--8bit-optimizer", "--utilization", ".onnx", "config.json" })
        QVERIFY2(h.out.contains(QLatin1String(option)), option);
}

void TestCli::accumulationMultipliesEffectiveBatch()
{
    // tinyMlp with 8 micro-batches: later micro-batches run with every gradient (232 B) allocated, so
    // relu's backward holds 232 + 232 + 464 + 120 B: (8 GiB - 512 MiB - 928) / 120 = 67,108,856.3 per
    // micro-batch by the tensors alone; the reserved answer is below it (maxBatch() derives its
    // bounds), and the effective batch is it x 8 steps x 1 GPU.
    const Run r = runHeadroom({ QStringLiteral("max-batch"), m_tiny, QStringLiteral("--accumulation-steps"),
        QStringLiteral("8"), QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    const std::int64_t micro = j["max_batch"].get<std::int64_t>();
    QVERIFY2(micro <= 67'108'856 && micro >= 65'452'107, qPrintable(r.out));
    QCOMPARE(j["max_effective_batch"].get<std::int64_t>(), micro * 8);
    QCOMPARE(j["accumulation_steps"].get<std::int64_t>(), std::int64_t { 8 });
    const Run plain = runHeadroom(
        { QStringLiteral("max-batch"), m_tiny, QStringLiteral("--accumulation-steps"), QStringLiteral("8") });
    QCOMPARE(plain.out,
        QStringLiteral("%1 (micro-batch per GPU; effective batch %2 = %1 x 8 steps x 1 GPU)\n")
            .arg(micro)
            .arg(micro * 8));
    const Run table
        = runHeadroom({ QStringLiteral("estimate"), m_tiny, QStringLiteral("--accumulation-steps"),
            QStringLiteral("8"), QStringLiteral("--batch"), QStringLiteral("37") });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(
                 QStringLiteral("Max micro-batch per GPU: %1 (effective batch %2 = %1 x 8 steps x 1 GPU)")
                     .arg(micro)
                     .arg(micro * 8)),
        qPrintable(table.out));
    for (const char* fragment : { "Effective batch  296 = 37 x 8 steps x 1 GPU",
             "8 micro-batches per optimizer step", "batch 37 per GPU", "in a micro-batch after the first" })
        QVERIFY2(table.out.contains(QLatin1String(fragment)),
            qPrintable(QLatin1String(fragment) + QLatin1Char('\n') + table.out));
    // With 4 data-parallel GPUs: max micro-batch x 8 x 4.
    const Run four
        = runHeadroom({ QStringLiteral("max-batch"), m_tiny, QStringLiteral("--accumulation-steps"),
            QStringLiteral("8"), QStringLiteral("--gpus"), QStringLiteral("4"), QStringLiteral("--json") });
    QCOMPARE(four.exitCode, 0);
    const auto k = nlohmann::json::parse(four.out.toStdString());
    QCOMPARE(k["max_effective_batch"].get<std::int64_t>(), k["max_batch"].get<std::int64_t>() * 32);
}

void TestCli::tensorParallelDividesReplicas()
{
    // 8 GPUs in tensor-parallel groups of 2: 4 data-parallel replicas.
    const Run r
        = runHeadroom({ QStringLiteral("max-batch"), m_lenet, QStringLiteral("--gpus"), QStringLiteral("8"),
            QStringLiteral("--tensor-parallel"), QStringLiteral("2"), QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["data_parallel_gpus"].get<std::int64_t>(), std::int64_t { 4 });
    QCOMPARE(j["max_effective_batch"].get<std::int64_t>(), 4 * j["max_batch"].get<std::int64_t>());
    const Run table = runHeadroom({ QStringLiteral("estimate"), m_lenet, QStringLiteral("--gpus"),
        QStringLiteral("8"), QStringLiteral("--tensor-parallel"), QStringLiteral("2"),
        QStringLiteral("--batch"), QStringLiteral("10") });
    QVERIFY2(table.out.contains(QStringLiteral("8 (4 data-parallel x 2 tensor-parallel), DDP (no sharding)")),
        qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Effective batch  40 = 10 x 1 step x 4 replicas")),
        qPrintable(table.out));
}

void TestCli::sharding_data()
{
    // docs/memory-model.md (ZeRO, Rajbhandari et al. 2020): stage 1 divides the optimizer state by the
    // data-parallel degree N, stage 2 also the gradients, stage 3 also the weights; FSDP SHARD_GRAD_OP is
    // stage 2 and FULL_SHARD stage 3; DDP divides nothing. The MLP's tensors all divide by 8.
    QTest::addColumn<QString>("sharding");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("weightsDivisor");
    QTest::addColumn<int>("gradientsDivisor");
    QTest::addColumn<int>("optimizerDivisor");
    // Communication buffers: DDP's gradient buckets are a second copy of the gradients (18,720 bytes);
    // stage 3 gathers the largest layer (fc1, 4,160 float32 parameters) and prefetches the next:
    // 2 x 16,640 = 33,280 bytes; stages 1 and 2 add none.
    QTest::addColumn<qulonglong>("communication");
    QTest::newRow("ddp x4") << QStringLiteral("ddp") << 4 << 1 << 1 << 1 << qulonglong { 18720 };
    QTest::newRow("zero1 x4") << QStringLiteral("zero1") << 4 << 1 << 1 << 4 << qulonglong { 0 };
    QTest::newRow("zero2 x4") << QStringLiteral("zero2") << 4 << 1 << 4 << 4 << qulonglong { 0 };
    QTest::newRow("zero2 x8") << QStringLiteral("zero2") << 8 << 1 << 8 << 8 << qulonglong { 0 };
    QTest::newRow("zero3 x4") << QStringLiteral("zero3") << 4 << 4 << 4 << 4 << qulonglong { 33280 };
    QTest::newRow("fsdp shard-grad-op x2")
        << QStringLiteral("fsdp-shard-grad-op") << 2 << 1 << 2 << 2 << qulonglong { 0 };
    QTest::newRow("fsdp full-shard x8")
        << QStringLiteral("fsdp-full-shard") << 8 << 8 << 8 << 8 << qulonglong { 33280 };
}

void TestCli::sharding()
{
    QFETCH(QString, sharding);
    QFETCH(int, gpus);
    QFETCH(int, weightsDivisor);
    QFETCH(int, gradientsDivisor);
    QFETCH(int, optimizerDivisor);
    QFETCH(qulonglong, communication);
    // The model states as the optimizer step holds them; the buffers and activations when forward ends.
    const auto one = jsonOf({ m_mlp });
    const auto& oneStep = one["at_optimizer_step"];
    QCOMPARE(oneStep["weights"].get<std::uint64_t>(), std::uint64_t { 4 * 4680 });
    QCOMPARE(oneStep["gradients"].get<std::uint64_t>(), std::uint64_t { 4 * 4680 });
    QCOMPARE(oneStep["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 8 * 4680 });
    const auto many = jsonOf(
        { m_mlp, QStringLiteral("--gpus"), QString::number(gpus), QStringLiteral("--sharding"), sharding });
    QVERIFY(!many.is_null());
    const auto& manyStep = many["at_optimizer_step"];
    QCOMPARE(manyStep["weights"].get<std::uint64_t>(),
        std::uint64_t { 4 * 4680 } / static_cast<std::uint64_t>(weightsDivisor));
    QCOMPARE(manyStep["gradients"].get<std::uint64_t>(),
        std::uint64_t { 4 * 4680 } / static_cast<std::uint64_t>(gradientsDivisor));
    QCOMPARE(manyStep["optimizer_state"].get<std::uint64_t>(),
        std::uint64_t { 8 * 4680 } / static_cast<std::uint64_t>(optimizerDivisor));
    // Activations and input follow the micro-batch on each GPU, as on one.
    for (const char* c : { "activations", "input" })
        QCOMPARE(many["at_end_of_forward"][c].get<std::uint64_t>(),
            one["at_end_of_forward"][c].get<std::uint64_t>());
    QCOMPARE(
        many["at_end_of_forward"]["communication"].get<std::uint64_t>(), std::uint64_t { communication });
    QCOMPARE(one["at_end_of_forward"]["communication"].get<std::uint64_t>(), std::uint64_t { 0 });

    const Run table = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--gpus"),
        QString::number(gpus), QStringLiteral("--sharding"), sharding });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(QStringLiteral("Per GPU")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Communication buffers")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("(each GPU)")), qPrintable(table.out));
}

void TestCli::offloadAndEightBitOptimizer()
{
    // ZeRO-Offload needs a ZeRO stage (DeepSpeed), also on one GPU.
    const auto one = jsonOf({ m_mlp, QStringLiteral("--sharding"), QStringLiteral("zero1") });
    const auto offload = jsonOf({ m_mlp, QStringLiteral("--sharding"), QStringLiteral("zero1"),
        QStringLiteral("--offload-optimizer") });
    QVERIFY(!one.is_null() && !offload.is_null());
    // The optimizer state lives in CPU memory: none of it on the GPU; weights and gradients stay.
    QCOMPARE(offload["at_optimizer_step"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 0 });
    QCOMPARE(offload["at_optimizer_step"]["weights"].get<std::uint64_t>(),
        one["at_optimizer_step"]["weights"].get<std::uint64_t>());
    QCOMPARE(offload["at_optimizer_step"]["gradients"].get<std::uint64_t>(),
        one["at_optimizer_step"]["gradients"].get<std::uint64_t>());
    // 8-bit Adam (bitsandbytes, blockwise): fc1's 4,096-element weight gets two uint8 states
    // (8,192 bytes) and, per state, one float32 absmax per 2,048-element block (2 x 2 x 4 = 16
    // bytes); the tensors below min_8bit_size 4,096 (fc1's bias, fc2: 584 elements) keep two
    // float32 states, 2 x 4 x 584 = 4,672 bytes. 8,192 + 16 + 4,672 = 12,880.
    const auto eight = jsonOf({ m_mlp, QStringLiteral("--8bit-optimizer") });
    QVERIFY(!eight.is_null());
    QCOMPARE(eight["bytes"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 12880 });
    const Run table = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--8bit-optimizer"),
        QStringLiteral("--sharding"), QStringLiteral("zero2"), QStringLiteral("--offload-optimizer") });
    QVERIFY2(table.out.contains(QStringLiteral("Optimizer state  8-bit")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Offload          optimizer state in CPU memory")),
        qPrintable(table.out));
}

void TestCli::freeze()
{
    // fc1 (64 x 64 + 64 = 4,160) frozen: only fc2 (64 x 8 + 8 = 520) trains, so fp32 gradients are
    // 520 x 4 = 2,080 bytes and Adam's two states 520 x 8 = 4,160 bytes.
    const auto j = jsonOf({ m_mlp, QStringLiteral("--freeze"), QStringLiteral("fc1") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["at_optimizer_step"]["gradients"].get<std::uint64_t>(), std::uint64_t { 2080 });
    QCOMPARE(j["at_optimizer_step"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 4160 });
    const Run table = runHeadroom(
        { QStringLiteral("estimate"), m_mlp, QStringLiteral("--freeze"), QStringLiteral("fc1,fc2") });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(QStringLiteral("4,680 parameters, 0 trainable")), qPrintable(table.out));
}

void TestCli::layerFlopsJson()
{
    // fc1 64 -> 64: forward 2 x 64 x 64 = 8,192; backward only the weight gradient (its input is the
    // network input, which needs none): 8,192. fc2 64 -> 8: forward 1,024; backward input and weight
    // gradients, 2,048. ReLU and the loss: element-wise work, not asserted here.
    const auto j = jsonOf({ m_mlp });
    QVERIFY(!j.is_null());
    const auto& layers = j["layers"];
    const auto named = [&](const std::string& name) {
        return *std::find_if(layers.begin(), layers.end(), [&](const auto& l) { return l["name"] == name; });
    };
    QCOMPARE(named("fc1")["forward_flops_per_sample"].get<std::uint64_t>(), std::uint64_t { 8192 });
    QCOMPARE(named("fc1")["backward_flops_per_sample"].get<std::uint64_t>(), std::uint64_t { 8192 });
    QCOMPARE(named("fc2")["forward_flops_per_sample"].get<std::uint64_t>(), std::uint64_t { 1024 });
    QCOMPARE(named("fc2")["backward_flops_per_sample"].get<std::uint64_t>(), std::uint64_t { 2048 });
}

void TestCli::optimizerStepPeak()
{
    // Pure bf16 Adam under ZeRO-2 on one GPU, 4,680 parameters, no overhead. The step holds weights
    // 2 x 4,680 = 9,360, gradients 9,360, Adam state and float32 master weights 12 x 4,680 = 56,160,
    // DeepSpeed's float32 copy of the gradient partition 4 x 4,680 = 18,720 (no torch.optim temporaries:
    // DeepSpeed steps with its own fused optimizer), and at batch 1 the batch: 64 bf16 values and an
    // int64 target, 136 B. 93,736 bytes: the peak, far above anything forward or backward holds.
    const QStringList setup { m_mlp, QStringLiteral("--precision"), QStringLiteral("bf16"),
        QStringLiteral("--sharding"), QStringLiteral("zero2"), QStringLiteral("--batch"), QStringLiteral("1"),
        QStringLiteral("--overhead-mib"), QStringLiteral("0") };
    const auto j = jsonOf(setup);
    QVERIFY(!j.is_null());
    QCOMPARE(j["optimizer_step_bytes"].get<std::uint64_t>(), std::uint64_t { 93736 });
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t { 93736 });
    QCOMPARE(j["peak"]["phase"].get<std::string>(), std::string("optimizer_step"));
    QVERIFY(j["peak"]["layer"].is_null());
    QCOMPARE(j["at_optimizer_step"]["transient"].get<std::uint64_t>(), std::uint64_t { 18720 });
    const Run text = runHeadroom(QStringList { QStringLiteral("estimate") } + setup);
    QVERIFY2(text.out.contains(QStringLiteral("The peak is the optimizer step")), qPrintable(text.out));
}

void TestCli::lora()
{
    const auto j = jsonOf({ m_projections, QStringLiteral("--lora-rank"), QStringLiteral("8"),
        QStringLiteral("--lora-targets"), QStringLiteral("q_proj,v_proj") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["params"]["total"].get<std::uint64_t>(), std::uint64_t { 8970 + 2048 });
    QCOMPARE(j["params"]["trainable"].get<std::uint64_t>(), std::uint64_t { 2048 });
    // Gradients and Adam's two states for the adapters only.
    QCOMPARE(j["at_optimizer_step"]["gradients"].get<std::uint64_t>(), std::uint64_t { 4 * 2048 });
    QCOMPARE(j["at_optimizer_step"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 8 * 2048 });
    const Run table = runHeadroom({ QStringLiteral("estimate"), m_projections, QStringLiteral("--lora-rank"),
        QStringLiteral("8"), QStringLiteral("--lora-targets"), QStringLiteral("q_proj,v_proj"),
        QStringLiteral("--lora-dropout"), QStringLiteral("0.05") });
    QCOMPARE(table.exitCode, 0);
    for (const char* fragment : { "LoRA             LoRA rank 8 on q_proj, v_proj, dropout 0.05",
             "LoRA adds 2,048 adapter parameters: 2,048 of 11,018 parameters train (18.6 %)",
             "11,018 parameters, 2,048 trainable" })
        QVERIFY2(table.out.contains(QLatin1String(fragment)),
            qPrintable(QLatin1String(fragment) + QLatin1Char('\n') + table.out));
    const Run qlora = runHeadroom({ QStringLiteral("estimate"), m_projections, QStringLiteral("--lora-rank"),
        QStringLiteral("8"), QStringLiteral("--qlora"), QStringLiteral("--precision"),
        QStringLiteral("amp-bf16"), QStringLiteral("--gpu"), QStringLiteral("RTX 4090") });
    QVERIFY2(qlora.exitCode == 0, qPrintable(qlora.err));
    QVERIFY2(qlora.out.contains(QStringLiteral(
                 "QLoRA rank 8 on every Linear layer but the output head; base weights 4-bit NF4")),
        qPrintable(qlora.out));
}

void TestCli::checkpointingSavings()
{
    const QStringList base { m_gpt2, QStringLiteral("--sequence-length"), QStringLiteral("128"),
        QStringLiteral("--batch"), QStringLiteral("4") };
    const auto none = jsonOf(base);
    const auto perBlock
        = jsonOf(base + QStringList { QStringLiteral("--checkpointing"), QStringLiteral("per-block") });
    QVERIFY(!none.is_null() && !perBlock.is_null());
    // What backward needs kept (per sample, x 4): every block's activations, or each block's input and
    // the one block recomputed at a time.
    const auto before = 4 * none["per_sample_bytes"]["activations"].get<std::uint64_t>();
    const auto after = 4 * perBlock["per_sample_bytes"]["activations"].get<std::uint64_t>();
    QVERIFY2(after < before, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
    // Recomputing the 12 blocks costs extra forward FLOPs.
    QVERIFY(perBlock["throughput"]["recompute_flops_per_sample"].get<double>() > 0);
    QCOMPARE(none["throughput"]["recompute_flops_per_sample"].get<double>(), 0.0);
    const Run table = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--checkpointing"), QStringLiteral("per-block") });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(QStringLiteral("Checkpointing    Per block")), qPrintable(table.out));
    // The saving the line states is the difference of the two estimates.
    QVERIFY2(
        table.out.contains(QStringLiteral("Checkpointing (per-block) saves %1 of activations at batch 4 (")
                               .arg(QString::fromStdString(headroom::formatBytes(before - after)))),
        qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("forward compute")), qPrintable(table.out));
}

void TestCli::attentionAndSequenceLength()
{
    const QStringList base { m_gpt2, QStringLiteral("--batch"), QStringLiteral("1") };
    const auto t128
        = jsonOf(base + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("128") });
    const auto t256
        = jsonOf(base + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("256") });
    QVERIFY(!t128.is_null() && !t256.is_null());
    // Token ids and their labels, int64: 2 x 8 x T bytes per sample.
    QCOMPARE(t128["per_sample_bytes"]["input"].get<std::uint64_t>(), std::uint64_t { 2 * 8 * 128 });
    QCOMPARE(t256["per_sample_bytes"]["input"].get<std::uint64_t>(), std::uint64_t { 2 * 8 * 256 });
    QCOMPARE(t256["throughput"]["sequence_length"].get<std::int64_t>(), std::int64_t { 256 });
    // Eager attention keeps the heads x T x T probabilities SDPA does not.
    const auto eager = jsonOf(base
        + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("128"),
            QStringLiteral("--attention"), QStringLiteral("eager") });
    QVERIFY(!eager.is_null());
    QVERIFY2(eager["at_end_of_forward"]["activations"].get<std::uint64_t>()
            >= t128["at_end_of_forward"]["activations"].get<std::uint64_t>() + 12ULL * 12 * 128 * 128 * 4,
        "eager attention does not add the 12 layers' 12 x 128 x 128 float32 probabilities");
    const Run table = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("128"),
            QStringLiteral("--attention"), QStringLiteral("eager") });
    QVERIFY2(table.out.contains(QStringLiteral("Sequence length  128 tokens")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Attention        Eager")), qPrintable(table.out));
}

void TestCli::throughputJson()
{
    const auto j = jsonOf({ m_lenet });
    QVERIFY(j.contains("throughput"));
    const auto& t = j["throughput"];
    QVERIFY2(!t.contains("error"), qPrintable(QString::fromStdString(t.dump())));
    // The forward FLOPs are the layers' sum; GTX 1080 fp32 peak from the catalogue; 40% assumed.
    double forward = 0;
    for (const auto& l : j["layers"])
        forward += l["forward_flops_per_sample"].get<double>();
    QCOMPARE(t["forward_flops_per_sample"].get<double>(), forward);
    QCOMPARE(t["utilization"].get<double>(), 0.4);
    QVERIFY(t["step_seconds"].get<double>() > 0);
    QCOMPARE(t["step_seconds"].get<double>(),
        std::max(t["compute_seconds"].get<double>(), t["memory_seconds"].get<double>()));
    // samples/s = micro-batch x steps x data-parallel GPUs / step time.
    QVERIFY(std::abs(t["samples_per_second"].get<double>() * t["step_seconds"].get<double>() - 32.0) < 1e-6);
    QCOMPARE(t["tokens_per_second"].get<double>(), 0.0); // images, not tokens
    QVERIFY(!t["notes"].empty());
    // Half the utilisation: twice the compute time.
    const auto half = jsonOf({ m_lenet, QStringLiteral("--utilization"), QStringLiteral("0.2") });
    QCOMPARE(half["throughput"]["utilization"].get<double>(), 0.2);
    QVERIFY(std::abs(half["throughput"]["compute_seconds"].get<double>() / t["compute_seconds"].get<double>()
                - 2.0)
        < 1e-9);
    // 8 accumulation steps on 4 GPUs: samples/s x step time = 32 x 8 x 4.
    const auto big = jsonOf({ m_lenet, QStringLiteral("--accumulation-steps"), QStringLiteral("8"),
        QStringLiteral("--gpus"), QStringLiteral("4") });
    const auto& b = big["throughput"];
    QVERIFY(std::abs(b["samples_per_second"].get<double>() * b["step_seconds"].get<double>() - 32.0 * 8 * 4)
        < 1e-6);
    // A GTX 1080 has no bfloat16: no throughput, but the memory estimate stands.
    const auto bf16 = jsonOf({ m_lenet, QStringLiteral("--precision"), QStringLiteral("amp-bf16") });
    QVERIFY(bf16.contains("bytes"));
    QVERIFY2(QString::fromStdString(bf16["throughput"]["error"].get<std::string>())
                 .contains(QStringLiteral("bfloat16")),
        qPrintable(QString::fromStdString(bf16["throughput"].dump())));
}

void TestCli::throughputTable()
{
    const Run r = runHeadroom({ QStringLiteral("estimate"), m_gpt2, QStringLiteral("--sequence-length"),
        QStringLiteral("256"), QStringLiteral("--batch"), QStringLiteral("2"), QStringLiteral("--precision"),
        QStringLiteral("amp-fp16") });
    QCOMPARE(r.exitCode, 0);
    for (const char* fragment :
        { "Throughput (estimated)", "  Step time", "per optimizer step", "  Samples/s", "  Tokens/s",
            "(256 tokens per sample)", "  FLOPs/sample", "GFLOP forward", "  Peak", "40 % assumed",
            // GTX 10 cards run fp16 at 1/64 of fp32 (issue #7)
            "1/64" })
        QVERIFY2(r.out.contains(QLatin1String(fragment)),
            qPrintable(QLatin1String(fragment) + QLatin1Char('\n') + r.out));
    const Run bf16 = runHeadroom(
        { QStringLiteral("estimate"), m_lenet, QStringLiteral("--precision"), QStringLiteral("amp-bf16") });
    QCOMPARE(bf16.exitCode, 0);
    QVERIFY2(
        bf16.out.contains(QStringLiteral("  Not estimated")) && bf16.out.contains(QStringLiteral("bfloat16")),
        qPrintable(bf16.out));
}

void TestCli::setupLinesOnlyWhenNotDefault()
{
    const Run plain = runHeadroom({ QStringLiteral("estimate"), m_lenet });
    for (const char* absent : { "Checkpointing", "Attention", "LoRA", "GPUs", "Accumulation",
             "Effective batch", "Offload", "Communication buffers", "Per GPU", "Utilisation" })
        QVERIFY2(!plain.out.contains(QLatin1String(absent)), absent);
    const Run all = runHeadroom({ QStringLiteral("estimate"), m_lenet, QStringLiteral("--gpus"),
        QStringLiteral("2"), QStringLiteral("--sharding"), QStringLiteral("zero1"),
        QStringLiteral("--utilization"), QStringLiteral("0.55") });
    QVERIFY2(all.out.contains(QStringLiteral("GPUs             2, ZeRO stage 1")), qPrintable(all.out));
    QVERIFY2(all.out.contains(QStringLiteral("Utilisation      55 % of peak assumed")), qPrintable(all.out));
}

void TestCli::reportWithStrategies()
{
    const QString pdf = m_dir.filePath(QStringLiteral("strategies.pdf"));
    const Run r = runHeadroom({ QStringLiteral("report"), m_gpt2, QStringLiteral("-o"), pdf,
        QStringLiteral("--sequence-length"), QStringLiteral("256"), QStringLiteral("--gpus"),
        QStringLiteral("4"), QStringLiteral("--sharding"), QStringLiteral("zero2"),
        QStringLiteral("--accumulation-steps"), QStringLiteral("8"), QStringLiteral("--checkpointing"),
        QStringLiteral("per-block"), QStringLiteral("--gpu"), QStringLiteral("RTX 4090"),
        QStringLiteral("--precision"), QStringLiteral("amp-bf16") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QProcess text;
    text.start(QStringLiteral("pdftotext"), { pdf, QStringLiteral("-") });
    if (!text.waitForStarted() || !text.waitForFinished(60000))
        QSKIP("pdftotext (poppler-utils) is not installed");
    const QString t = QString::fromUtf8(text.readAllStandardOutput()).simplified();
    for (const char* fragment : { "ZeRO stage 2", "8 micro-batches per optimizer step", "Per block",
             "256 tokens", "Throughput (estimated)", "Communication buffers" })
        QVERIFY2(t.contains(QLatin1String(fragment)), fragment);
}

void TestCli::lossOption_data()
{
    // LeNet-5's output is [10] logits; its sample [1, 32, 32] float32 is 4,096 bytes. Cross-entropy keeps
    // the log-softmax (40 B) and reads one int64 label; L1 keeps input - target (40 B), BCE and MSE the
    // logits (the last Linear's output, kept by nothing else: 40 B); those three read a float32 target
    // of 10 values. 44,984 B of activations with cross-entropy (tests/core/tst_activations.cpp).
    QTest::addColumn<QString>("loss");
    QTest::addColumn<QString>("row");
    QTest::addColumn<qint64>("activations");
    QTest::addColumn<qint64>("input");
    QTest::newRow("default") << QString() << QStringLiteral("CrossEntropyLoss") << qint64 { 44984 }
                             << qint64 { 4096 + 8 };
    QTest::newRow("l1") << QStringLiteral("l1") << QStringLiteral("L1Loss") << qint64 { 44984 }
                        << qint64 { 4096 + 40 };
    QTest::newRow("bce") << QStringLiteral("bce") << QStringLiteral("BCELoss") << qint64 { 44984 }
                         << qint64 { 4096 + 40 };
    QTest::newRow("mse") << QStringLiteral("mse") << QStringLiteral("MSELoss") << qint64 { 44984 }
                         << qint64 { 4096 + 40 };
    QTest::newRow("none") << QStringLiteral("none") << QString() << qint64 { 44984 - 40 } << qint64 { 4096 };
}

void TestCli::lossOption()
{
    QFETCH(QString, loss);
    QFETCH(QString, row);
    QFETCH(qint64, activations);
    QFETCH(qint64, input);
    QStringList args { m_lenet };
    if (!loss.isEmpty())
        args << QStringLiteral("--loss") << loss;
    const auto j = jsonOf(args);
    QVERIFY(!j.is_null());
    QCOMPARE(j["per_sample_bytes"]["activations"].get<qint64>(), activations);
    QCOMPARE(j["per_sample_bytes"]["input"].get<qint64>(), input);
    const auto& last = j["layers"].back();
    if (row.isEmpty())
        QVERIFY(last["name"].get<std::string>() != "loss");
    else
        QCOMPARE(QString::fromStdString(last["type"].get<std::string>()), row);
    const Run bad = runHeadroom(
        { QStringLiteral("estimate"), m_lenet, QStringLiteral("--loss"), QStringLiteral("hinge") });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(
                 QStringLiteral("--loss must be one of cross_entropy|mse|l1|bce|none, not \"hinge\"")),
        qPrintable(bad.err));
}

void TestCli::warningsGoToStderr()
{
    // Five operators of this file have no Headroom layer: each is a GenericOp with a warning
    // (tests/core/tst_onnximport.cpp), printed to stderr by estimate, max-batch and report alike.
    const QString file = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/generic_ops.onnx");
    const QString pdf = m_dir.filePath(QStringLiteral("generic.pdf"));
    for (const QStringList& args :
        { QStringList { QStringLiteral("estimate"), file }, QStringList { QStringLiteral("max-batch"), file },
            QStringList { QStringLiteral("report"), file, QStringLiteral("-o"), pdf } }) {
        const Run r = runHeadroom(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY2(lines.front().startsWith(
                     QStringLiteral("headroom: warning: layer 'fancy': operator 'com.example::Fancy' "
                                    "has no Headroom layer")),
            qPrintable(lines.front()));
        for (const auto& line : lines)
            QVERIFY2(line.startsWith(QStringLiteral("headroom: warning: ")), qPrintable(line));
        QVERIFY(!r.out.contains(QStringLiteral("warning")));
    }
    const auto j = jsonOf({ file });
    QCOMPARE(j["warnings"].size(), std::size_t { 5 });
    QCOMPARE(j["warnings"][0]["layer"].get<std::string>(), std::string("fancy"));
    // A network without assumptions prints none.
    const Run clean = runHeadroom({ QStringLiteral("estimate"), m_lenet });
    QVERIFY(clean.err.isEmpty());
}

void TestCli::moeImbalance()
{
    const QString mixtral = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Mixtral-8x7B-v0.1.json");
    const QStringList base { mixtral, QStringLiteral("--sequence-length"), QStringLiteral("128"),
        QStringLiteral("--batch"), QStringLiteral("1"), QStringLiteral("--precision"),
        QStringLiteral("bf16") };
    const auto balanced = jsonOf(base);
    const auto skewed = jsonOf(base + QStringList { QStringLiteral("--moe-imbalance"), QStringLiteral("2") });
    QVERIFY(!balanced.is_null() && !skewed.is_null());
    QCOMPARE(balanced["moe_imbalance"].get<double>(), 1.0);
    QCOMPARE(skewed["moe_imbalance"].get<double>(), 2.0);
    // The experts' assumption is a warning naming the layer (once for the 32 layers' Repeat block): the
    // import runs transformers 5's grouped_mm experts, whose memory the routing does not change.
    QCOMPARE(balanced["warnings"].size(), std::size_t { 1 });
    QCOMPARE(
        balanced["warnings"][0]["layer"].get<std::string>(), std::string("model.layers.0.block_sparse_moe"));
    QVERIFY(balanced["warnings"][0]["message"].get<std::string>().find("assumes transformers 5's grouped_mm")
        == 0);
    QCOMPARE(skewed["warnings"][0]["message"].get<std::string>(),
        balanced["warnings"][0]["message"].get<std::string>());
    QCOMPARE(skewed["per_sample_bytes"]["activations"].get<std::uint64_t>(),
        balanced["per_sample_bytes"]["activations"].get<std::uint64_t>());
    // The largest backward transient is an MoE layer's, all 2 x 128 = 256 assignments at once: chunk's
    // cat of the gate and up gradients beside them, 4 x 14336 bfloat16 per row (more than 2 x 4096
    // float32 weighted-output gradients or 2 x 14336 + 4096 bfloat16), 256 x 114,688 = 29,360,128, and
    // the layer's output and input gradients 2 x 128 x 4096 x 2 = 2,097,152: 31,457,280, the same at
    // imbalance 2 (lm_head's, the logits' gradient and its input's, is 9,240,576).
    QCOMPARE(balanced["per_sample_bytes"]["transient"].get<std::uint64_t>(), std::uint64_t { 31'457'280 });
    QCOMPARE(skewed["per_sample_bytes"]["transient"].get<std::uint64_t>(), std::uint64_t { 31'457'280 });
    const Run low = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--moe-imbalance"), QStringLiteral("0.5") });
    QCOMPARE(low.exitCode, 2);
    QVERIFY2(low.err.contains(QStringLiteral(
                 "--moe-imbalance must be a number from 1 (balanced routing) to 1024, not \"0.5\"")),
        qPrintable(low.err));
    // Mixtral routes each token to 2 of 8 experts: the busiest expert gets at most 4 x an even share.
    const Run high = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--moe-imbalance"), QStringLiteral("5") });
    QCOMPARE(high.exitCode, 2);
    QVERIFY2(high.err.contains(
                 QStringLiteral("the MoE imbalance 5 is more than this layer allows: with 8 experts and "
                                "top-2 the busiest expert gets at most every token, 4 x an even share")),
        qPrintable(high.err));
    QVERIFY(runHeadroom({ QStringLiteral("--help") }).out.contains(QStringLiteral("--moe-imbalance")));
}

void TestCli::subcommandHelp_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("usage");
    QTest::addColumn<bool>("planning"); // takes the set-up options (--sharding, --utilization, ...)
    const QString estimate = QStringLiteral("Usage: headroom estimate FILE [options] [--json]\n");
    QTest::newRow("estimate --help") << QStringList { QStringLiteral("estimate"), QStringLiteral("--help") }
                                     << estimate << true;
    QTest::newRow("estimate FILE -h")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("-h") }
        << estimate << true;
    QTest::newRow("help estimate") << QStringList { QStringLiteral("help"), QStringLiteral("estimate") }
                                   << estimate << true;
    QTest::newRow("max-batch --help")
        << QStringList { QStringLiteral("max-batch"), QStringLiteral("--help") }
        << QStringLiteral("Usage: headroom max-batch FILE [options] [--json]\n") << true;
    QTest::newRow("report --help") << QStringList { QStringLiteral("report"), QStringLiteral("--help") }
                                   << QStringLiteral("Usage: headroom report FILE -o OUT.pdf [options]\n")
                                   << true;
    QTest::newRow("plan --help")
        << QStringList { QStringLiteral("plan"), QStringLiteral("--help") }
        << QStringLiteral("Usage: headroom plan FILE [--gpu NAME] [--gpus N] [--target-batch N]") << true;
    QTest::newRow("compare --help") << QStringList { QStringLiteral("compare"), QStringLiteral("--help") }
                                    << QStringLiteral("Usage: headroom compare FILE [options]") << true;
    QTest::newRow("gpus --help") << QStringList { QStringLiteral("gpus"), QStringLiteral("--help") }
                                 << QStringLiteral("Usage: headroom gpus [--json]\n") << false;
}

void TestCli::subcommandHelp()
{
    QFETCH(QStringList, args);
    QFETCH(QString, usage);
    QFETCH(bool, planning);
    args.replaceInStrings(QStringLiteral("@lenet"), m_lenet);
    const Run r = runHeadroom(args);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QVERIFY2(r.out.startsWith(usage), qPrintable(r.out));
    for (const char* option : { "--sharding MODE", "--utilization U" })
        QCOMPARE(r.out.contains(QLatin1String(option)), planning);
    // Issue 25 item 14: plan chooses the batch and compare runs every GPU, so neither lists those
    // options (tst_clihelp checks every option of every command).
    const bool plan = args.front() == QLatin1String("plan");
    const bool compare = args.front() == QLatin1String("compare");
    QCOMPARE(r.out.contains(QLatin1String("--batch N")), planning && !plan);
    QCOMPARE(r.out.contains(QLatin1String("--gpu NAME")), planning && !compare);
}

void TestCli::nonUtf8NamesAreEscaped_data()
{
    // A Hugging Face config is named after its file, or its folder when the file is config.json. A byte
    // 0xFF is not UTF-8: the name is shown escaped, "\xff", in the JSON and in the table alike.
    QTest::addColumn<QByteArray>("folder");
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("name");
    QTest::newRow("file name") << QByteArray() << QByteArray("llama\xff.json")
                               << QStringLiteral("llama\\xff");
    QTest::newRow("folder name") << QByteArray("folder\xff") << QByteArray("config.json")
                                 << QStringLiteral("folder\\xff");
}

void TestCli::nonUtf8NamesAreEscaped()
{
    QFETCH(QByteArray, folder);
    QFETCH(QByteArray, file);
    QFETCH(QString, name);
    // QString cannot hold such a path: write it with byte-exact calls, and have printf spell it for headroom.
    const QByteArray base = QFile::encodeName(m_dir.path());
    const QByteArray dir = folder.isEmpty() ? base : base + '/' + folder;
    QVERIFY(folder.isEmpty() || ::mkdir(dir.constData(), 0755) == 0);
    QFile source(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/gpt2.json"));
    QVERIFY(source.open(QIODevice::ReadOnly));
    const QByteArray config = source.readAll();
    const std::string written = std::string(dir.constData()) + "/" + file.constData();
    std::ofstream(written, std::ios::binary).write(config.constData(), config.size());
    const auto cleanUp = qScopeGuard([&] { // QTemporaryDir cannot remove names QString cannot hold
        ::unlink(written.c_str());
        if (!folder.isEmpty())
            ::rmdir(dir.constData());
    });
    QByteArray printfPath = dir + '/' + file;
    const QString path = QString::fromLatin1(printfPath.replace("\xff", "\\377"));
    for (const bool json : { true, false }) {
        QProcess p;
        p.start(QStringLiteral("/bin/sh"),
            { QStringLiteral("-c"),
                QStringLiteral("exec \"$0\" estimate \"$(printf \"$1\")\" --sequence-length 8")
                    + (json ? QStringLiteral(" --json") : QString()),
                QStringLiteral(HEADROOM_BINARY), path });
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(err));
        const QByteArray out = p.readAllStandardOutput();
        if (json) {
            const auto j = nlohmann::json::parse(out.toStdString());
            QCOMPARE(QString::fromStdString(j["model"].get<std::string>()), name);
            QCOMPARE(j["params"]["total"].get<std::uint64_t>(), std::uint64_t { 124439808 });
        } else {
            QVERIFY2(out.startsWith("Model            " + name.toUtf8() + " ("), out.left(200).constData());
        }
    }
}

void TestCli::longNamesAreCut()
{
    // A 100,000-character GPU name is echoed as its first 64 characters, an ellipsis and its length.
    const QString name(100000, QLatin1Char('x'));
    const Run r = runHeadroom({ QStringLiteral("estimate"), m_lenet, QStringLiteral("--gpu"), name });
    QCOMPARE(r.exitCode, 2);
    const QString expected = QStringLiteral("headroom: error: unknown GPU \"") + QString(64, QLatin1Char('x'))
        + QStringLiteral("\u2026\" (100,000 characters); `headroom gpus` lists the known ones\n");
    QCOMPARE(r.err, expected);
    const Run freeze = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--freeze"), name });
    QCOMPARE(freeze.exitCode, 2);
    QVERIFY2(freeze.err.size() < 300, qPrintable(freeze.err.left(300)));
    QVERIFY2(freeze.err.contains(QStringLiteral("(100,000 characters)")), qPrintable(freeze.err.left(300)));
}

void TestCli::tinyNumbersAreInRange()
{
    // 1e-320 MiB is within 0 to 1048576 (a subnormal double, 0.00000000001 bytes): accepted, and no overhead.
    const auto j = jsonOf({ m_lenet, QStringLiteral("--overhead-mib"), QStringLiteral("1e-320") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 0 });
    const auto below = jsonOf(
        { m_lenet, QStringLiteral("--overhead-mib"), QStringLiteral("1e-400") }); // below any double: 0
    QVERIFY(!below.is_null());
    QCOMPARE(below["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 0 });
}

void TestCli::reportKeepsSpecialFiles_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("FIFO") << QStringLiteral("fifo")
                          << QStringLiteral(": is a FIFO (named pipe), not a regular file");
    QTest::newRow("character device")
        << QStringLiteral("device") << QStringLiteral("/dev/null: is a character device, not a regular file");
    QTest::newRow("read-only file") << QStringLiteral("readonly")
                                    << QStringLiteral(": the file is read-only");
}

void TestCli::reportKeepsSpecialFiles()
{
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QString target = m_dir.filePath(kind + QStringLiteral(".pdf"));
    struct stat before
    {
    };
    if (kind == QLatin1String("fifo")) {
        QVERIFY(::mkfifo(QFile::encodeName(target).constData(), 0644) == 0);
    } else if (kind == QLatin1String("device")) {
        target = QStringLiteral("/dev/null");
    } else {
        QFile f(target);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("an older report");
        f.close();
        QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    }
    QVERIFY(::stat(QFile::encodeName(target).constData(), &before) == 0);
    const Run r = runHeadroom({ QStringLiteral("report"), m_lenet, QStringLiteral("-o"), target });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.startsWith(QStringLiteral("headroom: error: cannot write the report to ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    struct stat after
    {
    };
    QVERIFY(::stat(QFile::encodeName(target).constData(), &after) == 0);
    QCOMPARE(after.st_ino, before.st_ino); // the very same file, not a replacement
    QCOMPARE(after.st_mode, before.st_mode);
    QCOMPARE(after.st_size, before.st_size);
}

void TestCli::unestimableReportWritesNothing()
{
    // As `estimate` does, `report` refuses a network that cannot be estimated: exit 2, no PDF.
    const QString pdf = m_dir.filePath(QStringLiteral("unestimable.pdf"));
    const QString model = m_dir.filePath(QStringLiteral("unestimable.json"));
    const Run estimate = runHeadroom({ QStringLiteral("estimate"), model });
    const Run report = runHeadroom({ QStringLiteral("report"), model, QStringLiteral("-o"), pdf });
    QCOMPARE(estimate.exitCode, 2);
    QCOMPARE(report.exitCode, 2);
    QCOMPARE(report.err, estimate.err);
    QVERIFY(!QFile::exists(pdf));
}

void TestCli::commandLineWithoutGui()
{
    // The command line linked with Qt Core and Gui only (HEADROOM_BUILD_GUI=OFF builds it as `headroom`).
    const QString nogui = QStringLiteral(HEADROOM_NOGUI_BINARY);
    QProcess p;
    p.start(nogui, { QStringLiteral("estimate"), m_lenet, QStringLiteral("--json") });
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
    // The same engine as the full binary: the same answer, to the sample.
    const Run full = runHeadroom({ QStringLiteral("estimate"), m_lenet, QStringLiteral("--json") });
    QCOMPARE(full.exitCode, 0);
    const auto fullJson = nlohmann::json::parse(full.out.toStdString());
    QVERIFY(j["max_batch"].get<std::int64_t>() > 1000);
    QCOMPARE(j["max_batch"].get<std::int64_t>(), fullJson["max_batch"].get<std::int64_t>());
    QCOMPARE(j["peak"]["bytes"].get<std::uint64_t>(), fullJson["peak"]["bytes"].get<std::uint64_t>());
    const QString pdf = m_dir.filePath(QStringLiteral("nogui.pdf"));
    p.start(nogui, { QStringLiteral("report"), m_lenet, QStringLiteral("-o"), pdf });
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(QFile::exists(pdf));
    QProcess ldd;
    ldd.start(QStringLiteral("ldd"), { nogui });
    if (!ldd.waitForStarted() || !ldd.waitForFinished(60000))
        QSKIP("ldd is not available");
    const QString libraries = QString::fromUtf8(ldd.readAllStandardOutput());
    QVERIFY2(libraries.contains(QStringLiteral("libQt6Gui")), qPrintable(libraries));
    for (const char* gui : { "libQt6Widgets", "libQt6Charts", "libQt6Svg" })
        QVERIFY2(!libraries.contains(QLatin1String(gui)), gui);
    if (nogui != QStringLiteral(HEADROOM_BINARY))
        return;
    // Built without the GUI, a file to open is an error rather than a window.
    p.start(nogui, { m_lenet });
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    // ...which names every command there is (it once listed four of the six).
    const QString said = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(said.contains(QStringLiteral("estimate, max-batch, plan, compare, report or gpus")),
        qPrintable(said));
}

void TestCli::planSetupsReEstimate_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<qlonglong>("target"); // 0: the largest micro-batch
    const QString vgg = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    const QString llama = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json");
    const QString gpt2 = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    const QString resnet = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/resnet18.json");
    const auto list = [](std::initializer_list<const char*> items) {
        QStringList out;
        for (const char* item : items)
            out << QString::fromUtf8(item);
        return out;
    };
    QTest::newRow("vgg16 gtx 1080 256") << vgg << list({ "--gpu", "GTX 1080" }) << 256LL;
    QTest::newRow("vgg16 gtx 1080 256 precision 8-bit")
        << vgg << list({ "--gpu", "GTX 1080", "--allow", "precision,8bit-optimizer" }) << 256LL;
    QTest::newRow("llama lora 4090") << llama
                                     << list({ "--gpu", "RTX 4090", "--sequence-length", "512", "--precision",
                                            "amp-bf16", "--allow", "lora", "--lora-targets",
                                            "q_proj,v_proj" })
                                     << 16LL;
    QTest::newRow("gpt2 4 gpus, custom memory, frozen embedding")
        << gpt2
        << list({ "--gpu-memory-gib", "6.5", "--gpus", "4", "--sequence-length", "256", "--freeze", "wte",
               "--overhead-mib", "300.5", "--optimizer", "adamw" })
        << 64LL;
    QTest::newRow("resnet18 largest, max step")
        << resnet << list({ "--gpu", "RTX 3060", "--max-step-seconds", "10" }) << 0LL;
}

void TestCli::planSetupsReEstimate()
{
    QFETCH(QString, file);
    QFETCH(QStringList, options);
    QFETCH(qlonglong, target);
    QStringList args { QStringLiteral("plan"), file };
    args << options << QStringLiteral("--json") << QStringLiteral("--all");
    if (target > 0)
        args << QStringLiteral("--target-batch") << QString::number(target);
    const Run r = runHeadroom(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto plan = nlohmann::json::parse(r.out.toStdString());
    const auto& setups = plan["setups"];
    QVERIFY(!setups.empty());
    QVERIFY(plan["nothing_fits"].is_null());
    double previous = INFINITY;
    for (const auto& setup : setups) {
        QStringList estimate;
        for (const auto& a : setup["estimate_arguments"])
            estimate << QString::fromStdString(a.get<std::string>());
        QCOMPARE(estimate.front(), QStringLiteral("estimate"));
        QVERIFY(QString::fromStdString(setup["command"].get<std::string>())
                    .startsWith(QStringLiteral("headroom estimate ")));
        // What `headroom estimate` says for the printed options is what plan listed: it fits, and reaches the
        // target.
        const Run e = runHeadroom(estimate + QStringList { QStringLiteral("--json") });
        const QByteArray where = estimate.join(QLatin1Char(' ')).toUtf8();
        QVERIFY2(e.exitCode == 0, qPrintable(QString::fromUtf8(where) + QStringLiteral(": ") + e.err));
        const auto j = nlohmann::json::parse(e.out.toStdString());
        QVERIFY2(j["fits"].get<bool>(), where.constData());
        QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), setup["peak_bytes"].get<std::uint64_t>());
        QCOMPARE(j["max_batch"].get<std::int64_t>(), setup["max_batch"].get<std::int64_t>());
        QCOMPARE(j["effective_batch"].get<std::int64_t>(), setup["effective_batch"].get<std::int64_t>());
        if (target > 0)
            QVERIFY2(j["effective_batch"].get<std::int64_t>() >= target, where.constData());
        else
            QCOMPARE(j["batch"].get<std::int64_t>(), j["max_batch"].get<std::int64_t>());
        // Nothing that changes training unless allowed (ResNet-18's batch norm aside: accumulation).
        if (!options.contains(QStringLiteral("--allow")) && !file.contains(QStringLiteral("resnet")))
            QVERIFY2(!setup["changes_training"].get<bool>(), where.constData());
        // A custom GPU has no peak figures: no throughput, in estimate and in plan alike (ranked last, by
        // memory).
        QCOMPARE(setup["samples_per_second"].is_null(), j["throughput"].contains("error"));
        if (setup["samples_per_second"].is_null())
            continue;
        QCOMPARE(
            j["throughput"]["samples_per_second"].get<double>(), setup["samples_per_second"].get<double>());
        if (options.contains(QStringLiteral("--max-step-seconds")))
            QVERIFY(j["throughput"]["step_seconds"].get<double>() <= 10);
        // Ranked by samples per second per GPU.
        const double perGpu = setup["samples_per_second_per_gpu"].get<double>();
        QVERIFY2(perGpu <= previous, where.constData());
        previous = perGpu;
    }
}

void TestCli::planTable()
{
    const Run r = runHeadroom({ QStringLiteral("plan"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json"), QStringLiteral("--gpu"),
        QStringLiteral("GTX 1080"), QStringLiteral("--target-batch"), QStringLiteral("256") });
    QCOMPARE(r.exitCode, 0);
    for (const char* fragment : { "Goal             effective batch 256", "What changes", "Samples/s/GPU",
             "Pareto", "Each with headroom estimate:", "--gpu 'GeForce GTX 1080'", "--accumulation-steps" })
        QVERIFY2(r.out.contains(QLatin1String(fragment)), fragment);
}

void TestCli::planNothingFits()
{
    // A quarter GiB cannot hold the 512 MiB of CUDA context and framework overhead alone: whatever the
    // set-up, at least 256 MiB are missing.
    const QStringList args { QStringLiteral("plan"), m_lenet, QStringLiteral("--gpu-memory-gib"),
        QStringLiteral("0.25") };
    const Run r = runHeadroom(args);
    QCOMPARE(r.exitCode, 1);
    for (const char* fragment : { "Nothing fits: no set-up reaches the largest micro-batch that fits",
             "Closest:", "more than the GPU holds, at a micro-batch of 1" })
        QVERIFY2(r.out.contains(QLatin1String(fragment)), qPrintable(r.out));
    const Run j = runHeadroom(args + QStringList { QStringLiteral("--json") });
    QCOMPARE(j.exitCode, 1);
    const auto plan = nlohmann::json::parse(j.out.toStdString());
    QVERIFY(plan["setups"].empty());
    const auto& nothing = plan["nothing_fits"];
    QCOMPARE(nothing["reason"].get<std::string>(), std::string("memory"));
    const auto over = nothing["bytes_over"].get<std::uint64_t>();
    QVERIFY(over >= 256ULL * 1024 * 1024);
    QCOMPARE(over, nothing["closest"]["peak_bytes"].get<std::uint64_t>() - 256ULL * 1024 * 1024);
    // The closest set-up, estimated with its options, is short by exactly that.
    QStringList estimate;
    for (const auto& a : nothing["closest"]["estimate_arguments"])
        estimate << QString::fromStdString(a.get<std::string>());
    const auto e = jsonOf(estimate.mid(1));
    QCOMPARE(e["headroom_bytes"].get<double>(), -static_cast<double>(over));
}

void TestCli::compareAgreesWithMaxBatch()
{
    const QString vgg = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    const QStringList setup { QStringLiteral("--precision"), QStringLiteral("amp-fp16"),
        QStringLiteral("--accumulation-steps"), QStringLiteral("2"), QStringLiteral("--batch"),
        QStringLiteral("48") };
    const Run r = runHeadroom(
        QStringList { QStringLiteral("compare"), vgg } + setup + QStringList { QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    const Run catalogue = runHeadroom({ QStringLiteral("gpus"), QStringLiteral("--json") });
    QCOMPARE(j["gpus"].size(), nlohmann::json::parse(catalogue.out.toStdString()).size());
    QCOMPARE(j["target_batch"].get<std::int64_t>(), std::int64_t { 96 }); // 48 x 2 steps
    std::uint64_t previousMemory = 0;
    int flagged = 0;
    bool reachedBefore = false;
    for (const auto& row : j["gpus"]) {
        const QString gpu = QString::fromStdString(row["gpu"].get<std::string>());
        const Run m
            = runHeadroom(QStringList { QStringLiteral("max-batch"), vgg, QStringLiteral("--gpu"), gpu }
                + setup + QStringList { QStringLiteral("--json") });
        QVERIFY2(m.exitCode == 0, qPrintable(gpu + m.err));
        const auto max = nlohmann::json::parse(m.out.toStdString());
        QCOMPARE(row["max_batch"].get<std::int64_t>(), max["max_batch"].get<std::int64_t>());
        QCOMPARE(
            row["max_effective_batch"].get<std::int64_t>(), max["max_effective_batch"].get<std::int64_t>());
        QCOMPARE(row["reaches_target"].get<bool>(), max["max_effective_batch"].get<std::int64_t>() >= 96);
        QCOMPARE(row["fits"].get<bool>(), max["max_batch"].get<std::int64_t>() >= 48);
        QVERIFY(row["memory_bytes"].get<std::uint64_t>() >= previousMemory);
        previousMemory = row["memory_bytes"].get<std::uint64_t>();
        if (row["smallest_reaching_target"].get<bool>()) {
            ++flagged;
            QVERIFY(!reachedBefore);
        }
        reachedBefore = reachedBefore || row["reaches_target"].get<bool>();
    }
    QCOMPARE(flagged, 1);
}

void TestCli::reportIncludesPlan()
{
    // The report's planner table says what `headroom plan` says: the same set-up first.
    const QString vgg = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    const QString pdf = m_dir.filePath(QStringLiteral("plan-table.pdf"));
    const Run r = runHeadroom({ QStringLiteral("report"), vgg, QStringLiteral("--gpu"),
        QStringLiteral("GTX 1080"), QStringLiteral("-o"), pdf, QStringLiteral("--include-plan"),
        QStringLiteral("--target-batch"), QStringLiteral("256") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QProcess text;
    text.start(QStringLiteral("pdftotext"), { QStringLiteral("-layout"), pdf, QStringLiteral("-") });
    if (!text.waitForStarted() || !text.waitForFinished(60000))
        QSKIP("pdftotext is not available");
    const QString content = QString::fromUtf8(text.readAllStandardOutput());
    for (const char* fragment :
        { "Set-ups that fit", "Goal: an effective batch of 256", "4 accumulation steps", "64 × 4" })
        QVERIFY2(content.contains(QString::fromUtf8(fragment)), fragment);
    // Without --include-plan there is no such table.
    const QString plain = m_dir.filePath(QStringLiteral("no-plan-table.pdf"));
    QCOMPARE(runHeadroom({ QStringLiteral("report"), vgg, QStringLiteral("-o"), plain }).exitCode, 0);
    text.start(QStringLiteral("pdftotext"), { plain, QStringLiteral("-") });
    QVERIFY(text.waitForFinished(60000));
    QVERIFY(!QString::fromUtf8(text.readAllStandardOutput()).contains(QStringLiteral("Set-ups that fit")));
}

void TestCli::compareTable()
{
    const Run r = runHeadroom(
        { QStringLiteral("compare"), QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json"),
            QStringLiteral("--gpus-list"), QStringLiteral("RTX 4090,GTX 1080,GeForce GTX 1060 6GB"),
            QStringLiteral("--target-batch"), QStringLiteral("64") });
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = r.out.split(QLatin1Char('\n'));
    const auto row = [&](const char* gpu) {
        for (int i = 0; i < lines.size(); ++i) {
            if (lines[i].startsWith(QLatin1String(gpu)))
                return i;
        }
        return -1;
    };
    // Smallest memory first: the 6 GB 1060, the 8 GB 1080, the 24 GB 4090.
    QVERIFY2(row("GeForce GTX 1060 6GB") >= 0, qPrintable(r.out));
    QVERIFY(row("GeForce GTX 1060 6GB") < row("GeForce GTX 1080"));
    QVERIFY(row("GeForce GTX 1080") < row("GeForce RTX 4090"));
    QVERIFY2(r.out.contains(QStringLiteral("Target           effective batch 64")), qPrintable(r.out));
    QCOMPARE(r.out.count(QStringLiteral("<- smallest that reaches the target")), 1);
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
