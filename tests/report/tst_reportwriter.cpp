// The PDF report, generated headlessly and read back with poppler's pdftotext: every number it shows
// is the one headroom::evaluate() computes, formatted through headroom/Format.h; big tables
// paginate with their header repeated; an invalid network says why there is no estimate; a failed
// write leaves nothing behind.
//
// Set HEADROOM_REPORT_KEEP=<folder> to keep the generated PDFs there for a look.
#include "PlanText.h"
#include "ReportWriter.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/support/Format.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTranslator>
#include <QtTest>
#include <sys/stat.h>

using namespace headroom;

Q_DECLARE_METATYPE(headroom::Plan)

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

Gpu gtx1080()
{
    Gpu g;
    g.name = "GeForce GTX 1080";
    g.vendor = "NVIDIA";
    g.memoryBytes = 8 * kGiB;
    return g;
}

LayerSpec layer(std::string type, nlohmann::json attributes = nlohmann::json::object(), std::string name = {})
{
    LayerSpec spec;
    spec.type = std::move(type);
    spec.attributes = std::move(attributes);
    spec.name = std::move(name);
    return spec;
}

Network smallCnn()
{
    Network n;
    n.name = "Small CNN";
    n.description = "Two convolutions and a classifier, built in the test.";
    n.input.shape = Shape { { 3, 64, 64 } };
    n.layers = { layer("Conv2d", { { "out_channels", 32 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv1"),
        layer("ReLU", {}, "relu1"), layer("MaxPool2d", { { "kernel_size", 2 } }, "pool1"),
        layer("Conv2d", { { "out_channels", 64 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv2"),
        layer("ReLU", {}, "relu2"), layer("Flatten", {}, "flatten"),
        layer("Linear", { { "out_features", 10 } }, "fc") };
    return n;
}

/// A residual network with Repeat blocks (nested rows) and BatchNorm (batch-independent saved bytes).
Network tinyResNet()
{
    auto parsed = parseModel(R"({
        "format": "headroom-model", "version": 1, "name": "Tiny ResNet",
        "input": {"shape": [3, 64, 64]},
        "layers": [
            {"type": "Conv2d", "name": "stem", "out_channels": 32, "kernel_size": 3, "padding": 1},
            {"type": "BatchNorm2d", "name": "stem_bn"},
            {"type": "ReLU", "name": "stem_relu"},
            {"type": "Repeat", "name": "stage", "times": 3, "layers": [
                {"type": "Conv2d", "name": "conv1", "out_channels": 32, "kernel_size": 3, "padding": 1},
                {"type": "BatchNorm2d", "name": "bn1"},
                {"type": "ReLU", "name": "relu1"},
                {"type": "Conv2d", "name": "conv2", "out_channels": 32, "kernel_size": 3, "padding": 1},
                {"type": "BatchNorm2d", "name": "bn2"},
                {"type": "Add", "name": "add", "inputs": ["repeat_input", "bn2"]},
                {"type": "ReLU", "name": "relu2"}
            ]},
            {"type": "AdaptiveAvgPool2d", "name": "pool", "output_size": 1},
            {"type": "Flatten", "name": "flatten"},
            {"type": "Linear", "name": "fc", "out_features": 10}
        ]})");
    if (!parsed)
        qFatal("tinyResNet: %s", parsed.error().message.c_str());
    return parsed.value();
}

/// A small Llama-style decoder with named projections (LoRA targets), explicit attention (eager vs SDPA)
/// and a Repeat block (per-block checkpointing), on a 512-token input.
Network tinyDecoder()
{
    auto parsed = parseModel(R"({
        "format": "headroom-model", "version": 1, "name": "Tiny Decoder",
        "input": {"shape": [512], "dtype": "int64"},
        "layers": [
            {"type": "Embedding", "name": "embed_tokens", "num_embeddings": 1000, "embedding_dim": 64},
            {"type": "Repeat", "name": "layers", "times": 2, "layers": [
                {"type": "LayerNorm", "name": "input_layernorm"},
                {"type": "Linear", "name": "q_proj", "out_features": 64, "bias": false},
                {"type": "Linear", "name": "k_proj", "out_features": 64, "bias": false, "inputs": ["input_layernorm"]},
                {"type": "Linear", "name": "v_proj", "out_features": 64, "bias": false, "inputs": ["input_layernorm"]},
                {"type": "ScaledDotProductAttention", "name": "attn", "num_heads": 4, "is_causal": true,
                 "inputs": ["q_proj", "k_proj", "v_proj"]},
                {"type": "Linear", "name": "o_proj", "out_features": 64, "bias": false},
                {"type": "Add", "name": "residual", "inputs": ["repeat_input", "o_proj"]}
            ]},
            {"type": "LayerNorm", "name": "norm"},
            {"type": "Linear", "name": "lm_head", "out_features": 1000, "bias": false}
        ]})");
    if (!parsed)
        qFatal("tinyDecoder: %s", parsed.error().message.c_str());
    return parsed.value();
}

/// 30,000 iterations of a small Linear block: past the 25,000 written-out layers the caching allocator is
/// replayed for (core/src/step/StepTrace.h), so its reserved memory is not simulated.
Network tooLargeToReplay()
{
    auto parsed = parseModel(R"({
        "format": "headroom-model", "version": 1, "name": "Too Large To Replay",
        "input": {"shape": [16]},
        "layers": [
            {"type": "Repeat", "name": "blocks", "times": 30000, "layers": [
                {"type": "Linear", "name": "fc", "out_features": 16}
            ]}
        ]})");
    if (!parsed)
        qFatal("tooLargeToReplay: %s", parsed.error().message.c_str());
    return parsed.value();
}

/// `count` layers: alternating Linear and ReLU, each named so a test can find it.
Network deepMlp(int count)
{
    Network n;
    n.name = "Deep MLP";
    n.input.shape = Shape { { 256 } };
    for (int i = 0; i < count; ++i) {
        const std::string name = "block" + std::to_string(i);
        n.layers.push_back(
            i % 2 == 0 ? layer("Linear", { { "out_features", 256 } }, name) : layer("ReLU", {}, name));
    }
    return n;
}

Plan makePlan(Network network, std::int64_t batch = 32, Optimizer optimizer = Optimizer::Adam,
    Precision precision = Precision::Fp32, Gpu gpu = gtx1080())
{
    Plan plan;
    plan.network = std::move(network);
    plan.precision = precision;
    plan.setup.optimizer = optimizer;
    plan.setup.batch = batch;
    plan.gpu = std::move(gpu);
    return plan;
}

/// pdftotext -layout puts a column's text wherever it lands on the page and may drop the space in
/// "0 B"; comparisons ignore whitespace.
QString squeezed(QString s)
{
    return s.remove(QRegularExpression(QStringLiteral("\\s+")));
}

/// Whitespace runs made single spaces: wrapped paragraphs compare with their one-line source.
QString simplified(const QString& s)
{
    return s.simplified();
}

bool hasLineWith(const QString& text, const QString& label, const QString& value)
{
    const QString needle = squeezed(value);
    const auto lines = text.split(QLatin1Char('\n'));
    return std::any_of(lines.begin(), lines.end(),
        [&](const QString& line) { return line.contains(label) && squeezed(line).contains(needle); });
}

struct Tool final
{
    QString output;
    bool ok = false;
};

Tool run(const QString& program, const QStringList& arguments)
{
    QProcess p;
    p.start(program, arguments);
    if (!p.waitForFinished(60000))
        return {};
    return { QString::fromUtf8(p.readAllStandardOutput()),
        p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0 };
}

bool havePoppler()
{
    return !QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty();
}

#define REQUIRE_POPPLER()                                                                                    \
    do {                                                                                                     \
        if (!havePoppler())                                                                                  \
            QSKIP("pdftotext (poppler-utils) is not installed: the report's text cannot be checked");        \
    } while (false)

int pageCount(const QString& pdf)
{
    const Tool info = run(QStringLiteral("pdfinfo"), { pdf });
    const auto m
        = QRegularExpression(QStringLiteral("^Pages:\\s+(\\d+)"), QRegularExpression::MultilineOption)
              .match(info.output);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

QString pdfText(const QString& pdf)
{
    const Tool t = run(QStringLiteral("pdftotext"),
        { QStringLiteral("-layout"), QStringLiteral("-enc"), QStringLiteral("UTF-8"), pdf,
            QStringLiteral("-") });
    return t.ok ? t.output : QString();
}

void keep(const QString& pdf, const QString& name)
{
    const QString folder = qEnvironmentVariable("HEADROOM_REPORT_KEEP");
    if (folder.isEmpty())
        return;
    QDir {}.mkpath(folder);
    const QString target = QDir { folder }.filePath(name + QStringLiteral(".pdf"));
    QFile::remove(target);
    QFile::copy(pdf, target);
}

} // namespace

class TestReportWriter : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();

    void presetReport_data();
    void presetReport();
    void codeBuiltPlans_data();
    void codeBuiltPlans();
    void fontsAreEmbeddedAndChartIsVector();
    void bigModelTablePaginatesWithHeaders();
    void totalsNeverStandAloneOnAPage();
    void layerTypesKeepTheirSize();
    void koreanUiMakesAKoreanReport();
    void invalidLayerExplainsMissingEstimate();
    void strategiesAndThroughput();
    void stepChartNamesThePeak_data();
    void stepChartNamesThePeak();
    void defaultPlanListsNoStrategies();
    void warningsAreListedUnderAssumptions();

    void missingFolderFails();
    void parentIsAFileFails();
    void targetIsAFolderFails();
    void emptyPathFails();
    void readOnlyFolderFails();
    void existingFileSurvivesFailedWrite();
    void existingFileIsReplacedOnSuccess();
    // Issue #17: a save keeps what it replaces and refuses what it must not replace.
    void replacedFileKeepsItsLinkAndMode_data();
    void replacedFileKeepsItsLinkAndMode();
    void specialTargetsAreRefused_data();
    void specialTargetsAreRefused();

private:
    /// Writes `plan` to a fresh file named after `name`; `path` is set on success.
    void write(const Plan& plan, const PlanResult& result, const QString& name, QString& path);
    /// The checks every report with an estimate passes: all numbers as evaluate() gives them.
    void verifyNumbers(const Plan& plan, const PlanResult& result, const QString& pdf);

    QTemporaryDir m_dir;
};

void TestReportWriter::initTestCase()
{
    QVERIFY2(m_dir.isValid(), qPrintable(m_dir.errorString()));
    if (!havePoppler())
        qWarning(
            "pdftotext (poppler-utils) is not installed: the tests that read the report back are skipped");
}

void TestReportWriter::write(const Plan& plan, const PlanResult& result, const QString& name, QString& path)
{
    const QString target = m_dir.filePath(name + QStringLiteral(".pdf"));
    const auto written = report::writePdfReport(plan, result, target);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QVERIFY2(QFileInfo { target }.size() > 1000, qPrintable(target));
    keep(target, name);
    path = target;
}

void TestReportWriter::verifyNumbers(const Plan& plan, const PlanResult& result, const QString& pdf)
{
    QVERIFY2(result.estimate, "the plan has no estimate");
    const Estimate& e = *result.estimate;
    const QString text = pdfText(pdf);
    QVERIFY2(!text.isEmpty(), "pdftotext read nothing");
    const int pages = pageCount(pdf);
    QVERIFY2(pages >= 1, "pdfinfo found no pages");

    // Title, set-up.
    QVERIFY2(simplified(text).contains(QStringLiteral("Memory plan for ") + qs(plan.network.name)),
        qPrintable(text.left(300)));
    QVERIFY(text.contains(QStringLiteral("Headroom " HEADROOM_VERSION)));
    QVERIFY(
        simplified(text).contains(qs(plan.gpu.name + ", " + formatBytes(plan.gpu.memoryBytes) + " memory")));
    QVERIFY(hasLineWith(text, QStringLiteral("Optimizer"), qs(optimizerLabel(plan.setup.optimizer))));
    QVERIFY(hasLineWith(text, QStringLiteral("Precision"), qs(precisionLabel(plan.precision))));
    QVERIFY(hasLineWith(
        text, QStringLiteral("Batch size"), qs(formatCount(static_cast<std::uint64_t>(plan.setup.batch)))));
    QVERIFY(
        hasLineWith(text, QStringLiteral("Framework overhead"), qs(formatBytes(plan.setup.overheadBytes))));
    QVERIFY(hasLineWith(text, QStringLiteral("Parameters"), qs(formatCount(result.analysis.totalParams))));

    // The layer count, as the GUI counts layers: neither Repeat headers nor the loss.
    int layers = 0;
    for (const auto& row : result.analysis.rows) // a row stands for row.count identical layers
        layers += row.type != "Repeat" && row.specPath != "loss" ? static_cast<int>(row.count) : 0;
    QVERIFY2(QRegularExpression(
                 QStringLiteral("^Layers\\s+%1\\s*$")
                     .arg(QRegularExpression::escape(qs(formatCount(static_cast<std::uint64_t>(layers))))),
                 QRegularExpression::MultilineOption)
                 .match(text)
                 .hasMatch(),
        qPrintable(QStringLiteral("no \"Layers %1\" line").arg(layers)));
    QVERIFY(text.contains(
        QStringLiteral("Layers (%1)").arg(qs(formatCount(static_cast<std::uint64_t>(layers))))));
    // ... and the table's last numbered line (identical Repeat iterations share one) has the last
    // layer's name.
    std::string lastName;
    int lines = 0;
    for (const auto& group : groupRows(result.analysis)) {
        const LayerRow& row = result.analysis.rows[group.row];
        if (row.type != "Repeat" && row.specPath != "loss") {
            lastName = group.name;
            ++lines;
        }
    }
    QVERIFY2(QRegularExpression(
                 QStringLiteral("^\\s*%1\\s+%2\\s").arg(lines).arg(QRegularExpression::escape(qs(lastName))),
                 QRegularExpression::MultilineOption)
                 .match(text)
                 .hasMatch(),
        qPrintable(QStringLiteral("no row %1 for %2").arg(lines).arg(qs(lastName))));

    // Summary: every component as formatBytes shows it, with its share as `headroom estimate` prints
    // it ("9.4 %"), on its own line with its label.
    for (const auto c : kAllComponents) {
        const QString label = qs(componentLabel(c));
        const std::uint64_t n = componentBytes(e.bytes, c);
        if (c == Component::Communication && n == 0 && plan.setup.parallel.gpus == 1) {
            // One GPU has no communication buffers: no row for them.
            QVERIFY2(!text.contains(label), "a Communication buffers row on one GPU");
            continue;
        }
        const QString bytes = qs(formatBytes(n));
        const QString share
            = QString::number(100.0 * static_cast<double>(n) / static_cast<double>(e.total()), 'f', 1)
            + QStringLiteral(" %");
        QVERIFY2(hasLineWith(text, label, bytes + QLatin1Char(' ') + share),
            qPrintable(label + QStringLiteral(": ") + bytes + QStringLiteral(", ") + share
                + QStringLiteral(" not found")));
    }
    QVERIFY2(hasLineWith(text, QStringLiteral("Total"), qs(formatBytes(e.total()))), "total missing");
    const QString verdict = (e.fits ? QStringLiteral("Fits on the ") : QStringLiteral("Does not fit on the "))
        + qs(plan.gpu.name);
    QVERIFY2(simplified(text).contains(verdict), qPrintable(verdict));
    const QString detail = QStringLiteral("Batch %1 needs %2 of %3: %4 %5.")
                               .arg(qs(formatCount(static_cast<std::uint64_t>(e.batch))),
                                   qs(formatBytes(e.total())), qs(formatBytes(e.gpuMemoryBytes)),
                                   e.fits ? QStringLiteral("headroom") : QStringLiteral("shortfall"),
                                   qs(formatBytes(static_cast<std::uint64_t>(std::abs(e.headroomBytes())))));
    QVERIFY2(simplified(text).contains(detail), qPrintable(detail));
    if (e.maxBatch > 0)
        QVERIFY2(
            simplified(text).contains(
                QStringLiteral("Max batch: %1").arg(qs(formatCount(static_cast<std::uint64_t>(e.maxBatch))))),
            qPrintable(QStringLiteral("max batch %1 missing").arg(e.maxBatch)));
    else
        QVERIFY(simplified(text).contains(QStringLiteral("Not even batch 1 fits")));
    // Reserved next to allocated, and why they differ (issue 23).
    if (result.reservedFigures) {
        const ReservedFigures& r = *result.reservedFigures;
        const QString reserved
            = QStringLiteral("PyTorch's caching allocator reserves %1 at its peak for %2 of tensors")
                  .arg(qs(formatBytes(r.peakReservedBytes)), qs(formatBytes(r.peakAllocatedBytes)));
        QVERIFY2(simplified(text).contains(reserved), qPrintable(reserved));
        QVERIFY(simplified(text).contains(QStringLiteral("keeps freed blocks cached")));
        QCOMPARE(
            simplified(text).contains(QStringLiteral("With expandable_segments:True, one segment per pool "
                                                     "grows by mapping pages instead.")),
            plan.setup.expandableSegments);
        // The step chart's reserved line: at most the steady step's reserved peak (the replay's phase
        // peaks of the second step), plus the overhead. Where the cap made the allocator release its
        // cache the peak need not be at a moment: only the sentence is checked then.
        ReservedRun run = result.reserved->run(e.batch, r.capacityBytes);
        if (!run.fits)
            run = result.reserved->run(e.batch);
        const std::size_t n = run.phases.size();
        const std::uint64_t steadyPeak = std::max(
            { run.phases[n - 3].reserved, run.phases[n - 2].reserved, run.phases[n - 1].reserved });
        const QString line
            = QStringLiteral("what PyTorch's caching allocator holds reserved, plus the overhead, ");
        QVERIFY2(simplified(text).contains(line), qPrintable(line));
        if (run.allocRetries == 0)
            QVERIFY2(simplified(text).contains(line + qs(formatBytes(steadyPeak + plan.setup.overheadBytes))),
                qPrintable(qs(formatBytes(steadyPeak + plan.setup.overheadBytes))));
    } else if (result.reservedError) {
        // Too large to replay: the report says so and why, as `estimate` does.
        const QString why = QStringLiteral("Reserved by PyTorch's caching allocator: not simulated (%1).")
                                .arg(qs(result.reservedError->message));
        QVERIFY2(simplified(text).contains(why), qPrintable(simplified(text)));
        QVERIFY(simplified(text).contains(QStringLiteral("The max batch is from the tensors alone.")));
    }

    // The chart's labels are text too: the GPU line and the current batch.
    const QString gpuLabel = qs(plan.gpu.name + ": " + formatBytes(plan.gpu.memoryBytes));
    QVERIFY2(squeezed(text).contains(
                 squeezed(plan.gpu.name.size() <= 40 ? gpuLabel : gpuLabel.section(QLatin1Char(':'), -1))),
        qPrintable(gpuLabel)); // a long name is elided, not the size
    if (e.batch <= 4 * std::max<std::int64_t>(e.maxBatch, 8)) // the chart spans at least 2 x batch
        QVERIFY(squeezed(text).contains(squeezed(
            QStringLiteral("Batch %1: %2")
                .arg(qs(formatCount(static_cast<std::uint64_t>(e.batch))), qs(formatBytes(e.total()))))));

    // Throughput: the figures estimateThroughput() gives, or why there are none.
    const auto throughput = estimateThroughput(result.analysis, plan.setup, plan.gpu);
    if (throughput) {
        QVERIFY(text.contains(QStringLiteral("Throughput (estimated)")));
        QString step = qs(report::plantext::formatSeconds(throughput->stepSeconds));
        if (step.endsWith(QStringLiteral(" us")))
            step = step.chopped(2) + QStringLiteral("\u00b5s"); // the report writes a real micro sign
        QVERIFY2(hasLineWith(text, QStringLiteral("Step time"), step + QStringLiteral(" per optimizer step")),
            qPrintable(step));
        QVERIFY(hasLineWith(text, QStringLiteral("Samples per second"),
            qs(report::plantext::formatRate(throughput->samplesPerSecond))));
        QVERIFY(hasLineWith(text, QStringLiteral("FLOPs per sample"),
            qs(report::plantext::formatFlops(throughput->forwardFlopsPerSample))
                + QStringLiteral(" forward")));
        QVERIFY(hasLineWith(text, QStringLiteral("Assumed utilisation"),
            qs(report::plantext::formatFraction(throughput->utilization))));
        if (throughput->tokensPerSecond > 0)
            QVERIFY(hasLineWith(text, QStringLiteral("Tokens per second"),
                qs(report::plantext::formatRate(throughput->tokensPerSecond))));
        for (const auto& note : throughput->notes)
            QVERIFY2(simplified(text).contains(qs(note)), note.c_str());
    } else {
        QVERIFY2(simplified(text).contains(QStringLiteral("No throughput estimate: ")
                     + qs(throughput.error().message) + QLatin1Char('.')),
            throughput.error().message.c_str());
    }

    // Assumptions, page numbers on every page.
    QVERIFY(text.contains(QStringLiteral("Assumptions and method")));
    QVERIFY(simplified(text).contains(QStringLiteral("docs/memory-model.md")));
    const QStringList pageTexts = text.split(QLatin1Char('\f'), Qt::SkipEmptyParts);
    QCOMPARE(pageTexts.size(), pages);
    for (int i = 0; i < pages; ++i)
        QVERIFY2(pageTexts[i].contains(QStringLiteral("Page %1 of %2").arg(i + 1).arg(pages)),
            qPrintable(QStringLiteral("page %1 has no page number").arg(i + 1)));
    // Never a ligature glyph: "fi" must copy out as two letters.
    QVERIFY(!text.contains(QChar { 0xfb01 }) && !text.contains(QChar { 0xfb02 }));
}

void TestReportWriter::presetReport_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("batch");
    QTest::newRow("vgg16") << QStringLiteral("vgg16") << qint64 { 64 };
    QTest::newRow("resnet50") << QStringLiteral("resnet50") << qint64 { 32 };
}

void TestReportWriter::presetReport()
{
    QFETCH(QString, preset);
    QFETCH(qint64, batch);
    const QString file
        = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/") + preset + QStringLiteral(".json");
    QVERIFY2(QFileInfo::exists(file), qPrintable(file + QStringLiteral(" is missing")));
    auto network = loadModelFile(file.toStdString());
    QVERIFY2(network.ok(), network.ok() ? "" : network.error().message.c_str());
    const Plan plan = makePlan(network.value(), batch);
    const PlanResult result = evaluate(plan);
    QVERIFY2(result.estimate, result.error ? result.error->message.c_str() : "");
    QString pdf;
    write(plan, result, QStringLiteral("preset-") + preset, pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    verifyNumbers(plan, result, pdf);
}

void TestReportWriter::stepChartNamesThePeak_data()
{
    // tinyMlp() of tests/core/tst_steptimeline.cpp, no overhead: weights 232 B, Adam's state 464 B,
    // 24 B of batch per sample. Batch 32: relu's backward holds 696 + 768 + 1,024 of activations +
    // 2,048 of activation gradients + 72 of parameter gradients + the 4-byte loss the training loop holds
    // through backward = 4,612 B, the first step 464 B less. Batch 1 with the fused step (no
    // parameter-sized temporaries): fc1's backward holds 696 + 24 + 32 of activation gradient + 232 of
    // parameter gradients + the loss 4 = 988 B, above the optimizer step's
    // 696 + 24 + 232 = 952 B. The first step lacks the 464 B of state until its step: 952 B.
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<int>("implementation");
    QTest::addColumn<QString>("caption");
    QTest::addColumn<qint64>("firstStep");
    QTest::newRow("batch 32, foreach")
        << qint64 { 32 } << int(OptimizerImplementation::Foreach)
        << QStringLiteral(
               "One training step at batch 32: %1 at its peak, in the backward pass, at layer relu.")
               .arg(qs(formatBytes(4612)))
        << qint64 { 4148 };
    QTest::newRow("batch 1, fused")
        << qint64 { 1 } << int(OptimizerImplementation::Fused)
        << QStringLiteral(
               "One training step at batch 1: 988 B at its peak, in the backward pass, at layer fc1.")
        << qint64 { 952 };
}

void TestReportWriter::stepChartNamesThePeak()
{
    QFETCH(qint64, batch);
    QFETCH(int, implementation);
    QFETCH(QString, caption);
    QFETCH(qint64, firstStep);
    Network mlp;
    mlp.name = "Tiny MLP";
    mlp.input.shape = Shape { { 4 } };
    mlp.layers = { layer("Linear", { { "out_features", 8 } }, "fc1"), layer("ReLU", {}, "relu"),
        layer("Linear", { { "out_features", 2 } }, "fc2") };
    Plan plan = makePlan(mlp, batch);
    plan.setup.overheadBytes = 0;
    plan.setup.optimizerImplementation = static_cast<OptimizerImplementation>(implementation);
    const PlanResult result = evaluate(plan);
    QVERIFY(result.estimate);
    QString pdf;
    write(plan, result, QStringLiteral("step-chart-%1").arg(batch), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    const QString text = simplified(pdfText(pdf));
    QVERIFY(text.contains(QStringLiteral("During one step")));
    QVERIFY2(text.contains(caption), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Implementation ")
        + qs(optimizerImplementationLabel(plan.setup.optimizerImplementation))));
    QVERIFY2(text.contains(QStringLiteral("the first step at %1.")
                               .arg(qs(formatBytes(static_cast<std::uint64_t>(firstStep))))),
        qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("temporaries inside the optimizer step")));
}

void TestReportWriter::codeBuiltPlans_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::newRow("small cnn, fits") << makePlan(smallCnn(), 32);
    QTest::newRow("small cnn, does not fit") << makePlan(smallCnn(), 20000);
    Gpu tiny = gtx1080();
    tiny.name = "Tiny Test GPU";
    tiny.memoryBytes = 256 * kMiB;
    QTest::newRow("not even batch 1") << makePlan(smallCnn(), 4, Optimizer::Adam, Precision::Fp32, tiny);
    QTest::newRow("resnet, amp, sgd") << makePlan(tinyResNet(), 128, Optimizer::Sgd, Precision::AmpFp16);
    QTest::newRow("resnet, pure bf16, adamw")
        << makePlan(tinyResNet(), 256, Optimizer::AdamW, Precision::Bf16);
    Network unicode = smallCnn();
    // (Not 网: CJK characters whose glyph is also a Kangxi radical's copy out as the radical, as Qt's
    // PDF writer maps each glyph back to its lowest code point.)
    unicode.name = "Réseau 卷积模型 – efficient";
    QTest::newRow("unicode name") << makePlan(unicode, 16);
    Network longName = smallCnn();
    longName.name = "A model whose name is far too long to fit on one line of the title, "
                    "so that the title has to wrap onto a second line and the footer has to elide it";
    QTest::newRow("long name") << makePlan(longName, 16);
    Gpu big = gtx1080();
    big.name = "Hypothetical Accelerator With A Rather Long Marketing Name";
    big.memoryBytes = 640 * kGiB;
    Network lenet = smallCnn();
    lenet.input.shape = Shape { { 1, 28, 28 } };
    QTest::newRow("huge max batch") << makePlan(lenet, 8, Optimizer::Momentum, Precision::AmpBf16, big);
    QTest::newRow("too large to replay") << makePlan(tooLargeToReplay(), 8);
    Plan expandable = makePlan(smallCnn(), 32);
    expandable.setup.expandableSegments = true;
    QTest::newRow("expandable segments") << expandable;
}

void TestReportWriter::codeBuiltPlans()
{
    QFETCH(Plan, plan);
    const PlanResult result = evaluate(plan);
    QVERIFY2(result.estimate, result.error ? result.error->message.c_str() : "");
    if (QByteArray(QTest::currentDataTag()) == "too large to replay")
        QVERIFY2(result.reservedError && !result.reservedFigures, "the allocator was replayed");
    const QString name = QString::fromLatin1(QTest::currentDataTag())
                             .replace(QRegularExpression(QStringLiteral("\\W+")), QStringLiteral("-"));
    QString pdf;
    write(plan, result, name, pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    verifyNumbers(plan, result, pdf);
}

void TestReportWriter::fontsAreEmbeddedAndChartIsVector()
{
    const Plan plan = makePlan(tinyResNet(), 64);
    const PlanResult result = evaluate(plan);
    QString pdf;
    write(plan, result, QStringLiteral("fonts"), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    // pdffonts: a header, a rule, then one line per font; the "emb" column must say yes for all.
    const Tool fonts = run(QStringLiteral("pdffonts"), { pdf });
    QVERIFY(fonts.ok);
    const QStringList lines = fonts.output.split(QLatin1Char('\n'), Qt::SkipEmptyParts).mid(2);
    QVERIFY2(!lines.isEmpty(), qPrintable(fonts.output));
    for (const QString& line : lines)
        QVERIFY2(QRegularExpression(QStringLiteral("\\s(yes)\\s+(yes|no)\\s+(yes|no)\\s+\\d+\\s+\\d+\\s*$"))
                     .match(line)
                     .hasMatch(),
            qPrintable(QStringLiteral("font not embedded: ") + line));
    // No raster images at all: the chart is paths and text.
    const Tool images = run(QStringLiteral("pdfimages"), { QStringLiteral("-list"), pdf });
    if (images.ok)
        QCOMPARE(images.output.split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 2); // the header only
    // A chart, not an empty frame: its axis title and tick labels are there.
    const QString text = pdfText(pdf);
    QVERIFY(text.contains(QStringLiteral("Memory versus batch size")));
    QVERIFY(text.contains(QStringLiteral("Batch size")));
    QVERIFY(QRegularExpression(QStringLiteral("\\d+(\\.\\d+)? (MiB|GiB)\\b")).match(text).hasMatch());
}

void TestReportWriter::bigModelTablePaginatesWithHeaders()
{
    constexpr int kLayers = 300;
    const Plan plan = makePlan(deepMlp(kLayers), 64);
    const PlanResult result = evaluate(plan);
    QVERIFY2(result.estimate, result.error ? result.error->message.c_str() : "");
    QString pdf;
    write(plan, result, QStringLiteral("deep-mlp-300"), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    verifyNumbers(plan, result, pdf);

    const int pages = pageCount(pdf);
    QVERIFY2(pages >= 5, qPrintable(QStringLiteral("%1 pages").arg(pages)));
    const QStringList pageTexts = pdfText(pdf).split(QLatin1Char('\f'), Qt::SkipEmptyParts);
    QCOMPARE(pageTexts.size(), pages);
    const QRegularExpression tableRow { QStringLiteral("^\\s*(\\d+)\\s+block\\d+\\s+(Linear|ReLU)\\b"),
        QRegularExpression::MultilineOption };
    const QRegularExpression header { QStringLiteral(
                                          "^\\s*#\\s+Layer\\s+Type\\s+Output shape\\s+Parameters\\b"),
        QRegularExpression::MultilineOption };
    int tablePages = 0;
    int headers = 0;
    int nextIndex = 1;
    for (int i = 0; i < pages; ++i) {
        const QString& page = pageTexts[i];
        int headersHere = 0;
        for (auto it = header.globalMatch(page); it.hasNext(); it.next())
            ++headersHere;
        headers += static_cast<int>(page.count(QStringLiteral("Output shape")));
        auto rows = tableRow.globalMatch(page);
        if (!rows.hasNext())
            continue;
        ++tablePages;
        QVERIFY2(headersHere == 1,
            qPrintable(QStringLiteral("page %1 has table rows but %2 headers").arg(i + 1).arg(headersHere)));
        // Rows continue across pages in order, none lost at a page break.
        while (rows.hasNext()) {
            const auto m = rows.next();
            QCOMPARE(m.captured(1).toInt(), nextIndex);
            ++nextIndex;
        }
    }
    QCOMPARE(nextIndex - 1, kLayers);
    QVERIFY2(tablePages >= 4, qPrintable(QStringLiteral("the table spans %1 pages").arg(tablePages)));
    QCOMPARE(headers, tablePages); // "Output shape" only ever appears in the table header
}

void TestReportWriter::totalsNeverStandAloneOnAPage()
{
    // Tables of every length from one that just fits its first page to two pages more: whatever
    // falls on the page break, a page that continues the table holds layer rows, never the totals
    // alone under a "Layers (continued)" caption.
    REQUIRE_POPPLER();
    const QRegularExpression layerRow { QStringLiteral("^\\s*\\d+\\s+block\\d+\\s"),
        QRegularExpression::MultilineOption };
    int continued = 0;
    for (int layers = 40; layers <= 130; layers += 3) {
        const Plan plan = makePlan(deepMlp(layers), 64);
        const PlanResult result = evaluate(plan);
        QString pdf;
        write(plan, result, QStringLiteral("deep-mlp-%1").arg(layers), pdf);
        if (QTest::currentTestFailed())
            return;
        const QStringList pages = pdfText(pdf).split(QLatin1Char('\f'), Qt::SkipEmptyParts);
        for (int i = 0; i < pages.size(); ++i) {
            if (!pages[i].contains(QStringLiteral("Layers (continued)")))
                continue;
            ++continued;
            QVERIFY2(layerRow.match(pages[i]).hasMatch(),
                qPrintable(QStringLiteral("%1 layers: page %2 continues the table without a layer row:\n%3")
                               .arg(layers)
                               .arg(i + 1)
                               .arg(pages[i].left(600))));
        }
        // The table's totals (the row with FLOPs) are printed once, on a page with layer rows.
        const QRegularExpression totals { QStringLiteral("^\\s*Total\\b.*FLOP"),
            QRegularExpression::MultilineOption };
        int pagesWithTotals = 0;
        for (const QString& page : pages) {
            if (totals.match(page).hasMatch()) {
                ++pagesWithTotals;
                QVERIFY2(layerRow.match(page).hasMatch(),
                    qPrintable(QStringLiteral("%1 layers: the totals stand alone").arg(layers)));
            }
        }
        QCOMPARE(pagesWithTotals, 1);
    }
    QVERIFY2(continued > 10, "the lengths tried never broke the table across pages");
}

void TestReportWriter::layerTypesKeepTheirSize()
{
    // VGG-16 has an AdaptiveAvgPool2d, the longest type name of the presets: it is set in the same
    // size as "ReLU", not squeezed into its column.
    REQUIRE_POPPLER();
    const auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    QVERIFY(network);
    const Plan plan = makePlan(network.value());
    const PlanResult result = evaluate(plan);
    QString pdf;
    write(plan, result, QStringLiteral("vgg16-types"), pdf);
    if (QTest::currentTestFailed())
        return;
    const Tool boxes
        = run(QStringLiteral("pdftotext"), { QStringLiteral("-bbox"), pdf, QStringLiteral("-") });
    QVERIFY(boxes.ok);
    const QRegularExpression word {
        QStringLiteral(
            R"re(<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(AdaptiveAvgPool2d|ReLU|MaxPool2d)</word>)re")
    };
    QHash<QString, double> heights;
    for (auto it = word.globalMatch(boxes.output); it.hasNext();) {
        const auto m = it.next();
        heights.insert(m.captured(5), m.captured(4).toDouble() - m.captured(2).toDouble());
    }
    QVERIFY2(
        heights.contains(QStringLiteral("AdaptiveAvgPool2d")) && heights.contains(QStringLiteral("ReLU")),
        "the table's type names were not found");
    QVERIFY2(
        std::abs(heights.value(QStringLiteral("AdaptiveAvgPool2d")) - heights.value(QStringLiteral("ReLU")))
            < 0.05,
        qPrintable(QStringLiteral("AdaptiveAvgPool2d %1 pt high, ReLU %2 pt")
                       .arg(heights.value(QStringLiteral("AdaptiveAvgPool2d")))
                       .arg(heights.value(QStringLiteral("ReLU")))));
}

void TestReportWriter::koreanUiMakesAKoreanReport()
{
    // The GUI installs the user's language; the report it exports is then in that language too.
    REQUIRE_POPPLER();
#ifndef HEADROOM_TEST_TRANSLATIONS
    QSKIP("the translations are built with the GUI only");
#endif
    QTranslator korean;
    QVERIFY2(korean.load(QStringLiteral(HEADROOM_TEST_BINARY_DIR "/ui/headroom_ko.qm")),
        "headroom_ko.qm not built (the headroom_ui_lrelease target)");
    QCoreApplication::installTranslator(&korean);
    const auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    QVERIFY(network);
    Plan plan = makePlan(network.value());
    plan.checkpointing = Checkpointing::PerBlock;
    const PlanResult result = evaluate(plan);
    QString pdf;
    write(plan, result, QStringLiteral("vgg16-ko"), pdf);
    QCoreApplication::removeTranslator(&korean);
    if (QTest::currentTestFailed())
        return;
    const QString text = simplified(pdfText(pdf));
    struct Phrase
    {
        const char* context;
        const char* english;
    };
    for (const Phrase& p : std::initializer_list<Phrase> {
             { "headroom::report::ReportComposer", "Set-up" },
             { "headroom::report::ReportComposer", "Summary" },
             { "headroom::report::ReportComposer", "Memory versus batch size" },
             { "headroom::report::ReportComposer", "Assumptions and method" },
             { "headroom::report::ReportComposer", "Framework overhead" },
             { "headroom::report::LayerTablePainter", "Output shape" },
             { "headroom::report::MemoryChartPainter", "Batch size (log scale)" },
             { "headroom::ui::CoreText", "Optimizer state" },
             { "headroom::ui::CoreText", "Adam" },
         }) {
        const QString translated = korean.translate(p.context, p.english);
        QVERIFY2(!translated.isEmpty(), p.english);
        QVERIFY2(text.contains(translated), qPrintable(QStringLiteral("\"%1\" missing").arg(translated)));
    }
    for (const char* english : { "Set-up", "Summary", "Memory versus batch size", "Assumptions and method",
             "Output shape", "Page 1 of", "Generated ", "Fits on the", "Throughput", "without batch norm" })
        QVERIFY2(!text.contains(QLatin1String(english)), english);
    // The preset's description too (issue 25 item 11): its translation's first words, before any
    // line break.
    const QString description = korean.translate("headroom::ui::CoreText", network->description.c_str());
    QVERIFY2(!description.isEmpty(), "the VGG-16 preset's description has no Korean translation");
    QVERIFY2(text.contains(description.left(12)), qPrintable(description.left(12)));
    // Hangul, not boxes: the fonts embedded have the glyphs (their text extracts as Korean).
    const auto hangul = std::count_if(
        text.begin(), text.end(), [](QChar c) { return c.unicode() >= 0xac00 && c.unicode() <= 0xd7a3; });
    QVERIFY2(hangul > 200, qPrintable(QString::number(hangul)));
}

void TestReportWriter::invalidLayerExplainsMissingEstimate()
{
    Network n = smallCnn();
    n.name = "Broken CNN";
    // A 99x99 kernel does not fit the 32x32 maps after the pooling layer.
    n.layers.insert(
        n.layers.begin() + 3, layer("Conv2d", { { "out_channels", 8 }, { "kernel_size", 99 } }, "too_big"));
    const Plan plan = makePlan(n, 32);
    const PlanResult result = evaluate(plan);
    QVERIFY2(!result.estimate && result.error, "the broken network still has an estimate");
    QString pdf;
    write(plan, result, QStringLiteral("invalid"), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    const QString text = pdfText(pdf);
    QVERIFY(text.contains(QStringLiteral("Memory plan for Broken CNN")));
    QVERIFY(text.contains(QStringLiteral("No estimate")));
    // The reason, in full: the analysis's error names the layer (estimate() only prefixes it).
    QVERIFY(result.analysis.error);
    QVERIFY(qs(result.error->message).endsWith(qs(result.analysis.error->message)));
    const QString reason
        = QStringLiteral("Headroom cannot estimate this plan: ") + qs(result.analysis.error->message);
    QVERIFY2(
        simplified(text).contains(reason), qPrintable(QStringLiteral("the reason is missing: ") + reason));
    // The invalid layer's row says so; layers after it have no numbers.
    QVERIFY(text.contains(QStringLiteral("Error: ")));
    QVERIFY(text.contains(QStringLiteral("too_big")));
    QVERIFY(text.contains(QStringLiteral("depends on an invalid layer")));
    // No figures that would need an estimate: no summary table, chart, verdict or totals.
    for (const char* absent : { "Fits on the", "Does not fit", "Max batch", "Memory versus batch size",
             "Optimizer state", "Transient", "Total", ": headroom", ": shortfall" })
        QVERIFY2(!text.contains(QString::fromUtf8(absent)), absent);
    QVERIFY(text.contains(QStringLiteral("Page 1 of %1").arg(pageCount(pdf))));
}

void TestReportWriter::strategiesAndThroughput()
{
    Gpu gpu;
    gpu.name = "Test Accelerator 24GB";
    gpu.vendor = "NVIDIA";
    gpu.memoryBytes = 24 * kGiB;
    gpu.bandwidthGBps = 1008;
    gpu.fp32Tflops = 82.6;
    gpu.fp16Tflops = 165.2;
    gpu.bf16Tflops = 165.2;
    Plan plan = makePlan(tinyDecoder(), 2, Optimizer::AdamW, Precision::AmpBf16, gpu);
    plan.sequenceLength = 256;
    plan.checkpointing = Checkpointing::PerBlock;
    plan.attention = AttentionImplementation::Eager;
    plan.setup.accumulationSteps = 8;
    plan.setup.parallel.gpus = 4;
    plan.setup.parallel.sharding = Sharding::Zero3;
    plan.setup.assumedUtilization = 0.35;
    plan.lora.rank = 16;
    plan.lora.targets = { "q_proj", "v_proj" };
    plan.lora.dropout = 0.05;
    const PlanResult result = evaluate(plan);
    QVERIFY2(result.estimate, result.error ? result.error->message.c_str() : "");
    QString pdf;
    write(plan, result, QStringLiteral("strategies"), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    verifyNumbers(plan, result, pdf);
    const QString text = pdfText(pdf);
    const QString flat = simplified(text);

    // Set-up: the micro-batch and the effective batch, and every strategy that is not the default.
    QVERIFY2(hasLineWith(text, QStringLiteral("Batch size"),
                 QStringLiteral("2 per GPU (micro-batch); effective batch 64 = 2 x 8 steps x 4 GPUs")),
        "batch size line");
    QVERIFY(hasLineWith(text, QStringLiteral("Sequence length"), QStringLiteral("256 tokens")));
    QVERIFY(
        hasLineWith(text, QStringLiteral("Input"), QStringLiteral("B x 256, int64"))); // not the model's 512
    QVERIFY(hasLineWith(
        text, QStringLiteral("Accumulation"), QStringLiteral("8 micro-batches per optimizer step")));
    QVERIFY(hasLineWith(text, QStringLiteral("GPUs"), QStringLiteral("4, ZeRO stage 3")));
    QVERIFY(hasLineWith(text, QStringLiteral("Checkpointing"), QStringLiteral("Per block")));
    QVERIFY(hasLineWith(text, QStringLiteral("Attention"), QStringLiteral("Eager (keeps T x T scores)")));
    QVERIFY(flat.contains(QStringLiteral("LoRA rank 16 on q_proj, v_proj, dropout 0.05")));
    QVERIFY(hasLineWith(text, QStringLiteral("Utilisation"), QStringLiteral("35 % of peak assumed")));

    // Summary: per GPU, the effective max batch, checkpointing's saving, LoRA's trainable share.
    const Estimate& e = *result.estimate;
    QVERIFY2(flat.contains(QStringLiteral("Max batch: %1 per GPU, an effective batch of %2.")
                               .arg(qs(formatCount(static_cast<std::uint64_t>(e.maxBatch))),
                                   qs(report::plantext::effectiveBatchText(e.maxBatch, plan.setup, true)))),
        "effective max batch");
    QVERIFY(flat.contains(QStringLiteral("Memory is per GPU, on each of 4 GPUs.")));
    const Analysis& a = result.analysis;
    const std::uint64_t saved = (a.uncheckpointedActivationBytesPerSample - a.activationBytesPerSample) * 2
        + (a.uncheckpointedActivationBytesFixed - a.activationBytesFixed);
    QVERIFY2(saved > 0, "per-block checkpointing saves nothing");
    QVERIFY2(flat.contains(QStringLiteral("Checkpointing (per-block) saves %1 of activations at batch 2")
                               .arg(qs(formatBytes(saved)))),
        qPrintable(qs(formatBytes(saved))));
    QVERIFY(flat.contains(QStringLiteral("forward compute.")));
    QVERIFY2(a.loraParams > 0, "LoRA adds no parameters");
    QVERIFY(flat.contains(QStringLiteral("LoRA adds %1 adapter parameters: %2 of %3 parameters train")
                              .arg(qs(formatCount(a.loraParams)), qs(formatCount(a.trainableParams)),
                                  qs(formatCount(a.totalParams)))));
    // ZeRO-3's gather buffers are a component of their own, in the table and the chart's legend.
    QVERIFY(e.bytes.communication > 0);
    QVERIFY(text.count(QStringLiteral("Communication buffers")) >= 2);

    // Throughput with the recomputation checkpointing costs.
    QVERIFY(text.contains(QStringLiteral("Throughput (estimated)")));
    QVERIFY(hasLineWith(text, QStringLiteral("FLOPs per sample"), QStringLiteral("recomputed")));
    QVERIFY(
        hasLineWith(text, QStringLiteral("Assumed utilisation"), QStringLiteral("35 % of 165 TFLOP/s peak")));
    QVERIFY(text.contains(QStringLiteral("Tokens per second")));

    // Assumptions in force.
    for (const char* item : { "Gradient accumulation. Each optimizer step runs 8 micro-batches of 2 samples",
             "Several GPUs. ZeRO stage 3: each GPU keeps 1/N of the weights, the gradients and the optimizer "
             "state, "
             "and gathers each layer's full weights into communication buffers when it runs.",
             "Here N is 4 data-parallel GPUs.", "Checkpointing. Each checkpointed block keeps only its input",
             "LoRA. Targeted Linear layers get trainable rank-16 adapters",
             "Throughput. A roofline estimate" })
        QVERIFY2(flat.contains(QLatin1String(item)), item);
}

void TestReportWriter::defaultPlanListsNoStrategies()
{
    Gpu gpu = gtx1080();
    gpu.fp32Tflops = 8.873;
    gpu.fp16Tflops = 0.1386;
    gpu.bandwidthGBps = 320;
    const Plan plan = makePlan(smallCnn(), 32, Optimizer::Adam, Precision::Fp32, gpu);
    const PlanResult result = evaluate(plan);
    QString pdf;
    write(plan, result, QStringLiteral("default-strategies"), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    verifyNumbers(plan, result, pdf);
    const QString text = pdfText(pdf);
    for (const char* absent : { "Sequence length", "Accumulation", "GPUs", "Checkpointing", "Attention",
             "LoRA", "Utilisation", "effective batch", "Several GPUs", "Communication buffers", "Offload" })
        QVERIFY2(!text.contains(QLatin1String(absent)), absent);
    QVERIFY(text.contains(QStringLiteral("Throughput (estimated)")));
    QVERIFY(hasLineWith(
        text, QStringLiteral("Assumed utilisation"), QStringLiteral("40 % of 8.87 TFLOP/s peak")));
}

void TestReportWriter::warningsAreListedUnderAssumptions()
{
    // A GenericOp (an operator Headroom does not model) and an importer's warning: both are assumptions the
    // reader must see, first under "Assumptions and method", naming the layer.
    Network n = smallCnn();
    n.layers.insert(n.layers.begin() + 2,
        layer("GenericOp", { { "op", "com.example::Fancy" }, { "output_shape", { 32, 64, 64 } } }, "fancy"));
    n.warnings.push_back("the ONNX file was exported in inference (eval) mode");
    const Plan plan = makePlan(n, 32);
    const PlanResult result = evaluate(plan);
    QCOMPARE(result.analysis.warnings.size(), std::size_t { 2 });
    QString pdf;
    write(plan, result, QStringLiteral("warnings"), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    const QString text = simplified(pdfText(pdf));
    const qsizetype assumptions = text.indexOf(QStringLiteral("Assumptions and method"));
    QVERIFY(assumptions >= 0);
    const qsizetype exported
        = text.indexOf(QStringLiteral("Warning. The ONNX file was exported in inference (eval) mode."));
    const qsizetype fancy = text.indexOf(QStringLiteral(
        "Warning (fancy). Operator 'com.example::Fancy' has no Headroom layer; it is modelled as a generic"));
    QVERIFY2(exported > assumptions, qPrintable(text.mid(assumptions, 600)));
    QVERIFY2(fancy > exported, qPrintable(text.mid(assumptions, 600)));
    QVERIFY(fancy < text.indexOf(QStringLiteral("Activations."), assumptions));
}

void TestReportWriter::missingFolderFails()
{
    const Plan plan = makePlan(smallCnn());
    const QString folder = m_dir.filePath(QStringLiteral("missing-folder"));
    const QString path = folder + QStringLiteral("/report.pdf");
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY(!written.ok());
    QVERIFY2(qs(written.error().message).contains(QStringLiteral("does not exist")),
        written.error().message.c_str());
    QVERIFY2(qs(written.error().message).contains(QDir::toNativeSeparators(path)),
        written.error().message.c_str());
    QVERIFY(!QFileInfo::exists(folder));
}

void TestReportWriter::parentIsAFileFails()
{
    QTemporaryDir dir;
    const QString parent = dir.filePath(QStringLiteral("plain-file"));
    QFile f { parent };
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a folder");
    f.close();
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), parent + QStringLiteral("/report.pdf"));
    QVERIFY(!written.ok());
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("plain-file") });
}

void TestReportWriter::targetIsAFolderFails()
{
    QTemporaryDir dir;
    QVERIFY(QDir { dir.path() }.mkdir(QStringLiteral("report.pdf")));
    const Plan plan = makePlan(smallCnn());
    const auto written
        = report::writePdfReport(plan, evaluate(plan), dir.filePath(QStringLiteral("report.pdf")));
    QVERIFY(!written.ok());
    QVERIFY2(qs(written.error().message).contains(QStringLiteral("folder")), written.error().message.c_str());
    QVERIFY(QFileInfo { dir.filePath(QStringLiteral("report.pdf")) }.isDir());
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("report.pdf") });
}

void TestReportWriter::emptyPathFails()
{
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), QString());
    QVERIFY(!written.ok());
    QVERIFY(!written.error().message.empty());
}

void TestReportWriter::readOnlyFolderFails()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("read-only"));
    QVERIFY(QDir { dir.path() }.mkdir(QStringLiteral("read-only")));
    const QString existing = folder + QStringLiteral("/report.pdf");
    {
        QFile old { existing };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
    }
    QVERIFY(QFile::setPermissions(
        folder, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup));
    const auto restore = qScopeGuard(
        [&] { QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner); });
    {
        // Root (or CAP_DAC_OVERRIDE) writes into read-only folders anyway; existingFileSurvivesFailedWrite()
        // covers a failed write without relying on permissions.
        QFile probe { folder + QStringLiteral("/probe") };
        if (probe.open(QIODevice::WriteOnly)) {
            probe.close();
            probe.remove();
            QSKIP("this process may write into read-only folders (running as root?): permissions cannot make "
                  "the write fail");
        }
    }
    const Plan plan = makePlan(smallCnn());
    for (const QString& name : { QStringLiteral("new.pdf"), QStringLiteral("report.pdf") }) {
        const auto written = report::writePdfReport(plan, evaluate(plan), folder + QLatin1Char('/') + name);
        QVERIFY(!written.ok());
        QVERIFY2(qs(written.error().message).contains(QStringLiteral("cannot write the report")),
            written.error().message.c_str());
    }
    QCOMPARE(QDir { folder }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("report.pdf") });
    QFile old { existing };
    QVERIFY(old.open(QIODevice::ReadOnly));
    QCOMPARE(old.readAll(), QByteArray("the previous report"));
}

void TestReportWriter::existingFileSurvivesFailedWrite()
{
    // A file name of NAME_MAX (255) bytes is valid, but to replace an existing file QSaveFile first
    // names its temporary file after the target plus a random suffix, which is too long: the write
    // fails at the very end, after the whole PDF was written, whoever runs the test.
    QTemporaryDir dir;
    const QString name = QString(251, QLatin1Char('r')) + QStringLiteral(".pdf");
    const QString path = dir.filePath(name);
    {
        QFile old { path };
        if (!old.open(QIODevice::WriteOnly))
            QSKIP("this file system does not take 255-byte file names");
        old.write("the previous report");
    }
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY2(!written.ok(), "the write was expected to fail");
    QVERIFY2(qs(written.error().message).startsWith(QStringLiteral("cannot write the report to ")),
        written.error().message.c_str());
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList { name });
    QFile old { path };
    QVERIFY(old.open(QIODevice::ReadOnly));
    QCOMPARE(old.readAll(), QByteArray("the previous report"));
}

void TestReportWriter::existingFileIsReplacedOnSuccess()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.pdf"));
    {
        QFile old { path };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
    }
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QFile pdf { path };
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("report.pdf") });
}

void TestReportWriter::replacedFileKeepsItsLinkAndMode_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("mode 600") << QStringLiteral("mode600");
    QTest::newRow("symbolic link to a 600 file") << QStringLiteral("symlink");
    QTest::newRow("dangling link") << QStringLiteral("dangling");
}

void TestReportWriter::replacedFileKeepsItsLinkAndMode()
{
    QFETCH(QString, kind);
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("report.pdf"));
    QString given = dir.filePath(QStringLiteral("latest.pdf"));
    if (kind != QLatin1String("dangling")) {
        QFile old { target };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
        old.close();
        QVERIFY(old.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    }
    if (kind == QLatin1String("mode600"))
        given = target;
    else
        QVERIFY(QFile::link(QStringLiteral("report.pdf"), given));
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), given);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QFile pdf { target };
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    if (kind != QLatin1String("mode600"))
        QVERIFY2(QFileInfo { given }.isSymLink(), "the link became a regular file");
    if (kind != QLatin1String("dangling"))
        QCOMPARE(QFile::permissions(target) & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
            QFileDevice::ReadOwner | QFileDevice::WriteOwner); // still 600, not 644
}

void TestReportWriter::specialTargetsAreRefused_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("FIFO") << QStringLiteral("fifo")
                          << QStringLiteral(": is a FIFO (named pipe), not a regular file");
    QTest::newRow("character device") << QStringLiteral(
        "/dev/null") << QStringLiteral("cannot write the report to /dev/null: is a character device");
    QTest::newRow("read-only file") << QStringLiteral(
        "readonly") << QStringLiteral(": the file is read-only; make it writable or choose another name");
    QTest::newRow("link to a read-only file")
        << QStringLiteral("readonly-link") << QStringLiteral("(a link to ");
}

void TestReportWriter::specialTargetsAreRefused()
{
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("report.pdf"));
    if (kind == QLatin1String("fifo")) {
        QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0644) == 0);
    } else if (kind.startsWith(QLatin1String("readonly"))) {
        const QString file = dir.filePath(QStringLiteral("kept.pdf"));
        QFile old { file };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
        old.close();
        QVERIFY(old.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
        if (kind == QLatin1String("readonly"))
            path = file;
        else
            QVERIFY(QFile::link(file, path));
    } else {
        path = kind;
    }
    struct stat before
    {
    };
    QVERIFY(::stat(QFile::encodeName(path).constData(), &before) == 0);
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY(!written.ok());
    QVERIFY2(qs(written.error().message).startsWith(QStringLiteral("cannot write the report to ") + path),
        written.error().message.c_str());
    QVERIFY2(qs(written.error().message).contains(message), written.error().message.c_str());
    struct stat after
    {
    };
    QVERIFY(::stat(QFile::encodeName(path).constData(), &after) == 0);
    QCOMPARE(after.st_ino, before.st_ino); // the same file, untouched
    QCOMPARE(after.st_mode, before.st_mode);
    QCOMPARE(after.st_size, before.st_size);
    if (kind != QLatin1String("/dev/null"))
        QCOMPARE(QDir { dir.path() }
                     .entryList(QDir::Hidden | QDir::System | QDir::Files)
                     .filter(QStringLiteral(".pdf.")),
            QStringList {}); // no temporary file left behind
}

QTEST_MAIN(TestReportWriter)
#include "tst_reportwriter.moc"
