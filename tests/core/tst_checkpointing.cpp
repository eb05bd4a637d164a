// Activation checkpointing in the analysis. Per block (torch.utils.checkpoint, use_reentrant=True):
// what stays kept (everything outside the checkpointed iterations plus each iteration's input) plus
// the largest single iteration's recomputed activations; selective: the attention scores dropped.
// Figures worked out by hand (docs/finetuning.md); tests/reference checks the same rule against
// measured PyTorch runs.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/model/ModelFile.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

namespace {

LayerSpec linear(std::int64_t out, std::string name = {})
{
    return layer("Linear", { { "out_features", out } }, std::move(name));
}

/// [256] -> stem Linear(256, 256), ReLU -> blocks: n x [Linear(256, 1024), ReLU, Linear(1024, 256), ReLU]
/// -> head Linear(256, 10), cross-entropy.
Network mlpStack(std::int64_t n)
{
    return network({ 256 },
        { linear(256, "stem"), layer("ReLU", {}, "stem_relu"),
            repeat("blocks", n,
                { linear(1024, "0"), layer("ReLU", {}, "1"), linear(256, "2"), layer("ReLU", {}, "3") }),
            linear(10, "head") });
}

AnalysisOptions options(Checkpointing c, Precision p = Precision::Fp32)
{
    AnalysisOptions o;
    o.precision = p;
    o.checkpointing = c;
    return o;
}

} // namespace

class TestCheckpointing : public QObject
{
    Q_OBJECT
private slots:
    void offEqualsUncheckpointed();
    void perBlockKeepsInputsPlusOneBlock_data();
    void perBlockKeepsInputsPlusOneBlock();
    void perBlockMarksRowsAndRecompute();
    void onlyMarkedBlocksAreCheckpointed();
    void selectiveDropsAttentionScores();
    void selectiveWithoutAttentionChangesNothing();
    void modelFileKeysRoundTrip();
    void modelFileKeyErrors_data();
    void modelFileKeyErrors();
};

void TestCheckpointing::offEqualsUncheckpointed()
{
    // stem_relu keeps its output 256 x 4 = 1,024; each block keeps ReLU 1's output 1,024 x 4 = 4,096 and
    // ReLU 3's 1,024 (the Linears keep the same storages); log_softmax 40. 4 blocks: 21,544.
    const Analysis a = analyze(mlpStack(4), options(Checkpointing::None));
    QVERIFY(a.valid());
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 21544 });
    QCOMPARE(a.uncheckpointedActivationBytesPerSample, std::uint64_t { 21544 });
    QCOMPARE(a.uncheckpointedActivationBytesFixed, a.activationBytesFixed);
    QCOMPARE(a.recomputeFlopsPerSample, std::uint64_t { 0 });
}

void TestCheckpointing::perBlockKeepsInputsPlusOneBlock_data()
{
    QTest::addColumn<qint64>("blocks");
    QTest::addColumn<quint64>("expected");
    QTest::addColumn<quint64>("uncheckpointed");
    // Kept after forward: the n iteration inputs (the first is stem_relu's output) 1,024 each, the last
    // block's output (kept by the head) 1,024, the loss 40. Recomputed in backward, one block at a time:
    // ReLU 1's output 4,096 + ReLU 3's output 1,024 (a fresh storage, even though the original is kept
    // as the next input) = 5,120. Total 1,024 n + 1,064 + 5,120; without checkpointing 1,064 + 5,120 n.
    QTest::newRow("1 block") << qint64 { 1 } << quint64 { 1024 + 1064 + 5120 } << quint64 { 1064 + 5120 };
    QTest::newRow("4 blocks") << qint64 { 4 } << quint64 { 4096 + 1064 + 5120 } << quint64 { 1064 + 20480 };
    QTest::newRow("24 blocks") << qint64 { 24 } << quint64 { 24576 + 1064 + 5120 }
                               << quint64 { 1064 + 122880 };
}

void TestCheckpointing::perBlockKeepsInputsPlusOneBlock()
{
    QFETCH(qint64, blocks);
    QFETCH(quint64, expected);
    QFETCH(quint64, uncheckpointed);
    const Analysis a = analyze(mlpStack(blocks), options(Checkpointing::PerBlock));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, expected);
    QCOMPARE(a.uncheckpointedActivationBytesPerSample, uncheckpointed);
}

void TestCheckpointing::perBlockMarksRowsAndRecompute()
{
    const Analysis a = analyze(mlpStack(4), options(Checkpointing::PerBlock));
    // rows: stem, stem_relu, blocks, blocks.0.0 ... blocks.3.3, head, loss.
    QVERIFY(!a.rows[0].checkpointed);
    QVERIFY(a.rows[2].checkpointed); // the block header
    QCOMPARE(a.rows[3].name, std::string("blocks.0.0"));
    QVERIFY(a.rows[3].checkpointed);
    QVERIFY(a.rows[18].checkpointed);
    QCOMPARE(a.rows[19].name, std::string("head"));
    QVERIFY(!a.rows[19].checkpointed);
    // Recompute: each block's forward again, 2 x 256 x 1,024 x 2 (the Linears) + 1,024 + 256 (the ReLUs)
    // = 1,049,856; 4 blocks: 4,199,424.
    QCOMPARE(a.recomputeFlopsPerSample, std::uint64_t { 4199424 });
    // Backward FLOPs do not change with checkpointing.
    QCOMPARE(
        a.backwardFlopsPerSample, analyze(mlpStack(4), options(Checkpointing::None)).backwardFlopsPerSample);
}

void TestCheckpointing::onlyMarkedBlocksAreCheckpointed()
{
    // Two Repeats of 2 blocks [Linear(256, 1024), ReLU, Linear(1024, 256), ReLU]; only the second
    // is marked. First: kept normally, 2 x 5,120 = 10,240 (its blocks' outputs are the next inputs).
    // Second: iteration inputs 2 x 1,024 (the first is the first Repeat's output, already kept) plus
    // its last output kept by the head 1,024, plus one recomputed block 5,120. Loss 40.
    // Total 10,240 + 1,024 (the second's 2nd input) + 1,024 (its output) + 5,120 + 40 = 17,448.
    const auto blocks = [](std::string name, bool mark) {
        LayerSpec r = repeat(std::move(name), 2,
            { linear(1024, "0"), layer("ReLU", {}, "1"), linear(256, "2"), layer("ReLU", {}, "3") });
        r.checkpoint = mark;
        return r;
    };
    const Network n = network({ 256 }, { blocks("a", false), blocks("b", true), linear(10, "head") });
    const Analysis a = analyze(n, options(Checkpointing::PerBlock));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 17448 });
    // Without checkpointing: 4 blocks x 5,120 + 40 = 20,520.
    QCOMPARE(a.uncheckpointedActivationBytesPerSample, std::uint64_t { 20520 });
    QVERIFY(!a.rows[1].checkpointed); // a.0.0
    QVERIFY(a.rows[10].checkpointed); // b.0.0
}

void TestCheckpointing::selectiveDropsAttentionScores()
{
    // MultiheadAttention(E = 32, 4 heads, need_weights=true: the explicit softmax path) on [16, 32]:
    // the softmax probabilities 4 x 16 x 16 = 1,024 float32 = 4,096 bytes are attention scores.
    const Network n
        = network({ 16, 32 }, { layer("MultiheadAttention", { { "num_heads", 4 } }) }, Loss::None);
    const Analysis full = analyze(n, options(Checkpointing::None));
    const Analysis a = analyze(n, options(Checkpointing::Selective));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(full.activationBytesPerSample - a.activationBytesPerSample, std::uint64_t { 4096 });
    QCOMPARE(a.uncheckpointedActivationBytesPerSample, full.activationBytesPerSample);
    // Recompute: the attention core again (Korthikanti et al. 2022, §5), Q K^T 2 x T x S x E = 2 x 16 x 16
    // x 32 = 16,384, P V the same 16,384, softmax and dropout 5 per score 5,120: 37,888.
    QCOMPARE(a.recomputeFlopsPerSample, std::uint64_t { 37888 });
}

void TestCheckpointing::selectiveWithoutAttentionChangesNothing()
{
    const Analysis a = analyze(mlpStack(2), options(Checkpointing::Selective));
    QCOMPARE(a.activationBytesPerSample, a.uncheckpointedActivationBytesPerSample);
    QCOMPARE(a.recomputeFlopsPerSample, std::uint64_t { 0 });
}

void TestCheckpointing::modelFileKeysRoundTrip()
{
    const char* text = R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [
        {"type": "Linear", "name": "embed", "out_features": 8, "frozen": true},
        {"type": "Repeat", "name": "blocks", "times": 2, "checkpoint": true, "frozen": true,
         "layers": [{"type": "Linear", "out_features": 8}, {"type": "ReLU", "frozen": false}]},
        {"type": "Repeat", "name": "more", "times": 1, "checkpoint": false, "layers": [{"type": "ReLU"}]},
        {"type": "Linear", "out_features": 2}
      ]})";
    auto parsed = parseModel(text);
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
    const Network& n = parsed.value();
    QVERIFY(n.layers[0].frozen);
    QVERIFY(!n.layers[0].attributes.contains("frozen")); // structural, not an attribute
    QVERIFY(n.layers[1].checkpoint && n.layers[1].frozen);
    QVERIFY(!n.layers[1].children[1].frozen);
    QVERIFY(!n.layers[2].checkpoint);
    QVERIFY(!n.layers[3].frozen);
    const std::string saved = serializeModel(n);
    QVERIFY(saved.find("\"checkpoint\": true") != std::string::npos);
    QVERIFY(saved.find("\"frozen\": false") == std::string::npos); // defaults are not written
    auto again = parseModel(saved);
    QVERIFY(again.ok());
    QVERIFY(again.value() == n);
    QCOMPARE(serializeModel(again.value()), saved);
}

void TestCheckpointing::modelFileKeyErrors_data()
{
    QTest::addColumn<QString>("layers");
    QTest::addColumn<QString>("location");
    QTest::newRow("checkpoint on a layer") << R"([{"type": "Linear", "out_features": 2, "checkpoint": true}])"
                                           << "layers[0].checkpoint";
    QTest::newRow("frozen not a boolean") << R"([{"type": "Linear", "out_features": 2, "frozen": "yes"}])"
                                          << "layers[0].frozen";
    QTest::newRow("checkpoint not a boolean")
        << R"([{"type": "Repeat", "times": 2, "checkpoint": 1, "layers": [{"type": "ReLU"}]}])"
        << "layers[0].checkpoint";
    QTest::newRow("nested checkpoint on a layer")
        << R"([{"type": "Repeat", "times": 2, "layers": [{"type": "ReLU", "checkpoint": false}]}])"
        << "layers[0].layers[0].checkpoint";
    QTest::newRow("frozen on a Repeat not a boolean")
        << R"([{"type": "Repeat", "times": 2, "frozen": null, "layers": [{"type": "ReLU"}]}])"
        << "layers[0].frozen";
}

void TestCheckpointing::modelFileKeyErrors()
{
    QFETCH(QString, layers);
    QFETCH(QString, location);
    const std::string text
        = R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]}, "layers": )"
        + layers.toStdString() + "}";
    const auto parsed = parseModel(text);
    QVERIFY(!parsed.ok());
    QCOMPARE(QString::fromStdString(parsed.error().location), location);
    QVERIFY2(parsed.error().message.rfind(location.toStdString(), 0) == 0, parsed.error().message.c_str());
}

QTEST_APPLESS_MAIN(TestCheckpointing)
#include "tst_checkpointing.moc"
