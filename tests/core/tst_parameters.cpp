// Parameter and buffer counts as PyTorch's sum(p.numel() for p in model.parameters()) gives them,
// worked out by hand from the modules' weight shapes.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

class TestParameters : public QObject
{
    Q_OBJECT
private slots:
    void singleLayer_data();
    void singleLayer();
    void lenet();
    void batchNormBuffers();
    void tiedWeightsCountOnce();
    void tiedWeightsMismatch();
    void parameterBytesFollowPrecision();
};

void TestParameters::singleLayer_data()
{
    QTest::addColumn<QList<qint64>>("input");
    QTest::addColumn<QString>("layerJson");
    QTest::addColumn<qint64>("params");
    QTest::newRow("conv 3->64 3x3") << QList<qint64> { 3, 32, 32 }
                                    << R"({"type":"Conv2d","out_channels":64,"kernel_size":3})"
                                    << qint64 { 64 * 3 * 9 + 64 };
    QTest::newRow("conv grouped no bias")
        << QList<qint64> { 32, 8, 8 }
        << R"({"type":"Conv2d","out_channels":64,"kernel_size":3,"groups":4,"bias":false})"
        << qint64 { 64 * 8 * 9 };
    QTest::newRow("depthwise conv") << QList<qint64> { 32, 8, 8 }
                                    << R"({"type":"Conv2d","out_channels":32,"kernel_size":3,"groups":32})"
                                    << qint64 { 32 * 9 + 32 };
    QTest::newRow("conv1d") << QList<qint64> { 16, 50 }
                            << R"({"type":"Conv1d","out_channels":8,"kernel_size":[5]})"
                            << qint64 { 8 * 16 * 5 + 8 };
    // ConvTranspose2d's weight is [in, out/groups, kH, kW].
    QTest::newRow("conv transpose") << QList<qint64> { 16, 8, 8 }
                                    << R"({"type":"ConvTranspose2d","out_channels":33,"kernel_size":3})"
                                    << qint64 { 16 * 33 * 9 + 33 };
    QTest::newRow("linear") << QList<qint64> { 512 } << R"({"type":"Linear","out_features":1000})"
                            << qint64 { 512 * 1000 + 1000 };
    QTest::newRow("linear no bias") << QList<qint64> { 512 }
                                    << R"({"type":"Linear","out_features":1000,"bias":false})"
                                    << qint64 { 512000 };
    QTest::newRow("batchnorm2d") << QList<qint64> { 64, 4, 4 } << R"({"type":"BatchNorm2d"})"
                                 << qint64 { 128 };
    QTest::newRow("batchnorm2d no affine")
        << QList<qint64> { 64, 4, 4 } << R"({"type":"BatchNorm2d","affine":false})" << qint64 { 0 };
    QTest::newRow("layernorm") << QList<qint64> { 10, 768 } << R"({"type":"LayerNorm"})" << qint64 { 1536 };
    QTest::newRow("layernorm 2 axes")
        << QList<qint64> { 10, 768 } << R"({"type":"LayerNorm","normalized_shape":[10,768]})"
        << qint64 { 2 * 7680 };
    QTest::newRow("layernorm no bias")
        << QList<qint64> { 10, 768 } << R"({"type":"LayerNorm","bias":false})" << qint64 { 768 };
    QTest::newRow("groupnorm") << QList<qint64> { 32, 4, 4 } << R"({"type":"GroupNorm","num_groups":4})"
                               << qint64 { 64 };
    QTest::newRow("relu") << QList<qint64> { 32 } << R"({"type":"ReLU"})" << qint64 { 0 };
}

void TestParameters::singleLayer()
{
    QFETCH(QList<qint64>, input);
    QFETCH(QString, layerJson);
    QFETCH(qint64, params);
    auto spec = json::parse(layerJson.toStdString());
    const std::string type = spec["type"];
    spec.erase("type");
    const Analysis a = analyze(
        network({ input.begin(), input.end() }, { layer(type, spec) }, Loss::None), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, static_cast<std::uint64_t>(params));
    QCOMPARE(a.rows.front().params, static_cast<std::uint64_t>(params));
    QCOMPARE(a.parameterBytes, static_cast<std::uint64_t>(params) * 4);
}

void TestParameters::lenet()
{
    // 156 + 2,416 + 48,120 + 10,164 + 850
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    QVERIFY(a.valid());
    QCOMPARE(a.totalParams, std::uint64_t { 61706 });
    QCOMPARE(a.trainableParams, std::uint64_t { 61706 });
    QCOMPARE(a.rows[0].params, std::uint64_t { 156 });
    QCOMPARE(a.rows[3].params, std::uint64_t { 2416 });
    QCOMPARE(a.rows[7].params, std::uint64_t { 48120 });
}

void TestParameters::batchNormBuffers()
{
    // running_mean + running_var (64 float32 each) + num_batches_tracked (one int64)
    const Analysis a = analyze(network({ 64, 4, 4 }, { layer("BatchNorm2d") }, Loss::None), Precision::Fp32);
    QCOMPARE(a.bufferElements, std::uint64_t { 129 });
    QCOMPARE(a.bufferBytes, std::uint64_t { 64 * 4 * 2 + 8 });
    const Analysis noStats = analyze(
        network({ 64, 4, 4 }, { layer("BatchNorm2d", { { "track_running_stats", false } }) }, Loss::None),
        Precision::Fp32);
    QCOMPARE(noStats.bufferElements, std::uint64_t { 0 });
}

void TestParameters::tiedWeightsCountOnce()
{
    // enc and out are both Linear(10 -> 20): one [20, 10] weight of 200 elements, shared; mid (20 -> 10)
    // has its own 200 + 10 and each bias stays separate: 200 + 20 + 210 + 20.
    LayerSpec out = layer("Linear", { { "out_features", 20 } });
    out.tiedTo = "enc";
    const Analysis a = analyze(network({ 10 },
                                   { layer("Linear", { { "out_features", 20 } }, "enc"),
                                       layer("Linear", { { "out_features", 10 } }, "mid"), out },
                                   Loss::None),
        Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 200 + 20 + 210 + 20 });
    QCOMPARE(a.rows[2].params, std::uint64_t { 20 });
}

void TestParameters::tiedWeightsMismatch()
{
    LayerSpec second = layer("Linear", { { "out_features", 7 } });
    second.tiedTo = "enc";
    const Analysis a
        = analyze(network({ 10 }, { layer("Linear", { { "out_features", 20 } }, "enc"), second }, Loss::None),
            Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(QString::fromStdString(a.error->message).contains(QStringLiteral("layers[1].tied_to")),
        a.error->message.c_str());
    // Linear(10 -> 20) and Linear(20 -> 10): 200 elements each, but [20, 10] against [10, 20]. PyTorch
    // refuses it (F.linear's matrix product does not take the other's weight); so does Headroom.
    LayerSpec transposed = layer("Linear", { { "out_features", 10 } });
    transposed.tiedTo = "enc";
    const Analysis t = analyze(
        network({ 10 }, { layer("Linear", { { "out_features", 20 } }, "enc"), transposed }, Loss::None),
        Precision::Fp32);
    QVERIFY(!t.valid());
    QCOMPARE(QString::fromStdString(t.error->message),
        QStringLiteral(
            "layers[1].tied_to: this layer's weight is [10, 20] but \"enc\"'s is [20, 10]; a tied weight "
            "must have the same shape"));
    LayerSpec dangling = layer("Linear", { { "out_features", 7 } });
    dangling.tiedTo = "nowhere";
    const Analysis b = analyze(network({ 10 }, { dangling }, Loss::None), Precision::Fp32);
    QVERIFY(!b.valid());
    QVERIFY2(QString::fromStdString(b.error->message).contains(QStringLiteral("\"nowhere\"")),
        b.error->message.c_str());
}

void TestParameters::parameterBytesFollowPrecision()
{
    const Network n = lenet5();
    QCOMPARE(analyze(n, Precision::Fp32).parameterBytes, std::uint64_t { 61706 * 4 });
    QCOMPARE(analyze(n, Precision::AmpFp16).parameterBytes, std::uint64_t { 61706 * 4 });
    QCOMPARE(analyze(n, Precision::Bf16).parameterBytes, std::uint64_t { 61706 * 2 });
    // Autocast caches a half copy of every conv/linear weight and bias for the step.
    QCOMPARE(analyze(n, Precision::AmpBf16).autocastWeightCopyBytes, std::uint64_t { 61706 * 2 });
    QCOMPARE(analyze(n, Precision::Fp32).autocastWeightCopyBytes, std::uint64_t { 0 });
}

QTEST_APPLESS_MAIN(TestParameters)
#include "tst_parameters.moc"
