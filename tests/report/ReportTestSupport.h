#pragma once

// What the tests of the PDF report share (tests/report/tst_report*.cpp): networks and plans built in code,
// poppler's pdftotext and pdfinfo to read a report back, and the checks every report with an estimate
// passes.
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
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <string>
#include <string_view>

Q_DECLARE_METATYPE(headroom::Plan)

namespace headroom::test {

inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

inline Gpu gtx1080()
{
    Gpu g;
    g.name = "GeForce GTX 1080";
    g.vendor = "NVIDIA";
    g.memoryBytes = 8 * kGiB;
    return g;
}

inline LayerSpec layer(
    std::string type, nlohmann::json attributes = nlohmann::json::object(), std::string name = {})
{
    LayerSpec spec;
    spec.type = std::move(type);
    spec.attributes = std::move(attributes);
    spec.name = std::move(name);
    return spec;
}

inline Network smallCnn()
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
inline Network tinyResNet()
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
inline Network tinyDecoder()
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
inline Network tooLargeToReplay()
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
inline Network deepMlp(int count)
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

inline Plan makePlan(Network network, std::int64_t batch = 32, Optimizer optimizer = Optimizer::Adam,
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
inline QString squeezed(QString s)
{
    return s.remove(QRegularExpression(QStringLiteral("\\s+")));
}

/// Whitespace runs made single spaces: wrapped paragraphs compare with their one-line source.
inline QString simplified(const QString& s)
{
    return s.simplified();
}

inline bool hasLineWith(const QString& text, const QString& label, const QString& value)
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

inline Tool run(const QString& program, const QStringList& arguments)
{
    QProcess p;
    p.start(program, arguments);
    if (!p.waitForFinished(60000))
        return {};
    return { QString::fromUtf8(p.readAllStandardOutput()),
        p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0 };
}

inline bool havePoppler()
{
    return !QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty();
}

#define REQUIRE_POPPLER()                                                                                    \
    do {                                                                                                     \
        if (!havePoppler())                                                                                  \
            QSKIP("pdftotext (poppler-utils) is not installed: the report's text cannot be checked");        \
    } while (false)

inline int pageCount(const QString& pdf)
{
    const Tool info = run(QStringLiteral("pdfinfo"), { pdf });
    const auto m
        = QRegularExpression(QStringLiteral("^Pages:\\s+(\\d+)"), QRegularExpression::MultilineOption)
              .match(info.output);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

inline QString pdfText(const QString& pdf)
{
    const Tool t = run(QStringLiteral("pdftotext"),
        { QStringLiteral("-layout"), QStringLiteral("-enc"), QStringLiteral("UTF-8"), pdf,
            QStringLiteral("-") });
    return t.ok ? t.output : QString();
}

inline void keep(const QString& pdf, const QString& name)
{
    const QString folder = qEnvironmentVariable("HEADROOM_REPORT_KEEP");
    if (folder.isEmpty())
        return;
    QDir {}.mkpath(folder);
    const QString target = QDir { folder }.filePath(name + QStringLiteral(".pdf"));
    QFile::remove(target);
    QFile::copy(pdf, target);
}

/// A temporary folder for the reports, and what is checked in each.
class ReportFixture
{
protected:
    /// initTestCase(): the folder is there; says when poppler is missing (the tests reading a report skip).
    void checkTools();
    /// Writes `plan` to a fresh file named after `name`; `path` is set on success.
    void write(const Plan& plan, const PlanResult& result, const QString& name, QString& path);
    /// The checks every report with an estimate passes: all numbers as evaluate() gives them.
    void verifyNumbers(const Plan& plan, const PlanResult& result, const QString& pdf);

    QTemporaryDir m_dir;
};

inline void ReportFixture::checkTools()
{
    QVERIFY2(m_dir.isValid(), qPrintable(m_dir.errorString()));
    if (!havePoppler())
        qWarning(
            "pdftotext (poppler-utils) is not installed: the tests that read the report back are skipped");
}

inline void ReportFixture::write(
    const Plan& plan, const PlanResult& result, const QString& name, QString& path)
{
    const QString target = m_dir.filePath(name + QStringLiteral(".pdf"));
    const auto written = report::writePdfReport(plan, result, target);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QVERIFY2(QFileInfo { target }.size() > 1000, qPrintable(target));
    keep(target, name);
    path = target;
}

inline void ReportFixture::verifyNumbers(const Plan& plan, const PlanResult& result, const QString& pdf)
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
    // layer's name and the number the GUI's tree gives it: its position in the file counted from 1,
    // a Repeat block's layers after a dot (the last layer of a last block of 3 layers in a file of 20
    // entries is "20.3"), worked out here from the network itself.
    std::string lastName;
    for (const auto& group : groupRows(result.analysis)) {
        const LayerRow& row = result.analysis.rows[group.row];
        if (row.type != "Repeat" && row.specPath != "loss")
            lastName = group.name;
    }
    QStringList number;
    for (const auto* list = &plan.network.layers; !list->empty(); list = &list->back().children)
        number << QString::number(list->size());
    const QString lastNumber = number.join(QLatin1Char('.'));
    QVERIFY2(QRegularExpression(
                 QStringLiteral("^\\s*%1\\s+%2\\s")
                     .arg(QRegularExpression::escape(lastNumber), QRegularExpression::escape(qs(lastName))),
                 QRegularExpression::MultilineOption)
                 .match(text)
                 .hasMatch(),
        qPrintable(QStringLiteral("no row %1 for %2").arg(lastNumber, qs(lastName))));

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
        if (c == Component::Calibration && n == 0) {
            // An uncalibrated plan has no measured excess: no row for it.
            QVERIFY2(!text.contains(label), "a calibration row in a plan without a calibration");
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
    // Issue 34: the verdict's headroom is what the GPU holds at the peak (the reserved peak plus the
    // overhead) where the allocator is replayed; the tensors' figure only labelled as theirs.
    const QString detail = e.fitBasis == FitBasis::Reserved && !e.withinMargin()
        ? QStringLiteral("Batch %1: the GPU holds %2 of %3 at the peak (PyTorch's reserved memory and the "
                         "overhead): %4 %5. The tensors alone peak at %6.")
              .arg(qs(formatCount(static_cast<std::uint64_t>(e.batch))), qs(formatBytes(e.heldBytes)),
                  qs(formatBytes(e.gpuMemoryBytes)),
                  e.headroomBytes() >= 0 ? QStringLiteral("headroom") : QStringLiteral("shortfall"),
                  qs(formatBytes(static_cast<std::uint64_t>(std::abs(e.headroomBytes())))),
                  qs(formatBytes(e.total())))
        : QStringLiteral("Batch %1's tensors need %2 of %3: %4 %5.")
              .arg(qs(formatCount(static_cast<std::uint64_t>(e.batch))), qs(formatBytes(e.total())),
                  qs(formatBytes(e.gpuMemoryBytes)),
                  e.headroomBytes() >= 0 ? QStringLiteral("headroom") : QStringLiteral("shortfall"),
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
            = QStringLiteral(
                "PyTorch's caching allocator reserves %1 at its peak for %2 allocated (tensors %3, "
                "cuBLAS and cuDNN workspaces %4)") // issue 34: allocated in two parts
                  .arg(qs(formatBytes(r.peakReservedBytes)), qs(formatBytes(r.peakAllocatedBytes)),
                      qs(formatBytes(r.peakAllocatedTensorBytes())),
                      qs(formatBytes(r.peakAllocatedWorkspaceBytes)));
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
    // The batch's mark (issue 34): what the GPU holds at the peak where the allocator is replayed, the
    // reserved peak of the replay at the batch (under the capacity, or with memory to spare where that
    // runs out, as reservedFiguresOf() replays) plus the overhead, worked out here from the replay
    // itself; the tensors' peak, labelled as theirs, where it is not.
    QString batchMark;
    const QString batchCount = qs(formatCount(static_cast<std::uint64_t>(e.batch)));
    if (result.reservedFigures && result.reserved) {
        ReservedRun run = result.reserved->run(e.batch, result.reservedFigures->capacityBytes);
        if (!run.fits)
            run = result.reserved->run(e.batch);
        batchMark
            = QStringLiteral("Batch %1: %2")
                  .arg(batchCount, qs(formatBytes(run.peakReserved + result.reservedFigures->overheadBytes)));
    } else {
        batchMark = QStringLiteral("Batch %1: tensors %2").arg(batchCount, qs(formatBytes(e.total())));
    }
    if (e.batch <= 4 * std::max<std::int64_t>(e.maxBatch, 8)) // the chart spans at least 2 x batch
        QVERIFY2(squeezed(text).contains(squeezed(batchMark)), qPrintable(batchMark));

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

} // namespace headroom::test
