// The command line as scripts use it, the real `headroom` binary run as a process (CliTestSupport.h):
// estimate, max-batch and gpus: the table, the JSON and the models they read (a model file, ONNX,
// config.json).
#include "CliTestSupport.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

class TestCliEstimate : public QObject, private CliFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { writeInputFiles(); }
    void versionAndHelp();
    void estimateJson();
    void estimateTable();
    void layerTableKeepsLongNamesApart();
    void maxBatch();
    void overheadDefaultsToTheGpusContext();
    void calibration();
    void gpus();

    // Issue #7: training strategies on the command line.
    void onnxFile();
    void hfConfigFile();
    void layerFlopsJson();
    void throughputJson();
    void throughputTable();

    void commandLineWithoutGui();

    // Issue 37: the pipeline's stages, as a table and in the JSON.
    void pipelineStages();
};

void TestCliEstimate::versionAndHelp()
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

void TestCliEstimate::estimateJson()
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
    // One notion of fitting and headroom (issue 34): the GPU holds the reserved peak plus the overhead,
    // 22 MiB + 512 MiB = 559,939,584 B, so the headroom is 8,589,934,592 - 559,939,584 = 8,029,995,008 B;
    // the tensors alone (4,612 B + 512 MiB = 536,875,524 B) would leave 8,053,059,068 B.
    QCOMPARE(j["headroom_basis"].get<std::string>(), std::string("reserved"));
    QCOMPARE(j["held_at_peak_bytes"].get<std::uint64_t>(), std::uint64_t { 559'939'584 });
    QCOMPARE(j["headroom_bytes"].get<double>(), 8'029'995'008.0);
    QCOMPARE(j["tensors_headroom_bytes"].get<double>(), 8'053'059'068.0);
    // Allocated as max_memory_allocated counts it: both cuBLAS workspaces are alive at the allocated peak
    // (made at step 1's first forward and backward cuBLAS calls, kept; the peak is in step 2, which holds
    // more than any moment of step 1). 8,519,680 B is a multiple of 512 and each takes the front of a
    // split block (the remainders, 12,451,840 and 3,932,160 B, are over 1 MiB): 2 x 8,519,680.
    QCOMPARE(
        j["reserved"]["peak_allocated_workspace_bytes"].get<std::uint64_t>(), std::uint64_t { 17'039'360 });
    QCOMPARE(j["reserved"]["peak_allocated_tensor_bytes"].get<std::uint64_t>() + 17'039'360,
        j["reserved"]["peak_allocated_bytes"].get<std::uint64_t>());
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

void TestCliEstimate::estimateTable()
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
    // tinyMlp's layers are fc1, relu, fc2: relu is layer 2, named by number and name.
    QVERIFY2(tiny.out.contains(QStringLiteral("The peak is in the backward pass, at layer 2 (relu)")),
        qPrintable(tiny.out));
}

// Llama's layer names ("model.layers.0.post_attention_layernorm") are longer than any fixed column.
void TestCliEstimate::layerTableKeepsLongNamesApart()
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

void TestCliEstimate::maxBatch()
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

void TestCliEstimate::overheadDefaultsToTheGpusContext()
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
    // The tiny network's text: the same headroom as the JSON's (8,029,995,008 B = 7.48 GiB), and the
    // tensors' total labelled as theirs.
    const Run tiny = runHeadroom({ QStringLiteral("estimate"), m_tiny });
    QVERIFY2(
        tiny.out.contains(QStringLiteral("Fits on the GeForce GTX 1080: headroom 7.48 GiB (the GPU holds "
                                         "534 MiB at the peak)\n")),
        qPrintable(tiny.out));
    QVERIFY2(tiny.out.contains(QStringLiteral("Total (tensors)")), qPrintable(tiny.out));
    QVERIFY2(text.out.contains(QStringLiteral("from the reserved peak, keeping ")), qPrintable(text.out));
}

void TestCliEstimate::calibration()
{
    // tinyMlp at batch 8 on the GTX 1080 (512 MiB overhead), calibrated by 100 MiB + 3 MiB per sample
    // (docs/memory-model.md, "Calibration from a measured run"). By hand: the tensors' peak is relu's
    // backward, 772 + 120 x 8 = 1,732 bytes (estimateJson); the calibration 104,857,600 + 8 x 3,145,728
    // = 130,023,424 bytes (124 MiB); with the overhead 536,870,912 the total is 666,896,068.
    const QStringList calibrated { m_tiny, QStringLiteral("--batch"), QStringLiteral("8"),
        QStringLiteral("--calibration-fixed"), QStringLiteral("100MiB"),
        QStringLiteral("--calibration-per-sample"), QStringLiteral("3145728") };
    const auto j = jsonOf(calibrated);
    QVERIFY(!j.is_null());
    QCOMPARE(j["calibration"]["fixed_bytes"].get<std::uint64_t>(), std::uint64_t { 104'857'600 });
    QCOMPARE(j["calibration"]["per_sample_bytes"].get<std::uint64_t>(), std::uint64_t { 3'145'728 });
    QVERIFY(j["calibration"]["measured_batch"].is_null());
    QVERIFY(j["calibration"]["source"].is_null());
    QCOMPARE(j["bytes"]["calibration"].get<std::uint64_t>(), std::uint64_t { 130'023'424 });
    QCOMPARE(j["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 536'870'912 });
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t { 666'896'068 });
    QCOMPARE(j["peak"]["layer"].get<std::string>(), std::string("relu"));
    // Reserved (estimateJson works the plan's 22 MiB out by hand: one 2 MiB small segment for the tensors,
    // one 20 MiB segment for both cuBLAS workspaces). The calibration's block is made first: 130,023,424
    // bytes, a multiple of 2 MiB above 10 MiB, gets a segment of exactly its size, which it fills, so the
    // workspaces still need their own 20 MiB segment: 124 + 20 + 2 = 146 MiB = 153,092,096 bytes.
    QCOMPARE(j["reserved"]["peak_bytes"].get<std::uint64_t>(), std::uint64_t { 153'092'096 });
    const auto plain = jsonOf({ m_tiny, QStringLiteral("--batch"), QStringLiteral("8") });
    QVERIFY(plain.contains("calibration") && plain["calibration"].is_null());
    QVERIFY(!plain["bytes"].contains("calibration"));
    QCOMPARE(j["reserved"]["peak_allocated_bytes"].get<std::uint64_t>(),
        plain["reserved"]["peak_allocated_bytes"].get<std::uint64_t>() + 130'023'424);
    // Max batch: the tensors alone allow (8 GiB - 512 MiB - 104,857,600 - 772) / (120 + 3,145,728)
    // = 7,948,205,308 / 3,145,848 = 2,526.6 -> 2,526; the reserved answer keeps the 2 % margin
    // (161,061,273.6 B) and at most 20 MiB of cuBLAS segment and 16 MiB of rounding below that:
    // (8,053,063,680 - 161,061,273.6 - 104,857,600 - 36 MiB - 772) / 3,145,848 = 2,463.4 at least.
    const qint64 answer = j["max_batch"].get<std::int64_t>();
    QVERIFY2(answer <= 2526 && answer >= 2463, qPrintable(QString::number(answer)));
    const Run maxBatch = runHeadroom(QStringList { QStringLiteral("max-batch") } + calibrated);
    QCOMPARE(maxBatch.exitCode, 0);
    QCOMPARE(maxBatch.out.trimmed().toLongLong(), answer);
    // The text: its own row and the set-up's line saying what it is.
    const Run text = runHeadroom(QStringList { QStringLiteral("estimate") } + calibrated);
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(QRegularExpression(QStringLiteral("\\nCalibration \\(measured excess\\) +124 MiB +"))
                 .match(text.out)
                 .hasMatch(),
        qPrintable(text.out));
    QVERIFY2(QRegularExpression(QStringLiteral("\\nCalibration +100 MiB fixed \\+ 3.00 MiB per sample\\n"))
                 .match(text.out)
                 .hasMatch(),
        qPrintable(text.out));
    const Run plainText = runHeadroom({ QStringLiteral("estimate"), m_tiny });
    QVERIFY2(!plainText.out.contains(QStringLiteral("Calibration")), qPrintable(plainText.out));
    // compare takes the options too: every GPU's max batch counts the calibration.
    const Run compare = runHeadroom({ QStringLiteral("compare"), m_tiny, QStringLiteral("--gpus-list"),
        QStringLiteral("GeForce GTX 1080"), QStringLiteral("--json"), QStringLiteral("--calibration-fixed"),
        QStringLiteral("100MiB"), QStringLiteral("--calibration-per-sample"), QStringLiteral("3MiB") });
    QCOMPARE(compare.exitCode, 0);
    const auto rows = nlohmann::json::parse(compare.out.toStdString())["gpus"];
    QCOMPARE(rows.size(), std::size_t { 1 });
    QCOMPARE(rows[0]["max_batch"].get<std::int64_t>(), answer);
}

void TestCliEstimate::gpus()
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

void TestCliEstimate::onnxFile()
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

void TestCliEstimate::hfConfigFile()
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
    QVERIFY2(llama["warnings"].empty(), llama["warnings"].dump().c_str());

    // Without --sequence-length a config whose context (4,096) is longer than one trains at starts at
    // 1,024 tokens, and a warning on standard error says so and how to change it.
    const Run plain = runHeadroom({ QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"),
        QStringLiteral("--batch"), QStringLiteral("1"), QStringLiteral("--gpu"),
        QStringLiteral("A100 SXM4 80GB") });
    QCOMPARE(plain.exitCode, 0);
    QVERIFY2(plain.out.contains(QStringLiteral("Sequence length  1,024 tokens")), qPrintable(plain.out));
    QVERIFY2(plain.err.contains(QStringLiteral("headroom: warning: sequence length: 1,024 tokens"))
            && plain.err.contains(QStringLiteral("allows up to 4,096 (max_position_embeddings)"))
            && plain.err.contains(QStringLiteral("--sequence-length")),
        qPrintable(plain.err));
}

void TestCliEstimate::layerFlopsJson()
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

void TestCliEstimate::throughputJson()
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
    // Its data-parallel all-reduce: LeNet-5's 61,706 fp32 gradients, 246,824 B, of which each of the 4
    // GPUs sends 2 x 3/4 = 370,236 B over the GTX 1080's PCIe 3.0 x16 (15.75 GB/s); the set-up's links.
    QCOMPARE(big["gpus_per_node"].get<std::int64_t>(), std::int64_t { 8 });
    QCOMPARE(big["inter_node_gbps"].get<double>(), 50.0);
    const auto& comm = b["communication"];
    QCOMPARE(comm["intra_node_gbps"].get<double>(), 15.75);
    QCOMPARE(comm["terms"].size(), std::size_t { 1 });
    QCOMPARE(comm["terms"][0]["kind"].get<std::string>(), std::string("data_parallel"));
    QCOMPARE(comm["terms"][0]["ranks"].get<std::int64_t>(), std::int64_t { 4 });
    QCOMPARE(comm["terms"][0]["bus_bytes"].get<double>(), 370'236.0);
    QVERIFY(std::abs(comm["terms"][0]["seconds"].get<double>() - 370'236.0 / 15.75e9) < 1e-15);
    QCOMPARE(b["step_seconds"].get<double>(),
        std::max(b["compute_seconds"].get<double>(), b["memory_seconds"].get<double>())
            + b["communication_seconds"].get<double>());
    QCOMPARE(t["communication"]["terms"].size(), std::size_t { 0 }); // one GPU: none
    const auto slow = jsonOf(
        { m_lenet, QStringLiteral("--gpus"), QStringLiteral("4"), QStringLiteral("--inter-node-gbps"),
            QStringLiteral("12.5"), QStringLiteral("--gpus-per-node"), QStringLiteral("2") });
    QCOMPARE(slow["inter_node_gbps"].get<double>(), 12.5);
    QCOMPARE(slow["gpus_per_node"].get<std::int64_t>(), std::int64_t { 2 });
    QVERIFY(slow["throughput"]["communication"]["terms"][0]["crosses_nodes"].get<bool>());
    // A GTX 1080 has no bfloat16: no throughput, but the memory estimate stands.
    const auto bf16 = jsonOf({ m_lenet, QStringLiteral("--precision"), QStringLiteral("amp-bf16") });
    QVERIFY(bf16.contains("bytes"));
    QVERIFY2(QString::fromStdString(bf16["throughput"]["error"].get<std::string>())
                 .contains(QStringLiteral("bfloat16")),
        qPrintable(QString::fromStdString(bf16["throughput"].dump())));
}

void TestCliEstimate::throughputTable()
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

void TestCliEstimate::commandLineWithoutGui()
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
    // ...which names every command there is (it once listed four of the six; `measured` came with issue 36).
    const QString said = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(said.contains(QStringLiteral("estimate, max-batch, plan, compare, report, measured or gpus")),
        qPrintable(said));
}

void TestCliEstimate::pipelineStages()
{
    const QString gpt2 = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    const QStringList args { QStringLiteral("estimate"), gpt2, QStringLiteral("--gpus"), QStringLiteral("4"),
        QStringLiteral("--pipeline-parallel"), QStringLiteral("4"), QStringLiteral("--accumulation-steps"),
        QStringLiteral("8") };
    const Run r = runHeadroom(args);
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = r.out.split(QLatin1Char('\n'));
    const auto title = std::find_if(lines.begin(), lines.end(), [](const QString& l) {
        return l.startsWith(QLatin1String("Pipeline stages (1F1B, 8 micro-batches"));
    });
    QVERIFY2(title != lines.end(), qPrintable(r.out));
    // The header, then one row per stage up to the blank line.
    QVERIFY((title + 1)->startsWith(QLatin1String("Stage")));
    QVERIFY((title + 1)->contains(QLatin1String("In flight")));
    QStringList rows;
    QStringList why; // then each stage's explanation
    for (auto it = title + 2; it != lines.end() && !it->isEmpty(); ++it)
        (it->startsWith(QLatin1String("  - ")) ? why : rows) << *it;
    QCOMPARE(rows.size(), 4);
    QCOMPARE(why.size(), 4);
    QVERIFY2(
        why[0].contains(QStringLiteral("Stage 1 of 4 keeps 4 micro-batches in flight (1F1B: p \u2212 s)")),
        qPrintable(why[0]));
    // GPT-2's 12 blocks over 4 stages, 3 each (Megatron's even split); the embeddings and the dropout
    // go with the first stage, the final norm and the head with the last.
    QVERIFY2(rows[0].contains(QStringLiteral("wte, wpe, drop, h.0\u20132")), qPrintable(rows[0]));
    QVERIFY2(rows[1].contains(QStringLiteral("h.3\u20135")), qPrintable(rows[1]));
    QVERIFY2(rows[3].contains(QStringLiteral("h.9\u201311, ln_f, lm_head")), qPrintable(rows[3]));
    // A middle stage holds 3 blocks: 3 x 7,087,872 = 21,263,616 parameters (a block: ln_1 1,536 + c_attn
    // 768 x 2,304 + 2,304 + c_proj 768 x 768 + 768 + ln_2 1,536 + c_fc 768 x 3,072 + 3,072 + c_proj
    // 3,072 x 768 + 768). 1F1B keeps p - s micro-batches in flight on stage s from 0: 4, 3, 2, 1.
    for (int s = 0; s < 4; ++s) {
        const QStringList cells = rows[s].split(QRegularExpression(QStringLiteral("\\s{2,}")));
        QVERIFY2(cells.size() >= 8, qPrintable(rows[s]));
        QCOMPARE(cells[3], QString::number(4 - s));
        if (s == 1 || s == 2)
            QCOMPARE(cells[2], QStringLiteral("21,263,616"));
    }

    const auto j = jsonOf(args.mid(1));
    QVERIFY(j.contains("pipeline"));
    const auto& stages = j["pipeline"]["stages"];
    QCOMPARE(stages.size(), std::size_t { 4 });
    QCOMPARE(stages[0]["layers"].get<std::string>(), std::string("wte, wpe, drop, h.0\u20132"));
    QCOMPARE(stages[1]["params"].get<std::uint64_t>(), std::uint64_t { 21'263'616 });
    QCOMPARE(j["pipeline"]["micro_batches"].get<int>(), 8);
    // The table marks the stage the JSON calls the heaviest, and only that one.
    const auto heaviest = j["pipeline"]["heaviest_stage"].get<int>();
    for (int s = 0; s < 4; ++s)
        QCOMPARE(rows[s].contains(QLatin1String("(heaviest)")), s == heaviest);
    QVERIFY2(r.out.contains(
                 QStringLiteral("Memory of the heaviest GPU: Stage %1 of 4 (heaviest)").arg(heaviest + 1)),
        qPrintable(r.out));
    // The layout, and the whole model's parameters on the Model line (not the heaviest stage's).
    QVERIFY2(
        r.out.contains(QLatin1String("4 (1 data-parallel x 4 pipeline-parallel), DDP (no sharding), 1F1B, "
                                     "8 micro-batches")),
        qPrintable(r.out));
    const Run plain = runHeadroom({ QStringLiteral("estimate"), gpt2 });
    QCOMPARE(plain.exitCode, 0);
    const auto modelLine = [](const QString& out) {
        for (const QString& l : out.split(QLatin1Char('\n')))
            if (l.startsWith(QLatin1String("Model")))
                return l;
        return QString();
    };
    QVERIFY(!modelLine(r.out).isEmpty());
    QCOMPARE(modelLine(r.out), modelLine(plain.out));
}

QTEST_GUILESS_MAIN(TestCliEstimate)
#include "tst_cliestimate.moc"
