// The operator vocabulary of issue 13: convolution and pooling in 1-3 dimensions, instance norm, the new
// activations, shape and data movement, arithmetic with learned operands, reductions and MatMul. Shapes
// and parameter counts were checked against torch 1.13 (nn modules on random tensors); saved bytes are
// worked out by hand from tools/autograd/derivatives.yaml and were checked against torch 1.13's saved
// tensors (saved_tensors_hooks) where CPU and CUDA agree (noted where they do not).
#include "headroom/analysis/Analysis.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/model/ModelFile.h"

#include <QTest>

using namespace headroom;
using nlohmann::json;

Q_DECLARE_METATYPE(headroom::Shape)
Q_DECLARE_METATYPE(headroom::Precision)

namespace {

Shape shape(std::vector<std::int64_t> d)
{
    return Shape { std::move(d) };
}

/// Analyses a model file made of `layers` (a JSON array) on a float32 input of `input`, without loss.
Analysis analyzeLayers(const Shape& input, const QString& layers, Precision precision = Precision::Fp32)
{
    const json file { { "format", "headroom-model" }, { "version", 1 },
        { "input", { { "shape", input.dims } } }, { "loss", "none" },
        { "layers", json::parse(layers.toStdString()) } };
    const auto network = parseModel(file.dump());
    if (!network.ok()) {
        Analysis a;
        a.error = network.error();
        return a;
    }
    return analyze(network.value(), precision);
}

/// Infers one layer kind directly, for what the analysis does not surface (gradients, scratch).
Result<LayerOutcome> inferKind(
    const std::string& type, const json& attributes, std::vector<TensorInfo> inputs)
{
    const LayerKind* kind = LayerRegistry::builtin().find(type);
    if (kind == nullptr)
        return Error { "no kind " + type, type };
    auto attrs = Attributes::validate(kind->attributes(), attributes, "layer");
    if (!attrs)
        return attrs.error();
    return kind->infer(
        LayerContext { attrs.value(), inputs, Precision::Fp32, AttentionImplementation::Sdpa });
}

/// A layer that makes its input require grad without keeping anything (x * a learned scalar keeps only x,
/// the network input): the tested layers after it are recorded by autograd.
constexpr const char* kScale = R"({"name": "scale", "type": "Mul", "parameter": [1]})";

} // namespace

class TestOperators : public QObject
{
    Q_OBJECT
private slots:
    void shapes_data();
    void shapes();
    void errors_data();
    void errors();
    void parameters_data();
    void parameters();
    void savedBytes_data();
    void savedBytes();
    void backwardContract_data();
    void backwardContract();
    void requiresGradDecidesWhatMulKeeps();
    void everyKindHasAFileAndDocumentation();
};

void TestOperators::shapes_data()
{
    QTest::addColumn<Shape>("input");
    QTest::addColumn<QString>("layer");
    QTest::addColumn<Shape>("expected");
    const auto row = [](const char* name, Shape in, const char* layer, Shape out) {
        QTest::newRow(name) << std::move(in) << QString::fromLatin1(layer) << std::move(out);
    };
    // out = floor((in + 2p - d(k-1) - 1)/s + 1) per axis
    row("conv3d same size", shape({ 3, 16, 112, 112 }),
        R"({"type":"Conv3d","out_channels":64,"kernel_size":3,"padding":1})", shape({ 64, 16, 112, 112 }));
    row("conv3d c3d stem", shape({ 3, 16, 112, 112 }),
        R"({"type":"Conv3d","out_channels":64,"kernel_size":[3,7,7],"stride":[1,2,2],"padding":[1,3,3]})",
        shape({ 64, 16, 56, 56 })); // (112 + 6 - 6 - 1)/2 + 1 = 56
    // (in - 1) s - 2p + d(k - 1) + output_padding + 1
    row("convtranspose1d", shape({ 16, 50 }),
        R"({"type":"ConvTranspose1d","out_channels":8,"kernel_size":4,"stride":2,"padding":1})",
        shape({ 8, 100 })); // 49 x 2 - 2 + 3 + 1
    row("convtranspose3d", shape({ 8, 4, 4, 4 }),
        R"({"type":"ConvTranspose3d","out_channels":4,"kernel_size":2,"stride":2})", shape({ 4, 8, 8, 8 }));
    row("maxpool1d", shape({ 16, 100 }), R"({"type":"MaxPool1d","kernel_size":3,"stride":2})",
        shape({ 16, 49 }));
    row("maxpool3d", shape({ 64, 16, 56, 56 }),
        R"({"type":"MaxPool3d","kernel_size":[1,3,3],"stride":[1,2,2],"padding":[0,1,1]})",
        shape({ 64, 16, 28, 28 }));
    row("avgpool1d", shape({ 4, 10 }), R"({"type":"AvgPool1d","kernel_size":2})", shape({ 4, 5 }));
    row("avgpool3d", shape({ 4, 8, 8, 8 }), R"({"type":"AvgPool3d","kernel_size":2})", shape({ 4, 4, 4, 4 }));
    row("adaptive avg 1d", shape({ 32, 100 }), R"({"type":"AdaptiveAvgPool1d","output_size":1})",
        shape({ 32, 1 }));
    row("adaptive avg 3d", shape({ 64, 4, 7, 7 }), R"({"type":"AdaptiveAvgPool3d","output_size":1})",
        shape({ 64, 1, 1, 1 }));
    row("adaptive max 1d", shape({ 8, 20 }), R"({"type":"AdaptiveMaxPool1d","output_size":5})",
        shape({ 8, 5 }));
    row("adaptive max 2d", shape({ 8, 9, 9 }), R"({"type":"AdaptiveMaxPool2d","output_size":[3,3]})",
        shape({ 8, 3, 3 }));
    row("adaptive max 3d", shape({ 2, 4, 4, 4 }), R"({"type":"AdaptiveMaxPool3d","output_size":2})",
        shape({ 2, 2, 2, 2 }));
    row("batchnorm3d", shape({ 8, 4, 6, 6 }), R"({"type":"BatchNorm3d"})", shape({ 8, 4, 6, 6 }));
    row("instancenorm1d", shape({ 8, 100 }), R"({"type":"InstanceNorm1d"})", shape({ 8, 100 }));
    row("instancenorm3d", shape({ 8, 2, 6, 6 }), R"({"type":"InstanceNorm3d","affine":true})",
        shape({ 8, 2, 6, 6 }));
    row("layernorm over two axes", shape({ 3, 7, 7 }), R"({"type":"LayerNorm","normalized_shape":[7,7]})",
        shape({ 3, 7, 7 }));
    row("hardswish", shape({ 16, 8, 8 }), R"({"type":"Hardswish"})", shape({ 16, 8, 8 }));
    row("prelu per channel", shape({ 16, 8, 8 }), R"({"type":"PReLU","num_parameters":16})",
        shape({ 16, 8, 8 }));
    row("permute channels last", shape({ 3, 4, 5 }), R"({"type":"Permute","dims":[0,2,3,1]})",
        shape({ 4, 5, 3 }));
    row("permute negative dims", shape({ 3, 4, 5 }), R"({"type":"Permute","dims":[0,-1,1,2]})",
        shape({ 5, 3, 4 }));
    row("transpose", shape({ 10, 20 }), R"({"type":"Transpose","dim0":1,"dim1":2})", shape({ 20, 10 }));
    row("reshape infers -1", shape({ 12, 5 }), R"({"type":"Reshape","shape":[3,-1,5]})", shape({ 3, 4, 5 }));
    row("view", shape({ 60 }), R"({"type":"View","shape":[4,15]})", shape({ 4, 15 }));
    row("unflatten", shape({ 196, 768 }), R"({"type":"Unflatten","dim":-1,"unflattened_size":[12,-1]})",
        shape({ 196, 12, 64 }));
    row("squeeze all", shape({ 1, 5, 1 }), R"({"type":"Squeeze"})", shape({ 5 }));
    row("squeeze one", shape({ 1, 5, 1 }), R"({"type":"Squeeze","dim":3})", shape({ 1, 5 }));
    row("squeeze of a larger axis is a no-op", shape({ 2, 5 }), R"({"type":"Squeeze","dim":1})",
        shape({ 2, 5 }));
    row("unsqueeze", shape({ 5 }), R"({"type":"Unsqueeze","dim":1})", shape({ 1, 5 }));
    row("unsqueeze at the end", shape({ 5 }), R"({"type":"Unsqueeze","dim":-1})", shape({ 5, 1 }));
    row("expand", shape({ 1, 8 }), R"({"type":"Expand","size":[4,-1]})", shape({ 4, 8 }));
    row("expand adds an axis", shape({ 8 }), R"({"type":"Expand","size":[3,8]})", shape({ 3, 8 }));
    row("narrow", shape({ 10, 4 }), R"({"type":"Narrow","dim":1,"start":2,"length":3})", shape({ 3, 4 }));
    row("slice drops the class token", shape({ 197, 768 }), R"({"type":"Slice","dim":1,"start":1})",
        shape({ 196, 768 }));
    row("slice with step", shape({ 10 }), R"({"type":"Slice","dim":1,"start":1,"end":10,"step":2})",
        shape({ 5 }));
    row("slice clamps like Python", shape({ 10 }), R"({"type":"Slice","dim":1,"start":-3,"end":100})",
        shape({ 3 }));
    row("select the class token", shape({ 197, 768 }), R"({"type":"Select","dim":1,"index":0})",
        shape({ 768 }));
    row("contiguous", shape({ 3, 4 }), R"({"type":"Contiguous"})", shape({ 3, 4 }));
    row("pad last two axes", shape({ 3, 32, 32 }), R"({"type":"Pad","pad":[1,2,3,4]})", shape({ 3, 39, 35 }));
    row("pad crops", shape({ 3, 32, 32 }), R"({"type":"Pad","pad":[-1,-1]})", shape({ 3, 32, 30 }));
    row("reflection pad 2d", shape({ 3, 256, 256 }), R"({"type":"ReflectionPad2d","padding":3})",
        shape({ 3, 262, 262 }));
    row("replication pad 1d", shape({ 2, 10 }), R"({"type":"ReplicationPad1d","padding":[1,2]})",
        shape({ 2, 13 }));
    row("zero pad 2d", shape({ 2, 4, 4 }), R"({"type":"ZeroPad2d","padding":1})", shape({ 2, 6, 6 }));
    row("constant pad 3d", shape({ 2, 4, 4, 4 }), R"({"type":"ConstantPad3d","padding":1,"value":0.5})",
        shape({ 2, 6, 6, 6 }));
    row("circular pad 2d", shape({ 2, 4, 4 }), R"({"type":"CircularPad2d","padding":[1,1,2,2]})",
        shape({ 2, 8, 6 }));
    row("upsample nearest x2", shape({ 64, 16, 16 }), R"({"type":"Upsample","scale_factor":2})",
        shape({ 64, 32, 32 }));
    row("upsample linear to size", shape({ 4, 10 }), R"({"type":"Upsample","size":20,"mode":"linear"})",
        shape({ 4, 20 }));
    row("upsample trilinear", shape({ 2, 4, 4, 4 }),
        R"({"type":"Upsample","scale_factor":2,"mode":"trilinear"})", shape({ 2, 8, 8, 8 }));
    row("upsample bicubic to size", shape({ 3, 5, 5 }),
        R"({"type":"Upsample","size":[7,9],"mode":"bicubic"})", shape({ 3, 7, 9 }));
    row("upsample floors the scale", shape({ 3, 5 }), R"({"type":"Upsample","scale_factor":1.5})",
        shape({ 3, 7 }));
    row("upsampling bilinear 2d", shape({ 3, 5, 5 }), R"({"type":"UpsamplingBilinear2d","scale_factor":2})",
        shape({ 3, 10, 10 }));
    row("pixel shuffle", shape({ 36, 10, 10 }), R"({"type":"PixelShuffle","upscale_factor":3})",
        shape({ 4, 30, 30 }));
    row("pixel unshuffle", shape({ 3, 8, 8 }), R"({"type":"PixelUnshuffle","downscale_factor":2})",
        shape({ 12, 4, 4 }));
    row("add a position table", shape({ 197, 768 }), R"({"type":"Add","parameter":[197,768]})",
        shape({ 197, 768 }));
    row("layer scale", shape({ 197, 768 }), R"({"type":"Mul","parameter":[768]})", shape({ 197, 768 }));
    row("divide by a number", shape({ 4, 4 }), R"({"type":"Div","scalar":8})", shape({ 4, 4 }));
    row("pow", shape({ 4, 4 }), R"({"type":"Pow","exponent":0.5})", shape({ 4, 4 }));
    row("clamp", shape({ 4, 4 }), R"({"type":"Clamp","min":0})", shape({ 4, 4 }));
    row("mean over space", shape({ 64, 7, 7 }), R"({"type":"Mean","dim":[2,3]})", shape({ 64 }));
    row("mean keepdim", shape({ 64, 7, 7 }), R"({"type":"Mean","dim":[-2,-1],"keepdim":true})",
        shape({ 64, 1, 1 }));
    row("sum over tokens", shape({ 16, 32 }), R"({"type":"Sum","dim":1})", shape({ 32 }));
    row("amax", shape({ 5, 6 }), R"({"type":"Amax","dim":[1]})", shape({ 6 }));
    row("concat a class token", shape({ 196, 768 }), R"({"type":"Concat","dim":1,"parameter":[1,768]})",
        shape({ 197, 768 }));
}

void TestOperators::shapes()
{
    QFETCH(Shape, input);
    QFETCH(QString, layer);
    QFETCH(Shape, expected);
    const Analysis a = analyzeLayers(input, QStringLiteral("[%1]").arg(layer));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.rows.front().output.shape, expected);
}

void TestOperators::errors_data()
{
    QTest::addColumn<Shape>("input");
    QTest::addColumn<QString>("layers");
    QTest::addColumn<QString>("fragment");
    const auto row = [](const char* name, Shape in, const char* layers, const char* fragment) {
        QTest::newRow(name) << std::move(in) << QString::fromLatin1(layers) << QString::fromLatin1(fragment);
    };
    row("conv3d on an image", shape({ 3, 8, 8 }), R"([{"type":"Conv3d","out_channels":4,"kernel_size":3}])",
        "[C, D, H, W]");
    row("reflect padding too large", shape({ 3, 2, 2 }),
        R"([{"type":"Conv2d","out_channels":4,"kernel_size":3,"padding":2,"padding_mode":"reflect"}])",
        "too large");
    row("instance norm rank", shape({ 8, 6 }), R"([{"type":"InstanceNorm2d"}])", "[C, H, W]");
    row("prelu channels", shape({ 16, 8, 8 }), R"([{"type":"PReLU","num_parameters":8}])",
        "must be 1 or the input's channels");
    row("hardtanh bounds", shape({ 8 }), R"([{"type":"Hardtanh","min_val":1,"max_val":0}])",
        "greater than min_val");
    row("clamp without bounds", shape({ 8 }), R"([{"type":"Clamp"}])", "needs `min`, `max` or both");
    // Permute and Transpose may move the batch axis (tst_batchaxis); a convolution after that may not.
    row("conv after moving the batch", shape({ 3, 4 }),
        R"([{"type":"Permute","dims":[1,0,2]},{"type":"Conv1d","out_channels":2,"kernel_size":1}])",
        "needs the batch axis first");
    row("permute repeats an axis", shape({ 3, 4 }), R"([{"type":"Permute","dims":[0,1,1]}])",
        "not a permutation");
    row("transpose out of range", shape({ 3, 4 }), R"([{"type":"Transpose","dim0":0,"dim1":3}])",
        "is not an axis of");
    row("view of a permuted tensor", shape({ 3, 4 }),
        R"([{"type":"Permute","dims":[0,2,1]},{"type":"View","shape":[12]}])", "use Reshape");
    row("reshape with two -1", shape({ 12 }), R"([{"type":"Reshape","shape":[-1,-1]}])", "more than one -1");
    row("reshape element count", shape({ 12 }), R"([{"type":"Reshape","shape":[5,2]}])",
        "has 10 elements per sample");
    row("expand a larger axis", shape({ 2, 8 }), R"([{"type":"Expand","size":[4,8]}])",
        "only axes of size 1");
    row("narrow past the end", shape({ 10 }), R"([{"type":"Narrow","dim":1,"start":8,"length":3}])",
        "go past the 10 elements");
    row("select out of range", shape({ 10 }), R"([{"type":"Select","dim":1,"index":10}])", "out of range");
    row("empty slice", shape({ 10 }), R"([{"type":"Slice","dim":1,"start":5,"end":5}])", "is empty");
    row("odd pad list", shape({ 3, 8, 8 }), R"([{"type":"Pad","pad":[1,2,3]}])", "even number");
    row("reflection pad too large", shape({ 3, 4, 4 }), R"([{"type":"ReflectionPad2d","padding":4}])",
        "smaller than the axis");
    row("reflect on too many axes", shape({ 2, 3, 8, 8 }), R"([{"type":"Pad","pad":[1,1],"mode":"reflect"}])",
        "last 1 to 3 axes");
    row("upsample size and scale", shape({ 3, 8, 8 }), R"([{"type":"Upsample","size":4,"scale_factor":2}])",
        "exactly one of");
    row("align corners on nearest", shape({ 3, 8, 8 }),
        R"([{"type":"Upsample","scale_factor":2,"align_corners":true}])", "interpolating modes");
    row("bilinear on a signal", shape({ 3, 8 }),
        R"([{"type":"Upsample","scale_factor":2,"mode":"bilinear"}])", "2 spatial axes");
    row("pixel shuffle channels", shape({ 10, 4, 4 }), R"([{"type":"PixelShuffle","upscale_factor":2}])",
        "divisible by upscale_factor");
    row("mul of one input", shape({ 8 }), R"([{"type":"Mul"}])", "takes exactly two operands");
    row("div with three operands", shape({ 8 }),
        R"([{"name":"a","type":"Identity"},{"type":"Div","inputs":["a","input"],"scalar":2}])",
        "takes exactly two operands");
    row("broadcast mismatch", shape({ 4, 8 }), R"([{"type":"Mul","parameter":[3]}])", "cannot broadcast");
    row("matmul inner sizes", shape({ 4, 8 }),
        R"([{"name":"a","type":"Identity"},{"type":"MatMul","inputs":["a","input"]}])",
        "inner sizes 8 and 4 differ");
    row("matmul ranks", shape({ 4, 8 }),
        R"([{"name":"a","type":"Flatten"},{"type":"MatMul","inputs":["a","input"]}])", "same number of axes");
    row("mean over the batch", shape({ 4, 8 }), R"([{"type":"Mean","dim":0}])", "reduced by the loss");
    row("concat alone", shape({ 4, 8 }), R"([{"type":"Concat"}])",
        "at least two inputs, or one input and a `parameter`");
    // sizes that would not fit 64 bits are errors where they arise, never wrapped numbers
    row("upsampling past 64 bits", shape({ 1, 1LL << 40 }),
        R"([{"type":"Upsample","scale_factor":1e9,"mode":"linear"}])", "does not fit 64-bit sizes");
    row("a constant operand in a product", shape({ 4, 8 }),
        R"([{"type":"Mul","parameter":[8],"parameter_elements":0}])", "only Add takes");
    row("parameter_elements without a parameter", shape({ 4, 8 }),
        R"([{"type":"Add","scalar":1,"parameter_elements":4}])", "without a `parameter`");
    row("transposed convolution past 64 bits", shape({ 1, 1LL << 40 }),
        R"([{"type":"ConvTranspose1d","out_channels":1,"kernel_size":1,"stride":2147483647}])",
        "does not fit 64-bit sizes");
    // each axis fits, their product does not: the views' strides saturate and the analysis reports it
    row("views of more than 2^63 elements", shape({ 1, 1LL << 20, 1LL << 20 }),
        R"([{"type":"Upsample","scale_factor":10000},{"type":"Permute","dims":[0,1,3,2]},{"type":"Reshape","shape":[-1]}])",
        "overflow");
}

void TestOperators::errors()
{
    QFETCH(Shape, input);
    QFETCH(QString, layers);
    QFETCH(QString, fragment);
    const Analysis a = analyzeLayers(input, layers);
    QVERIFY(!a.valid());
    QVERIFY2(QString::fromStdString(a.error->message).contains(fragment), a.error->message.c_str());
    QVERIFY2(a.error->message.rfind("layers[", 0) == 0, a.error->message.c_str()); // names the layer
}

void TestOperators::parameters_data()
{
    QTest::addColumn<Shape>("input");
    QTest::addColumn<QString>("layer");
    QTest::addColumn<quint64>("params");
    QTest::addColumn<quint64>("buffers");
    // sum(p.numel() for p in m.parameters()) and likewise for buffers(), from torch 1.13
    QTest::newRow("Conv3d(3, 64, 3)")
        << shape({ 3, 8, 8, 8 })
        << QString::fromLatin1(R"({"type":"Conv3d","out_channels":64,"kernel_size":3})") << quint64 { 5248 }
        << quint64 { 0 }; // 64 x 3 x 27 + 64
    QTest::newRow("ConvTranspose3d(8, 4, 2)")
        << shape({ 8, 4, 4, 4 })
        << QString::fromLatin1(R"({"type":"ConvTranspose3d","out_channels":4,"kernel_size":2})")
        << quint64 { 260 } << quint64 { 0 };
    QTest::newRow("ConvTranspose1d(16, 8, 4, groups=2)")
        << shape({ 16, 10 })
        << QString::fromLatin1(R"({"type":"ConvTranspose1d","out_channels":8,"kernel_size":4,"groups":2})")
        << quint64 { 264 } << quint64 { 0 }; // [16, 4, 4] + 8
    QTest::newRow("BatchNorm3d(8)") << shape({ 8, 2, 2, 2 })
                                    << QString::fromLatin1(R"({"type":"BatchNorm3d"})") << quint64 { 16 }
                                    << quint64 { 17 };
    QTest::newRow("InstanceNorm2d(8)")
        << shape({ 8, 4, 4 }) << QString::fromLatin1(R"({"type":"InstanceNorm2d"})") << quint64 { 0 }
        << quint64 { 0 };
    QTest::newRow("InstanceNorm2d(8, affine=True)")
        << shape({ 8, 4, 4 }) << QString::fromLatin1(R"({"type":"InstanceNorm2d","affine":true})")
        << quint64 { 16 } << quint64 { 0 };
    QTest::newRow("InstanceNorm2d(8, affine, track_running_stats)")
        << shape({ 8, 4, 4 })
        << QString::fromLatin1(R"({"type":"InstanceNorm2d","affine":true,"track_running_stats":true})")
        << quint64 { 16 } << quint64 { 17 };
    QTest::newRow("PReLU()") << shape({ 64, 4, 4 }) << QString::fromLatin1(R"({"type":"PReLU"})")
                             << quint64 { 1 } << quint64 { 0 };
    QTest::newRow("PReLU(64)") << shape({ 64, 4, 4 })
                               << QString::fromLatin1(R"({"type":"PReLU","num_parameters":64})")
                               << quint64 { 64 } << quint64 { 0 };
    QTest::newRow("LayerNorm([7, 7])")
        << shape({ 3, 7, 7 }) << QString::fromLatin1(R"({"type":"LayerNorm","normalized_shape":[7,7]})")
        << quint64 { 98 } << quint64 { 0 };
    QTest::newRow("layer scale") << shape({ 197, 768 })
                                 << QString::fromLatin1(R"({"type":"Mul","parameter":[768]})")
                                 << quint64 { 768 } << quint64 { 0 };
    QTest::newRow("position table") << shape({ 197, 768 })
                                    << QString::fromLatin1(R"({"type":"Add","parameter":[197,768]})")
                                    << quint64 { 151296 } << quint64 { 0 };
    QTest::newRow("class token") << shape({ 196, 768 })
                                 << QString::fromLatin1(R"({"type":"Concat","parameter":[1,768]})")
                                 << quint64 { 768 } << quint64 { 0 };
    // Swin's relative-position bias: a [3, 49, 49] operand gathered from the (2 x 7 - 1)^2 = 169-row table
    // of 3 heads, relative_position_bias_table's 507 values (torchvision's swin_t, stage 1)
    const auto bias = QString::fromLatin1(R"({"type":"Add","parameter":[3,49,49],"parameter_elements":507})");
    QTest::newRow("gathered bias") << shape({ 64, 3, 49, 49 }) << bias << quint64 { 507 } << quint64 { 0 };
    // the shifted-window mask: a constant, nothing trains
    const auto mask
        = QString::fromLatin1(R"({"type":"Add","parameter":[64,1,49,49],"parameter_elements":0})");
    QTest::newRow("constant mask") << shape({ 64, 3, 49, 49 }) << mask << quint64 { 0 } << quint64 { 0 };
}

void TestOperators::parameters()
{
    QFETCH(Shape, input);
    QFETCH(QString, layer);
    QFETCH(quint64, params);
    QFETCH(quint64, buffers);
    const Analysis a = analyzeLayers(input, QStringLiteral("[%1]").arg(layer));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, params);
    QCOMPARE(a.bufferElements, buffers);
}

void TestOperators::savedBytes_data()
{
    QTest::addColumn<Shape>("input");
    QTest::addColumn<QString>("layers");
    QTest::addColumn<Precision>("precision");
    QTest::addColumn<quint64>("expected"); // activation bytes per sample, the whole network
    const auto row = [](const char* name, Shape in, const char* layers, quint64 bytes,
                         Precision p = Precision::Fp32) {
        QTest::newRow(name) << std::move(
            in) << QStringLiteral("[%1, %2]").arg(QString::fromLatin1(kScale), QString::fromLatin1(layers))
                            << p << bytes;
    };
    // 16 x 100 floats = 6,400 + int64 indices 16 x 49 = 6,272
    row("maxpool1d: input and indices", shape({ 16, 100 }),
        R"({"type":"MaxPool1d","kernel_size":3,"stride":2})", 12672);
    // 4 x 8^3 floats = 8,192 + 4 x 4^3 int64 = 2,048
    row("maxpool3d: input and indices", shape({ 4, 8, 8, 8 }), R"({"type":"MaxPool3d","kernel_size":2})",
        10240);
    row("avgpool3d: input", shape({ 4, 8, 8, 8 }), R"({"type":"AvgPool3d","kernel_size":2})", 8192);
    row("adaptive avg 3d to 1: a mean, nothing", shape({ 4, 8, 8, 8 }),
        R"({"type":"AdaptiveAvgPool3d","output_size":1})", 0);
    row("adaptive avg 1d: input", shape({ 8, 20 }), R"({"type":"AdaptiveAvgPool1d","output_size":5})", 640);
    // 8 x 81 floats = 2,592 + 72 int64 = 576
    row("adaptive max 2d: input and indices", shape({ 8, 9, 9 }),
        R"({"type":"AdaptiveMaxPool2d","output_size":3})", 3168);
    // 8 x 36 floats = 1,152 + float32 mean and invstd per channel (per sample: B x C channels) 2 x 32
    row("instance norm", shape({ 8, 6, 6 }), R"({"type":"InstanceNorm2d"})", 1216);
    row("instance norm affine: + the repeated weight", shape({ 8, 6, 6 }),
        R"({"type":"InstanceNorm2d","affine":true})", 1248);
    row("instance norm tracking: + repeated running stats", shape({ 8, 6, 6 }),
        R"({"type":"InstanceNorm2d","affine":true,"track_running_stats":true})", 1312);
    // a transposed input is copied by input.contiguous() and the copy is kept (1,152) + mean, invstd
    row("instance norm of a permuted input", shape({ 6, 6, 8 }),
        R"({"type":"Permute","dims":[0,3,1,2]},{"type":"InstanceNorm2d"})", 1216);
    // BatchNorm3d keeps its input per sample (the statistics are fixed bytes)
    row("batchnorm3d", shape({ 8, 4, 6, 6 }), R"({"type":"BatchNorm3d"})", 4608);
    // the padded copy [3, 10, 10] = 1,200 that the convolution keeps + reflection_pad2d's input 768
    row("conv reflect padding", shape({ 3, 8, 8 }),
        R"({"type":"Conv2d","out_channels":4,"kernel_size":3,"padding":1,"padding_mode":"reflect"})", 1968);
    // padding "same" with kernel 4: 1 before, 2 after: constant_pad_nd adds one row and column, [3, 9, 9]
    // kept
    row("conv same, even kernel", shape({ 3, 8, 8 }),
        R"({"type":"Conv2d","out_channels":4,"kernel_size":4,"padding":"same"})", 972);
    row("conv same, odd kernel keeps the input", shape({ 3, 8, 8 }),
        R"({"type":"Conv2d","out_channels":4,"kernel_size":3,"padding":"same"})", 768);
    // in-place: hardswish_ has no in-place formula, autograd clones the input (32) and the Linear keeps the
    // overwritten tensor (32); elu_ keeps its result, which is what the Linear keeps (32)
    row("hardswish in place clones", shape({ 8 }),
        R"({"type":"Hardswish","inplace":true},{"type":"Linear","out_features":2})", 64);
    row("mish in place clones", shape({ 8 }),
        R"({"type":"Mish","inplace":true},{"type":"Linear","out_features":2})", 64);
    row("hardsigmoid in place clones", shape({ 8 }),
        R"({"type":"Hardsigmoid","inplace":true},{"type":"Linear","out_features":2})", 64);
    row("hardtanh in place clones", shape({ 8 }),
        R"({"type":"Hardtanh","inplace":true},{"type":"Linear","out_features":2})", 64);
    row("elu in place keeps its result", shape({ 8 }),
        R"({"type":"ELU","inplace":true},{"type":"Linear","out_features":2})", 32);
    row("celu in place keeps its result", shape({ 8 }),
        R"({"type":"CELU","inplace":true},{"type":"Linear","out_features":2})", 32);
    row("selu in place keeps its result", shape({ 8 }),
        R"({"type":"SELU","inplace":true},{"type":"Linear","out_features":2})", 32);
    // CUDA's log_sigmoid_forward leaves its buffer empty: the input only (the CPU keeps an input-sized buffer
    // too)
    row("logsigmoid", shape({ 8 }), R"({"type":"LogSigmoid"})", 32);
    row("prelu keeps its input", shape({ 8 }), R"({"type":"PReLU"})", 32);
    row("softplus keeps its input", shape({ 8 }), R"({"type":"Softplus"})", 32);
    row("gelu tanh keeps its input", shape({ 8 }), R"({"type":"GELU","approximate":"tanh"})", 32);
    // autocast: the Linear keeps a bf16 copy of its float32 input (8 x 2) and makes a bf16 output; softplus
    // runs in float32 and keeps its float32 copy of that output (16 x 4)
    row("softplus under autocast keeps a float32 copy", shape({ 8 }),
        R"({"type":"Linear","out_features":16},{"type":"Softplus"})", 80, Precision::AmpBf16);
    // exp keeps its float32 result (16 x 4), after the Linear's bf16 copy of its input (16)
    row("exp under autocast", shape({ 8 }), R"({"type":"Linear","out_features":16},{"type":"Exp"})", 80,
        Precision::AmpBf16);
    row("pow keeps its input", shape({ 8 }), R"({"type":"Pow","exponent":2})", 32);
    row("sqrt keeps its result", shape({ 8 }), R"({"type":"Sqrt"})", 32);
    row("neg keeps nothing", shape({ 8 }), R"({"type":"Neg"})", 0);
    row("abs keeps its input", shape({ 8 }), R"({"type":"Abs"})", 32);
    row("clamp keeps its input", shape({ 8 }), R"({"type":"Clamp","max":6})", 32);
    row("mean keeps nothing (2.x)", shape({ 8, 4, 4 }), R"({"type":"Mean","dim":[2,3]})", 0);
    row("sum keeps nothing", shape({ 8, 4, 4 }), R"({"type":"Sum","dim":[2,3]})", 0);
    // amax keeps its input (120) and its result (24)
    row("amax keeps input and result", shape({ 5, 6 }), R"({"type":"Amax","dim":1})", 144);
    // the 2-norm keeps its input (120) and its result (5 x 1 x 4 = 20): linalg_vector_norm_backward(grad,
    // self, ord, result, dim, keepdim)
    row("norm keeps input and result", shape({ 5, 6 }), R"({"type":"Norm","dim":-1,"keepdim":true})", 140);
    // a constant operand keeps nothing
    row("add a constant keeps nothing", shape({ 4, 8 }),
        R"({"type":"Add","parameter":[4,8],"parameter_elements":0})", 0);
    row("views keep nothing", shape({ 3, 4, 5 }),
        R"({"type":"Permute","dims":[0,2,3,1]},{"type":"Transpose","dim0":1,"dim1":2},{"type":"Unsqueeze","dim":1},{"type":"Squeeze"},{"type":"Expand","size":[5,4,3]},{"type":"Narrow","dim":1,"start":1,"length":2})",
        0);
    // ReLU keeps its output R (96); a reshape that merges permuted axes copies (96), which the Linear keeps
    row("reshape of a permuted tensor copies", shape({ 4, 6 }),
        R"({"type":"ReLU"},{"type":"Permute","dims":[0,2,1]},{"type":"Reshape","shape":[24]},{"type":"Linear","out_features":2})",
        192);
    row("reshape of a contiguous tensor is a view", shape({ 4, 6 }),
        R"({"type":"ReLU"},{"type":"Reshape","shape":[24]},{"type":"Linear","out_features":2})", 96);
    // [B, C, H, W] -> [B, H, W, C] keeps H and W adjacent: merging them is a view of R (3 x 4 x 5 x 4 = 240),
    // which LayerNorm keeps (+ mean and rstd of 20 rows, 160)
    row("channels-last then merging H and W is a view", shape({ 3, 4, 5 }),
        R"({"type":"ReLU"},{"type":"Permute","dims":[0,2,3,1]},{"type":"Reshape","shape":[20,3]},{"type":"LayerNorm"})",
        400);
    // a Linear on that view: PyTorch 2.x's matmul folds [B, 20, 3] into [B x 20, 3] whenever the weight
    // requires grad (should_fold), a copy here (240) that mm keeps; torch 1.13 ran bmm on the view instead
    // (240 in all)
    row("linear on a channels-last view keeps a copy", shape({ 3, 4, 5 }),
        R"({"type":"ReLU"},{"type":"Permute","dims":[0,2,3,1]},{"type":"Reshape","shape":[20,3]},{"type":"Linear","out_features":2})",
        480);
    row("flatten of a permuted tensor copies", shape({ 4, 6 }),
        R"({"type":"ReLU"},{"type":"Permute","dims":[0,2,1]},{"type":"Flatten"},{"type":"Linear","out_features":2})",
        192);
    row("contiguous copies a permuted tensor", shape({ 4, 6 }),
        R"({"type":"ReLU"},{"type":"Transpose","dim0":1,"dim1":2},{"type":"Contiguous"},{"type":"Abs"})",
        192);
    // Linear on a transposed [6, 4]: matmul's fold to [B x 6, 4] cannot be a view, mm keeps the copy (96)
    row("linear on a transposed input keeps a copy", shape({ 4, 6 }),
        R"({"type":"Transpose","dim0":1,"dim1":2},{"type":"Linear","out_features":2})", 96);
    // x[:, 0] then Linear: addmm keeps the strided view, so the whole [197, 8] storage stays (6,304)
    row("linear on a selected token keeps the whole tensor", shape({ 197, 8 }),
        R"({"type":"Select","dim":1,"index":0},{"type":"Linear","out_features":2})", 6304);
    // layer_norm keeps the transposed view itself (the scaled input, 128) + mean and rstd of 4 rows (32)
    row("layernorm of a transposed view", shape({ 8, 4 }),
        R"({"type":"Transpose","dim0":1,"dim1":2},{"type":"LayerNorm"})", 160);
    row("pad constant keeps nothing", shape({ 8, 4, 4 }), R"({"type":"Pad","pad":[1,1,1,1]})", 0);
    row("pad reflect keeps its input", shape({ 8, 4, 4 }),
        R"({"type":"Pad","pad":[1,1,1,1],"mode":"reflect"})", 512);
    row("replication pad keeps its input", shape({ 8, 4, 4 }), R"({"type":"ReplicationPad2d","padding":1})",
        512);
    row("upsample keeps nothing", shape({ 8, 4, 4 }),
        R"({"type":"Upsample","scale_factor":2,"mode":"bilinear"})", 0);
    row("upsample area keeps its input", shape({ 8, 4, 4 }), R"({"type":"Upsample","size":2,"mode":"area"})",
        512);
    row("pixel shuffle keeps nothing", shape({ 8, 4, 4 }), R"({"type":"PixelShuffle","upscale_factor":2})",
        0);
    row("concat with a class token keeps nothing", shape({ 4, 8 }), R"({"type":"Concat","parameter":[1,8]})",
        0);
    row("add a position table keeps nothing", shape({ 4, 8 }), R"({"type":"Add","parameter":[4,8]})", 0);
    // q, k, v: Linear -> Reshape [T, h, d] -> [h, T, d] / [h, d, T] (T 4, h 2, d 3). The three Linears keep
    // their input (96); q @ k: merging B and h of the transposed views needs copies, bmm keeps both (96 +
    // 96); softmax keeps its result (128); attn @ v keeps the softmax result (a view: already kept) and a
    // copy of v (96). Checked against torch 1.13.
    row("attention written by hand", shape({ 4, 6 }),
        R"({"name":"q","type":"Linear","out_features":6,"inputs":["scale"]},{"type":"Reshape","shape":[4,2,3]},{"name":"qh","type":"Transpose","dim0":1,"dim1":2},)"
        R"({"name":"k","type":"Linear","out_features":6,"inputs":["scale"]},{"type":"Reshape","shape":[4,2,3]},{"name":"kt","type":"Permute","dims":[0,2,3,1]},)"
        R"({"name":"v","type":"Linear","out_features":6,"inputs":["scale"]},{"type":"Reshape","shape":[4,2,3]},{"name":"vh","type":"Transpose","dim0":1,"dim1":2},)"
        R"({"name":"scores","type":"MatMul","inputs":["qh","kt"]},{"name":"attn","type":"Softmax"},{"type":"MatMul","inputs":["attn","vh"]})",
        512);
    // the same under autocast: matmul casts the float32 views to bf16 copies and keeps them (2 bytes each):
    // 48 + 48, softmax's float32 result 128, its bf16 copy for the second matmul 64 and v's 48
    row("attention under autocast", shape({ 4, 6 }),
        R"({"name":"qh","type":"Reshape","shape":[2,4,3],"inputs":["scale"]},{"name":"kt","type":"Reshape","shape":[2,3,4],"inputs":["scale"]},)"
        R"({"name":"scores","type":"MatMul","inputs":["qh","kt"]},{"name":"attn","type":"Softmax"},{"type":"MatMul","inputs":["attn","qh"]})",
        336, Precision::AmpBf16);
}

void TestOperators::savedBytes()
{
    QFETCH(Shape, input);
    QFETCH(QString, layers);
    QFETCH(Precision, precision);
    QFETCH(quint64, expected);
    const Analysis a = analyzeLayers(input, layers, precision);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, expected);
}

void TestOperators::backwardContract_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("attributes");
    QTest::addColumn<QList<Shape>>("inputs");
    QTest::addColumn<QList<bool>>("aliased");
    QTest::addColumn<quint64>("forwardScratch");
    QTest::addColumn<quint64>("backwardScratch");
    const auto row = [](const char* name, const char* type, const char* attrs, QList<Shape> in,
                         QList<bool> aliased, quint64 fwd = 0, quint64 bwd = 0) {
        QTest::newRow(name) << QString::fromLatin1(type) << QString::fromLatin1(attrs) << in << aliased << fwd
                            << bwd;
    };
    // views pass (a view of) the output gradient on; slices and expands do not
    row("permute", "Permute", R"({"dims":[0,2,1]})", { shape({ 3, 4 }) }, { true });
    row("reshape", "Reshape", R"({"shape":[12]})", { shape({ 3, 4 }) }, { true });
    row("squeeze", "Squeeze", "{}", { shape({ 1, 4 }) }, { true });
    row("contiguous", "Contiguous", "{}", { shape({ 3, 4 }) }, { true });
    row("slice allocates an input-sized gradient", "Slice", R"({"dim":1,"start":1})", { shape({ 3, 4 }) },
        { false });
    row("select allocates", "Select", R"({"dim":1,"index":0})", { shape({ 3, 4 }) }, { false });
    row("expand sums", "Expand", R"({"size":[4,4]})", { shape({ 1, 4 }) }, { false });
    row("concat hands out slices", "Concat", "{}", { shape({ 3, 4 }), shape({ 2, 4 }) }, { true, true });
    row("sum expands the gradient (a view)", "Sum", R"({"dim":1})", { shape({ 3, 4 }) }, { true });
    row("mean divides (new)", "Mean", R"({"dim":1})", { shape({ 3, 4 }) }, { false });
    row("add, same shapes", "Add", "{}", { shape({ 3, 4 }), shape({ 3, 4 }) }, { true, true });
    // a broadcast operand gets a reduced gradient
    row("add, broadcast", "Add", "{}", { shape({ 3, 4 }), shape({ 4 }) }, { true, false });
    // sub: self gets grad, other -grad (new); reducing a broadcast other runs over -grad (3 x 4 x 4 bytes)
    row("sub, broadcast", "Sub", "{}", { shape({ 3, 4 }), shape({ 1, 4 }) }, { true, false }, 0, 48);
    // mul: grad * other for both; the broadcast gate's product is output-sized before sum_to (C x H x W x 4)
    row("mul, squeeze-excitation gate", "Mul", "{}", { shape({ 8, 4, 4 }), shape({ 8, 1, 1 }) },
        { false, false }, 0, 512);
    // layer scale: gamma's gradient reduces an output-sized product over the batch
    row("mul by a parameter", "Mul", R"({"parameter":[4]})", { shape({ 3, 4 }) }, { false }, 0, 48);
    // div: the divisor's gradient -grad * ((self / other) / other) is four output-sized tensors at once
    // (3 x 4 x 4 = 48 bytes each) before the dividend's gradient exists; beside the two gradients the
    // moment counts, a full-sized divisor leaves two (96 bytes), a broadcast one three (144 bytes: its
    // gradient is the 12-byte reduction of the fourth)
    row("div", "Div", "{}", { shape({ 3, 4 }), shape({ 3, 4 }) }, { false, false }, 0, 96);
    row("div, broadcast divisor (softmax written out)", "Div", "{}", { shape({ 3, 4 }), shape({ 3, 1 }) },
        { false, false }, 0, 144);
    row("div by a number", "Div", R"({"scalar":8})", { shape({ 3, 4 }) }, { false });
    // amax's backward holds the bool mask of the maxima (12 bytes)
    row("amax", "Amax", R"({"dim":1})", { shape({ 3, 4 }) }, { false }, 0, 12);
    // instance norm, affine: the repeated bias while the forward runs (8 x 4), the per-sample weight and
    // bias gradients before RepeatBackward sums them (2 x 8 x 4)
    row("instance norm affine", "InstanceNorm2d", R"({"affine":true})", { shape({ 8, 4, 4 }) }, {}, 32, 64);
    row("pad", "Pad", R"({"pad":[1,1]})", { shape({ 3, 4 }) }, { false });
    row("upsample", "Upsample", R"({"scale_factor":2})", { shape({ 3, 4 }) }, { false });
    row("pixel shuffle", "PixelShuffle", R"({"upscale_factor":2})", { shape({ 4, 2, 2 }) }, { false });
}

void TestOperators::backwardContract()
{
    QFETCH(QString, type);
    QFETCH(QString, attributes);
    QFETCH(QList<Shape>, inputs);
    QFETCH(QList<bool>, aliased);
    QFETCH(quint64, forwardScratch);
    QFETCH(quint64, backwardScratch);
    std::vector<TensorInfo> infos;
    for (const auto& s : inputs)
        infos.push_back(TensorInfo { s, DType::Float32 });
    const auto o = inferKind(type.toStdString(), json::parse(attributes.toStdString()), infos);
    QVERIFY2(o.ok(), o.ok() ? "" : o.error().message.c_str());
    QCOMPARE(QList<bool>(o->aliasedInputGradients.begin(), o->aliasedInputGradients.end()), aliased);
    QCOMPARE(quint64 { o->forwardScratchBytesPerSample.value() }, forwardScratch);
    QCOMPARE(quint64 { o->backwardScratchBytesPerSample.value() }, backwardScratch);
}

void TestOperators::requiresGradDecidesWhatMulKeeps()
{
    // A Linear [8] -> [16] then the tested product. Per sample: 16 floats = 64 bytes.
    const auto saved = [](const QString& tail) {
        const Analysis a = analyzeLayers(shape({ 8 }),
            QStringLiteral(R"([{"name":"lin","type":"Linear","out_features":16},%1])").arg(tail));
        return a.valid() ? a.activationBytesPerSample : ~std::uint64_t { 0 };
    };
    // gamma * x keeps x (64) while gamma trains, nothing when it is frozen
    QCOMPARE(saved(QStringLiteral(R"({"type":"Mul","parameter":[16]})")), std::uint64_t { 64 });
    QCOMPARE(saved(QStringLiteral(R"({"type":"Mul","parameter":[16],"frozen":true})")), std::uint64_t { 0 });
    // x * x.sigmoid() keeps both: x (64) and the sigmoid's result (64, also kept by the sigmoid)
    QCOMPARE(saved(QStringLiteral(R"({"name":"s","type":"Sigmoid"},{"type":"Mul","inputs":["lin","s"]})")),
        std::uint64_t { 128 });
    // the network input needs no gradient: mul keeps the narrow Linear's output only for the input's
    // gradient, so not at all; what is kept is the narrow Linear's input (lin's output, 64)
    QCOMPARE(
        saved(QStringLiteral(
            R"({"name":"narrow","type":"Linear","out_features":8},{"type":"Mul","inputs":["input","narrow"]})")),
        std::uint64_t { 64 });
    // a frozen branch: Mul(lin, frozen(input)) keeps the frozen output (64) for lin's gradient, and lin's
    // output only if the frozen branch needed a gradient (it does not)
    QCOMPARE(
        saved(QStringLiteral(
            R"({"name":"f","type":"Linear","out_features":16,"inputs":["input"],"frozen":true},{"type":"Mul","inputs":["lin","f"]})")),
        std::uint64_t { 64 });
}

void TestOperators::everyKindHasAFileAndDocumentation()
{
    // docs/model-format.md lists every kind in its table of layer types.
    QFile f(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/docs/model-format.md"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString doc = QString::fromUtf8(f.readAll());
    QStringList missing;
    for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
        const QString type
            = QString::fromUtf8(kind->type().data(), static_cast<qsizetype>(kind->type().size()));
        if (!doc.contains(QLatin1Char('`') + type + QLatin1Char('`')))
            missing << type;
    }
    QVERIFY2(missing.isEmpty(),
        qPrintable(
            QStringLiteral("docs/model-format.md does not list: ") + missing.join(QStringLiteral(", "))));
}

QTEST_APPLESS_MAIN(TestOperators)
#include "tst_operators.moc"
