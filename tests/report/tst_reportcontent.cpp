// The PDF report, generated headlessly and read back with poppler's pdftotext (ReportTestSupport.h): every
// number it shows is the one headroom::evaluate() computes, formatted through headroom/Format.h; big tables
// paginate with their header repeated; an invalid network says why there is no estimate.
#include "../core/NumberedLayersFile.h"
#include "ReportTestSupport.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/support/Format.h"

#include <QHash>
#include <QRegularExpression>
#include <QTranslator>
#include <QtTest>

using namespace headroom;
using namespace headroom::test;

class TestReportContent : public QObject, private ReportFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { checkTools(); }

    void presetReport_data();
    void presetReport();
    void longLayerNamesStayApart();
    void codeBuiltPlans_data();
    void codeBuiltPlans();
    void fontsAreEmbeddedAndChartIsVector();
    void bigModelTablePaginatesWithHeaders();
    void totalsNeverStandAloneOnAPage();
    void layerTypesKeepTheirSize();
    void koreanUiMakesAKoreanReport();
    void pipelineStagesSection();
    void invalidLayerExplainsMissingEstimate();
    void layersAreNumberedAsTheGuiTreeNumbersThem();
    void strategiesAndThroughput();
    void stepChartNamesThePeak_data();
    void stepChartNamesThePeak();
    void defaultPlanListsNoStrategies();
    void warningsAreListedUnderAssumptions();
};

void TestReportContent::presetReport_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("batch");
    QTest::newRow("vgg16") << QStringLiteral("vgg16") << qint64 { 64 };
    QTest::newRow("resnet50") << QStringLiteral("resnet50") << qint64 { 32 };
}

void TestReportContent::presetReport()
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

void TestReportContent::stepChartNamesThePeak_data()
{
    // tinyMlp() of tests/core/tst_steptimeline.cpp, no overhead: weights 232 B, Adam's state 464 B,
    // 24 B of batch per sample. Batch 32: relu's backward holds 696 + 768 + 1,024 of activations +
    // 2,048 of activation gradients + 72 of parameter gradients + the 4-byte loss the training loop holds
    // through backward = 4,612 B, the first step 464 B less. Batch 1 with the fused step (no
    // parameter-sized temporaries): fc1's backward holds 696 + 24 + 32 of activation gradient + 232 of
    // parameter gradients + the loss 4 = 988 B, above the optimizer step's
    // 696 + 24 + 232 = 952 B. The first step lacks the 464 B of state until its step: 952 B. A layer is
    // named by its number and name: fc1 is the first layer of the file, relu the second.
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<int>("implementation");
    QTest::addColumn<QString>("caption");
    QTest::addColumn<qint64>("firstStep");
    QTest::newRow("batch 32, foreach")
        << qint64 { 32 } << int(OptimizerImplementation::Foreach)
        << QStringLiteral(
               "One training step at batch 32: %1 at its peak, in the backward pass, at layer 2 (relu).")
               .arg(qs(formatBytes(4612)))
        << qint64 { 4148 };
    QTest::newRow("batch 1, fused")
        << qint64 { 1 } << int(OptimizerImplementation::Fused)
        << QStringLiteral(
               "One training step at batch 1: 988 B at its peak, in the backward pass, at layer 1 (fc1).")
        << qint64 { 952 };
}

void TestReportContent::stepChartNamesThePeak()
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
    // The peak note names the tensors' figures as theirs (issue 34): "the step's tensors peak at ...,
    // the first step's at ..."; the figures are the tensors' first-step peaks worked out above.
    QVERIFY2(text.contains(QStringLiteral("the first step's at %1.")
                               .arg(qs(formatBytes(static_cast<std::uint64_t>(firstStep))))),
        qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("temporaries inside the optimizer step")));
}

void TestReportContent::codeBuiltPlans_data()
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
    // A measured run's excess (issue 36): its own row in the breakdown (verifyNumbers) and the set-up's
    // line saying where it came from.
    Plan calibrated = makePlan(smallCnn(), 32);
    calibrated.setup.calibration = RunCalibration { 100 * kMiB, 3 * kMiB, 8, "run.pickle" };
    QTest::newRow("calibrated") << calibrated;
}

void TestReportContent::codeBuiltPlans()
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
    if (plan.setup.calibration.active()) {
        // 100 MiB + 32 x 3 MiB = 196 MiB at the batch; the set-up names the terms and the run.
        QCOMPARE(result.estimate->bytes.calibration, 196 * kMiB);
        const QString text = pdfText(pdf);
        QVERIFY2(
            hasLineWith(text, QStringLiteral("Calibration (measured excess)"), QStringLiteral("196 MiB")),
            qPrintable(text));
        QVERIFY2(hasLineWith(text, QStringLiteral("Calibration"),
                     QStringLiteral("100 MiB fixed + 3.00 MiB per sample")),
            qPrintable(text));
        QVERIFY2(simplified(text).contains(QStringLiteral("(measured at batch 8 in run.pickle)")),
            qPrintable(text));
    }
}

void TestReportContent::fontsAreEmbeddedAndChartIsVector()
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

void TestReportContent::bigModelTablePaginatesWithHeaders()
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

void TestReportContent::totalsNeverStandAloneOnAPage()
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

void TestReportContent::layerTypesKeepTheirSize()
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

void TestReportContent::koreanUiMakesAKoreanReport()
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

void TestReportContent::invalidLayerExplainsMissingEstimate()
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
    // The reason, in full: the analysis's error names the layer (estimate() only prefixes it) by its
    // JSON path; the report names it as every view does, by number (too_big is the fourth entry of the
    // file), name and path.
    QVERIFY(result.analysis.error);
    QVERIFY(qs(result.error->message).endsWith(qs(result.analysis.error->message)));
    const QString core = qs(result.analysis.error->message);
    const QString path = QStringLiteral("layers[3] (Conv2d \"too_big\"): ");
    QVERIFY2(core.startsWith(path), qPrintable(core));
    const QString reason
        = QStringLiteral("Headroom cannot estimate this plan: layer 4 (too_big, layers[3]): ")
        + core.mid(path.size());
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

void TestReportContent::layersAreNumberedAsTheGuiTreeNumbersThem()
{
    // Issue 35, item 4: the PDF's # column is the GUI tree's number (tests/core/NumberedLayersFile.h works
    // each out), and the invalid "fc" is layer 4 in its row and in its error alike.
    auto network = parseModel(test::numberedLayersFile(true));
    QVERIFY(network);
    const Plan plan = makePlan(network.value(), 8);
    const PlanResult result = evaluate(plan);
    QVERIFY(!result.estimate);
    QString pdf;
    write(plan, result, QStringLiteral("numbered"), pdf);
    if (QTest::currentTestFailed())
        return;
    REQUIRE_POPPLER();
    const QString text = pdfText(pdf);
    // One line per row with -layout: the number, then the name and the type.
    const auto row = [&](const QString& pattern) {
        return QRegularExpression(QStringLiteral("^\\s*") + pattern, QRegularExpression::MultilineOption)
            .match(text)
            .hasMatch();
    };
    QVERIFY2(row(QStringLiteral(R"(1\s+stem\s+Linear\s)")), qPrintable(text));
    QVERIFY2(row(QStringLiteral(R"(2\s+1\s+ReLU\s)")), qPrintable(text)); // its automatic name "1"
    QVERIFY2(row(QStringLiteral(R"(3\.1\s+blk\.0–1\.inner × 2\s+Linear\s)")), qPrintable(text));
    QVERIFY2(row(QStringLiteral(R"(3\.2\s+blk\.0–1\.1 × 2\s+ReLU\s)")), qPrintable(text));
    QVERIFY2(row(QStringLiteral(R"(4\s+fc\s+Linear\s)")), qPrintable(text));
    QVERIFY2(row(QStringLiteral(R"(5\s+head\s+Linear\s)")), qPrintable(text));
    const QString error
        = QStringLiteral("Error: layer 4 (fc, layers[3]): ") + QLatin1String(test::kInvalidFcReason);
    QVERIFY2(simplified(text).contains(error), qPrintable(text));
    QVERIFY2(simplified(text).contains(
                 QStringLiteral("Headroom cannot estimate this plan: layer 4 (fc, layers[3]): ")
                 + QLatin1String(test::kInvalidFcReason)),
        qPrintable(text));
}

void TestReportContent::strategiesAndThroughput()
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

void TestReportContent::defaultPlanListsNoStrategies()
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

void TestReportContent::warningsAreListedUnderAssumptions()
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

void TestReportContent::longLayerNamesStayApart()
{
    // Issue 35: a Hugging Face model's layer names ("model.layers.0.self_attn.q_proj") were set smaller and
    // cut on the right to "model.layers.0.self..." on every q/k/v/o row. They are cut in the middle now, at
    // the table's size, so each row keeps the end that tells it apart.
    REQUIRE_POPPLER();
    auto network = loadNetworkFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Qwen3-0.6B.json");
    QVERIFY2(network.ok(), network.ok() ? "" : network.error().message.c_str());
    Plan plan = makePlan(std::move(network).value(), 1);
    plan.sequenceLength = 256;
    const PlanResult result = evaluate(plan);
    QString pdf;
    write(plan, result, QStringLiteral("qwen3-names"), pdf);
    if (QTest::currentTestFailed())
        return;
    const QString text = pdfText(pdf);
    for (const char* end : { "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj" })
        QVERIFY2(text.contains(QString::fromUtf8(end)), end);
    // Cut in the middle, not at the end.
    QVERIFY2(
        !text.contains(QStringLiteral("self_attn.q\u2026")) && !text.contains(QStringLiteral("self\u2026")),
        qPrintable(text.left(2000)));
}

void TestReportContent::pipelineStagesSection()
{
    // Issue 37: a pipeline's stages, the heaviest marked, and the layout among the set-up's rows.
    REQUIRE_POPPLER();
    auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    QVERIFY(network.ok());
    Plan plan = makePlan(std::move(network).value(), 1);
    plan.setup.accumulationSteps = 8;
    plan.setup.parallel.gpus = 4;
    plan.setup.parallel.pipelineParallel = 4;
    const PlanResult result = evaluate(plan);
    QCOMPARE(result.stages.size(), std::size_t { 4 });
    QString pdf;
    write(plan, result, QStringLiteral("gpt2-pipeline"), pdf);
    if (QTest::currentTestFailed())
        return;
    const QString text = simplified(pdfText(pdf));
    const QString flat = squeezed(text); // a wrapped line may break anywhere
    QVERIFY2(text.contains(QLatin1String("Pipeline stages")), qPrintable(text.left(3000)));
    QVERIFY2(flat.contains(squeezed(QStringLiteral(
                 "4 (1 data-parallel x 4 pipeline-parallel), DDP (no sharding), 1F1B, 8 micro-batches"))),
        qPrintable(text.left(3000)));
    QVERIFY2(flat.contains(QStringLiteral("wte,wpe,drop,h.0\u20132")), qPrintable(text));
    // A middle stage holds 3 GPT-2 blocks: 21,263,616 parameters (tst_cliestimate's pipelineStages).
    QVERIFY(text.contains(QLatin1String("21,263,616")));
    QVERIFY2(flat.contains(squeezed(QStringLiteral("%1 (heaviest)").arg(result.heaviestStage + 1))),
        qPrintable(text));
    // The stage's row, the verdict's "Stage k of 4" and the chart's caption.
    QCOMPARE(text.count(QLatin1String("(heaviest)")), 3);
    QVERIFY(
        flat.contains(squeezed(QStringLiteral("Stage %1 of 4 (heaviest)").arg(result.heaviestStage + 1))));
}

QTEST_MAIN(TestReportContent)
#include "tst_reportcontent.moc"
