// Shape inference against PyTorch's formulas, worked by hand.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"

#include <QTest>
#include <limits>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

Q_DECLARE_METATYPE(headroom::Shape)
Q_DECLARE_METATYPE(headroom::DType)

class TestShapes : public QObject
{
    Q_OBJECT
private slots:
    void singleLayer_data();
    void singleLayer();
    void impossibleShape_data();
    void impossibleShape();
    void lenetShapes();
    void residualAndConcat();
    void repeatExpandsWithPytorchNames();
    void sizeOverflowStopsTheBranch_data();
    void sizeOverflowStopsTheBranch();
    void everyLayerHasItsOwnName_data();
    void everyLayerHasItsOwnName();
    void integerInputsAreRefused_data();
    void integerInputsAreRefused();
    void axesAreLimitedToPyTorchs();
    void inputCountsInMessages();
};

static Shape shape(std::vector<std::int64_t> d)
{
    return Shape { std::move(d) };
}

void TestShapes::singleLayer_data()
{
    QTest::addColumn<Shape>("input");
    QTest::addColumn<QString>("layerJson");
    QTest::addColumn<Shape>("expected");
    // out = floor((in + 2p - d(k-1) - 1)/s + 1)
    QTest::newRow("conv 3x3 pad 1") << shape({ 3, 224, 224 })
                                    << R"({"type":"Conv2d","out_channels":64,"kernel_size":3,"padding":1})"
                                    << shape({ 64, 224, 224 });
    QTest::newRow("conv 7x7 s2 p3 (resnet stem)")
        << shape({ 3, 224, 224 })
        << R"({"type":"Conv2d","out_channels":64,"kernel_size":7,"stride":2,"padding":3})"
        << shape({ 64, 112, 112 }); // (224+6-6-1)/2+1 = 112
    QTest::newRow("conv 11x11 s4 p2 (alexnet)")
        << shape({ 3, 224, 224 })
        << R"({"type":"Conv2d","out_channels":64,"kernel_size":11,"stride":4,"padding":2})"
        << shape({ 64, 55, 55 }); // (224+4-10-1)/4+1 = 55
    QTest::newRow("conv rectangular, dilation")
        << shape({ 8, 50, 180 })
        << R"({"type":"Conv2d","out_channels":4,"kernel_size":[3,5],"dilation":[2,1]})"
        << shape({ 4, 46, 176 }); // 50-2*2 = 46; 180-4 = 176
    QTest::newRow("conv padding same")
        << shape({ 8, 17, 9 }) << R"({"type":"Conv2d","out_channels":4,"kernel_size":4,"padding":"same"})"
        << shape({ 4, 17, 9 });
    QTest::newRow("conv1d") << shape({ 16, 100 })
                            << R"({"type":"Conv1d","out_channels":32,"kernel_size":5,"stride":2})"
                            << shape({ 32, 48 }); // (100-5)/2+1 = 48
    QTest::newRow("conv transpose")
        << shape({ 16, 10, 10 })
        << R"({"type":"ConvTranspose2d","out_channels":8,"kernel_size":3,"stride":2,"padding":1,"output_padding":1})"
        << shape({ 8, 20, 20 }); // (10-1)*2 - 2 + 2 + 1 + 1 = 20
    QTest::newRow("maxpool floor") << shape({ 64, 112, 112 })
                                   << R"({"type":"MaxPool2d","kernel_size":3,"stride":2,"padding":1})"
                                   << shape({ 64, 56, 56 }); // (112+2-2-1)/2+1 = 56
    QTest::newRow("maxpool ceil_mode")
        << shape({ 96, 55, 55 }) << R"({"type":"MaxPool2d","kernel_size":3,"stride":2,"ceil_mode":true})"
        << shape({ 96, 27, 27 }); // ceil((55-3)/2)+1 = 27
    QTest::newRow("maxpool ceil_mode rounds up")
        << shape({ 1, 6, 6 })
        << R"({"type":"MaxPool2d","kernel_size":2,"stride":2,"ceil_mode":true,"padding":0})"
        << shape({ 1, 3, 3 });
    QTest::newRow("maxpool ceil_mode odd")
        << shape({ 1, 7, 7 }) << R"({"type":"MaxPool2d","kernel_size":2,"ceil_mode":true})"
        << shape({ 1, 4, 4 }); // ceil(5/2)+1 = 4
    QTest::newRow("avgpool default stride")
        << shape({ 16, 10, 10 }) << R"({"type":"AvgPool2d","kernel_size":2})" << shape({ 16, 5, 5 });
    QTest::newRow("adaptive avgpool")
        << shape({ 512, 7, 7 }) << R"({"type":"AdaptiveAvgPool2d","output_size":1})" << shape({ 512, 1, 1 });
    QTest::newRow("flatten default") << shape({ 512, 7, 7 }) << R"({"type":"Flatten"})" << shape({ 25088 });
    QTest::newRow("flatten partial") << shape({ 4, 5, 6 }) << R"({"type":"Flatten","start_dim":2})"
                                     << shape({ 4, 30 });
    QTest::newRow("linear on last axis")
        << shape({ 128, 768 }) << R"({"type":"Linear","out_features":3072})" << shape({ 128, 3072 });
    QTest::newRow("layernorm keeps shape")
        << shape({ 128, 768 }) << R"({"type":"LayerNorm"})" << shape({ 128, 768 });
    QTest::newRow("batchnorm1d on features")
        << shape({ 100 }) << R"({"type":"BatchNorm1d"})" << shape({ 100 });
}

void TestShapes::singleLayer()
{
    QFETCH(Shape, input);
    QFETCH(QString, layerJson);
    QFETCH(Shape, expected);
    auto spec = json::parse(layerJson.toStdString());
    const std::string type = spec["type"];
    spec.erase("type");
    const Analysis a = analyze(network(input.dims, { layer(type, spec) }, Loss::None), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.rows.front().output.shape, expected);
}

void TestShapes::impossibleShape_data()
{
    QTest::addColumn<Shape>("input");
    QTest::addColumn<QString>("layerJson");
    QTest::addColumn<QString>("expectedFragment");
    QTest::newRow("kernel larger than input")
        << shape({ 3, 4, 4 }) << R"({"type":"Conv2d","out_channels":8,"kernel_size":5})"
        << "does not fit the padded input 4x4";
    QTest::newRow("conv on a vector")
        << shape({ 100 }) << R"({"type":"Conv2d","out_channels":8,"kernel_size":3})"
        << "[C, H, W]";
    QTest::newRow("groups do not divide")
        << shape({ 6, 8, 8 }) << R"({"type":"Conv2d","out_channels":8,"kernel_size":3,"groups":4})"
        << "groups 4 must divide";
    QTest::newRow("in_channels mismatch")
        << shape({ 3, 8, 8 }) << R"({"type":"Conv2d","in_channels":1,"out_channels":8,"kernel_size":3})"
        << "in_channels is 1 but the input has 3 channels";
    QTest::newRow("in_features mismatch")
        << shape({ 10 }) << R"({"type":"Linear","in_features":20,"out_features":5})"
        << "in_features is 20";
    QTest::newRow("pool larger than input") << shape({ 3, 2, 2 }) << R"({"type":"MaxPool2d","kernel_size":3})"
                                            << "larger than the padded input";
    QTest::newRow("flatten batch axis") << shape({ 3, 2, 2 }) << R"({"type":"Flatten","start_dim":0})"
                                        << "batch axis";
    QTest::newRow("strided same padding")
        << shape({ 3, 8, 8 })
        << R"({"type":"Conv2d","out_channels":4,"kernel_size":3,"stride":2,"padding":"same"})"
        << "stride 1";
    QTest::newRow("layernorm shape mismatch")
        << shape({ 4, 10 }) << R"({"type":"LayerNorm","normalized_shape":[5,10]})"
        << "does not match the trailing axes";
    QTest::newRow("groupnorm groups") << shape({ 10, 4, 4 }) << R"({"type":"GroupNorm","num_groups":3})"
                                      << "must divide the 10 channels";
}

void TestShapes::impossibleShape()
{
    QFETCH(Shape, input);
    QFETCH(QString, layerJson);
    QFETCH(QString, expectedFragment);
    auto spec = json::parse(layerJson.toStdString());
    const std::string type = spec["type"];
    spec.erase("type");
    const Analysis a
        = analyze(network(input.dims, { layer("Identity"), layer(type, spec, "culprit") }, Loss::None),
            Precision::Fp32);
    QVERIFY(!a.valid());
    const QString message = QString::fromStdString(a.error->message);
    QVERIFY2(message.contains(expectedFragment), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("layers[1]")), qPrintable(message));
    QVERIFY(a.rows[0].valid());
    QVERIFY(!a.rows[1].valid());
}

void TestShapes::lenetShapes()
{
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    QVERIFY(a.valid());
    const std::vector<Shape> expected { shape({ 6, 28, 28 }), shape({ 6, 28, 28 }), shape({ 6, 14, 14 }),
        shape({ 16, 10, 10 }), shape({ 16, 10, 10 }), shape({ 16, 5, 5 }), shape({ 400 }), shape({ 120 }),
        shape({ 120 }), shape({ 84 }), shape({ 84 }), shape({ 10 }) };
    for (std::size_t i = 0; i < expected.size(); ++i)
        QCOMPARE(a.rows[i].output.shape, expected[i]);
}

void TestShapes::residualAndConcat()
{
    const Network n = network({ 16, 8, 8 },
        { layer("Conv2d", { { "out_channels", 16 }, { "kernel_size", 3 }, { "padding", 1 } }, "a"),
            layer("Conv2d", { { "out_channels", 16 }, { "kernel_size", 3 }, { "padding", 1 } }, "b"),
            layer("Add", {}, "sum", { "b", "input" }),
            layer("Conv2d", { { "out_channels", 8 }, { "kernel_size", 1 } }, "c", { "a" }),
            layer("Concat", { { "dim", 1 } }, "cat", { "sum", "c" }) },
        Loss::None);
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.rows[2].output.shape, shape({ 16, 8, 8 }));
    QCOMPARE(a.rows[4].output.shape, shape({ 24, 8, 8 }));
    QCOMPARE(a.rows[3].inputs, std::vector<std::string> { "a" });
}

void TestShapes::repeatExpandsWithPytorchNames()
{
    const Network n = network({ 8, 4, 4 },
        { repeat("layer1", 3,
            { layer("Conv2d", { { "out_channels", 8 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv1"),
                layer("Add", {}, "add", { "conv1", "repeat_input" }) }) },
        Loss::None);
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.rows.size(), std::size_t { 7 }); // block header + 3 x 2
    QCOMPARE(a.rows[0].type, std::string("Repeat"));
    QCOMPARE(a.rows[1].name, std::string("layer1.0.conv1"));
    QCOMPARE(a.rows[6].name, std::string("layer1.2.add"));
    QCOMPARE(a.rows[4].inputs, (std::vector<std::string> { "layer1.1.conv1", "layer1.0.add" }));
    QCOMPARE(a.rows[3].inputs, std::vector<std::string> { "layer1.0.add" });
    QCOMPARE(a.totalParams, std::uint64_t { 3 * (8 * 8 * 9 + 8) });
}

Q_DECLARE_METATYPE(std::vector<headroom::LayerSpec>)

void TestShapes::sizeOverflowStopsTheBranch_data()
{
    // A size that does not fit 64 bits is an error at the layer whose formula overflows; the layers
    // after it are blocked, never computed from a wrapped number (issue #17: Flatten overflowed).
    QTest::addColumn<Shape>("input");
    QTest::addColumn<std::vector<LayerSpec>>("layers");
    QTest::addColumn<int>("culprit");
    QTest::addColumn<QString>("message");
    constexpr std::int64_t maxAttr = 2147483647;
    const std::vector<LayerSpec> rest { layer("ReLU"), layer("Flatten"),
        layer("Linear", { { "out_features", 10 } }) };
    const auto with = [&](std::vector<LayerSpec> first) {
        first.insert(first.end(), rest.begin(), rest.end());
        return first;
    };
    // (32 + 2 x 2147483647 - 5) / 1 + 1 = 4,294,967,322 per side: 6 x 4294967322^2 ~ 1.1e20 > 2^63.
    QTest::newRow("LeNet conv1 with huge padding")
        << shape({ 1, 32, 32 })
        << with({ layer("Conv2d", { { "out_channels", 6 }, { "kernel_size", 5 }, { "padding", maxAttr } }) })
        << 0 << "layers[0] (Conv2d): its output [6, 4294967322, 4294967322] overflows 64-bit sizes";
    // 2^33 rows of 2^31 - 1 features: about 2^64 elements.
    QTest::newRow("linear output")
        << shape({ std::int64_t { 1 } << 33, 1 })
        << with({ layer("Linear", { { "out_features", maxAttr } }) }) << 0
        << "layers[0] (Linear): its output [8589934592, 2147483647] overflows 64-bit sizes";
    // (2^40 - 1) x (2^31 - 1) ~ 2^71 in ConvTranspose2d's own formula.
    QTest::newRow("transposed convolution")
        << shape({ 1, std::int64_t { 1 } << 40, 1 })
        << with({ layer(
               "ConvTranspose2d", { { "out_channels", 1 }, { "kernel_size", 1 }, { "stride", maxAttr } }) })
        << 0 << "the output size (1099511627776 - 1) x stride 2147483647 does not fit 64-bit sizes";
    // 2^63 - 1 + 2 x (2^31 - 1): the padded length.
    QTest::newRow("padded length")
        << shape({ 1, std::numeric_limits<std::int64_t>::max() })
        << with({ layer("Conv1d", { { "out_channels", 1 }, { "kernel_size", 1 }, { "padding", maxAttr } }) })
        << 0 << "does not fit 64-bit sizes";
    // 2^62 + 2^62 = 2^63 along the concatenated axis.
    QTest::newRow("concatenation") << shape({ std::int64_t { 1 } << 62, 1 })
                                   << with({ layer("Concat", { { "dim", 1 } }, "cat", { "input", "input" }) })
                                   << 0 << "the concatenated axis does not fit 64-bit sizes";
}

void TestShapes::sizeOverflowStopsTheBranch()
{
    QFETCH(Shape, input);
    QFETCH(std::vector<LayerSpec>, layers);
    QFETCH(int, culprit);
    QFETCH(QString, message);
    const Analysis a = analyze(network(input.dims, layers, Loss::None), Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(QString::fromStdString(a.error->message).contains(message), a.error->message.c_str());
    const auto at = static_cast<std::size_t>(culprit);
    QVERIFY(!a.rows.at(at).valid());
    QVERIFY(!a.rows[at].blockedByEarlierError);
    for (std::size_t r = at + 1; r < a.rows.size(); ++r)
        QVERIFY2(a.rows[r].blockedByEarlierError, a.rows[r].name.c_str());
}

void TestShapes::everyLayerHasItsOwnName_data()
{
    // A layer is addressed by its full name (inputs, tied_to, --freeze, the tables): two layers with the
    // same one would make those ambiguous.
    QTest::addColumn<std::vector<LayerSpec>>("layers");
    QTest::addColumn<QString>("message");
    QTest::newRow("top-level beside a Repeat's layer")
        << std::vector<LayerSpec> { repeat("b", 2, { layer("ReLU", {}, "r") }), layer("ReLU", {}, "b.0.r") }
        << "layers[1]: its name \"b.0.r\" is already the name of layers[0].layers[0]";
    QTest::newRow("Repeat's layer after a top-level one")
        << std::vector<LayerSpec> { layer("ReLU", {}, "b.1.r"), repeat("b", 2, { layer("ReLU", {}, "r") }) }
        << "layers[1].layers[0]: its name \"b.1.r\" is already the name of layers[0]";
    QTest::newRow("named like an unnamed layer") << std::vector<LayerSpec> { layer("ReLU"),
        layer("ReLU", {}, "0") } << "layers[1]: its name \"0\" is already the name of layers[0]";
    QTest::newRow("unnamed inside a Repeat")
        << std::vector<LayerSpec> { repeat("b", 1, { layer("ReLU") }), layer("ReLU", {}, "b.0.0") }
        << "layers[1]: its name \"b.0.0\" is already the name of layers[0].layers[0]";
}

void TestShapes::everyLayerHasItsOwnName()
{
    QFETCH(std::vector<LayerSpec>, layers);
    QFETCH(QString, message);
    const Analysis a = analyze(network({ 8 }, layers, Loss::None), Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(QString::fromStdString(a.error->message).startsWith(message), a.error->message.c_str());
}

void TestShapes::integerInputsAreRefused_data()
{
    // Issue 26: these kinds took int64, uint8 and bool inputs. PyTorch refuses each (torch 1.13 CPU, checked
    // with python3-torch; the CUDA kernels of the pools dispatch floating types only,
    // aten/src/ATen/native/cuda/DilatedMaxPool2d.cu and AveragePool2d.cu: AT_DISPATCH_FLOATING_TYPES_AND2):
    //   nn.Conv2d(3,4,3)(x.long())          Input type (long int) and bias type (float) should be the same
    //   nn.ConvTranspose2d(3,4,3)(x.long()) expected scalar type Long but found Float
    //   nn.MaxPool2d(2)(x.long()/.bool()/.byte())   "max_pool2d" not implemented for 'Long'/'Bool'/'Byte'
    //   nn.AdaptiveAvgPool2d(1)(x.long())   mean(): could not infer output dtype ... Got: Long
    //   nn.AdaptiveMaxPool2d(1)(x.long())   "adaptive_max_pool2d" not implemented for 'Long'
    // (avg_pool2d on a Long tensor runs on the CPU only. Padding is not refused: CUDA's reflection and
    // replication padding dispatch every type in the forward, ReflectionPad.cu, although torch 1.13's CPU
    // kernels refuse Long.)
    QTest::addColumn<QString>("layerJson");
    QTest::addColumn<DType>("dtype");
    const auto row = [](const char* name, const char* layerJson, DType dtype) {
        QTest::newRow(name) << QString::fromUtf8(layerJson) << dtype;
    };
    row("Conv2d int64", R"({"type":"Conv2d","out_channels":4,"kernel_size":3})", DType::Int64);
    row("Conv2d uint8", R"({"type":"Conv2d","out_channels":4,"kernel_size":3})", DType::UInt8);
    row("ConvTranspose2d int64", R"({"type":"ConvTranspose2d","out_channels":4,"kernel_size":3})",
        DType::Int64);
    row("MaxPool2d int64", R"({"type":"MaxPool2d","kernel_size":2})", DType::Int64);
    row("MaxPool2d bool", R"({"type":"MaxPool2d","kernel_size":2})", DType::Bool);
    row("MaxPool2d uint8", R"({"type":"MaxPool2d","kernel_size":2})", DType::UInt8);
    row("AvgPool2d int32", R"({"type":"AvgPool2d","kernel_size":2})", DType::Int32);
    row("AdaptiveAvgPool2d int64", R"({"type":"AdaptiveAvgPool2d","output_size":1})", DType::Int64);
    row("AdaptiveMaxPool2d int64", R"({"type":"AdaptiveMaxPool2d","output_size":1})", DType::Int64);
}

void TestShapes::integerInputsAreRefused()
{
    QFETCH(QString, layerJson);
    QFETCH(DType, dtype);
    auto spec = json::parse(layerJson.toStdString());
    const std::string type = spec["type"];
    spec.erase("type");
    const Analysis a
        = analyze(network({ 3, 8, 8 }, { layer(type, spec, "culprit") }, Loss::None, dtype), Precision::Fp32);
    QVERIFY(!a.valid());
    const std::string expected = "layers[0] (" + type
        + " \"culprit\"): needs a floating-point input but gets " + std::string(dtypeName(dtype)) + ": ";
    QVERIFY2(a.error->message.rfind(expected, 0) == 0, a.error->message.c_str());

    // The same layer on float32 is fine: it is the dtype that is refused.
    QVERIFY(
        analyze(network({ 3, 8, 8 }, { layer(type, spec, "culprit") }, Loss::None), Precision::Fp32).valid());
}

void TestShapes::axesAreLimitedToPyTorchs()
{
    // PyTorch's CUDA kernels index at most 25 axes (OffsetCalculator.cuh, MAX_DIMS): 24 per sample. Issue 26:
    // a Repeat of 20,000 Unsqueeze(-1) grew one axis per iteration, copying ever longer shapes (quadratic:
    // 9.6 s, 3.95 GB). From [4] (2 axes with the batch), the 24th Unsqueeze (r.23) would give 26 axes.
    const Analysis a = analyze(
        network({ 4 }, { repeat("r", 20000, { layer("Unsqueeze", { { "dim", -1 } }) }) }, Loss::None),
        Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(
        a.error->message.find("its output has 26 axes with the batch axis; PyTorch's tensors have at most 25")
            != std::string::npos,
        a.error->message.c_str());
    // 23 of them end at 25 axes, the most there may be.
    QVERIFY(
        analyze(network({ 4 }, { repeat("r", 23, { layer("Unsqueeze", { { "dim", -1 } }) }) }, Loss::None),
            Precision::Fp32)
            .valid());
}

void TestShapes::inputCountsInMessages()
{
    // Issue 26: a 2,000-input sum is a valid Add (torch.stack(xs).sum(0) exports as one Sum)...
    std::vector<std::string> names;
    std::vector<LayerSpec> layers;
    for (int i = 0; i < 2000; ++i) {
        names.push_back("r" + std::to_string(i));
        layers.push_back(layer("ReLU", {}, names.back(), { "input" }));
    }
    layers.push_back(layer("Add", {}, "sum", names));
    QVERIFY(analyze(network({ 8 }, layers, Loss::None), Precision::Fp32).valid());
    // ... and past Add's bound (65,536) the message said "takes at least 1 inputs but gets 70000".
    std::vector<std::string> many(70000, "input");
    const Analysis a
        = analyze(network({ 8 }, { layer("Add", {}, "sum", many) }, Loss::None), Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(a.error->message.find("(Add): takes at most 65,536 inputs but gets 70,000") != std::string::npos,
        a.error->message.c_str());
    const Analysis one = analyze(
        network({ 8 }, { layer("ReLU", {}, "r", { "input", "input" }) }, Loss::None), Precision::Fp32);
    QVERIFY2(one.error->message.find("(ReLU): takes 1 input but gets 2") != std::string::npos,
        one.error->message.c_str());
}

QTEST_APPLESS_MAIN(TestShapes)
#include "tst_shapes.moc"
