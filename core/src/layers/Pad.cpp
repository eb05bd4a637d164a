// Padding: Pad (F.pad: `pad` in PyTorch's order, last axis first, and a `mode`) and the modules
// ConstantPadNd, ZeroPadNd, ReflectionPadNd, ReplicationPadNd and CircularPadNd (N = 1, 2, 3). The result
// is a new contiguous tensor. What each mode keeps (tools/autograd/derivatives.yaml):
// - constant (constant_pad_nd): nothing; its backward is constant_pad_nd(grad, -pad), a new tensor;
//   negative padding crops;
// - reflect and replicate (reflection_padNd / replication_padNd): the input
//   (reflection_padNd_backward(grad, self, padding));
// - circular (_pad_circular, built from slice copies): nothing.
// Reflection needs each pad smaller than its axis, circular at most its axis; reflect, replicate and
// circular pad the last 1 to 3 axes of an input with one more (channels first) or as many.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

enum class Mode { Constant, Reflect, Replicate, Circular };

std::string modeName(Mode m)
{
    switch (m) {
    case Mode::Constant:
        return "constant";
    case Mode::Reflect:
        return "reflect";
    case Mode::Replicate:
        return "replicate";
    case Mode::Circular:
        return "circular";
    }
    return "constant";
}

Mode modeOf(const std::string& name)
{
    return name == "reflect"  ? Mode::Reflect
        : name == "replicate" ? Mode::Replicate
        : name == "circular"  ? Mode::Circular
                              : Mode::Constant;
}

/// The padded tensor, or an error: `pad` is (before, after) pairs from the last axis backwards.
Result<LayerOutcome> padded(const TensorInfo& in, const std::vector<std::int64_t>& pad, Mode mode)
{
    if (pad.empty() || pad.size() % 2 != 0)
        return failure(
            "pad must list an even number of sizes (before and after each axis, last axis first), not "
            + std::to_string(pad.size()));
    const std::size_t axes = pad.size() / 2;
    if (axes > in.shape.rank())
        return failure("pad " + Shape { pad }.toString() + " pads " + std::to_string(axes)
            + " axes but the input " + in.shape.toString() + " has " + std::to_string(in.shape.rank())
            + " per sample");
    if (mode != Mode::Constant && (axes > 3 || in.shape.rank() > axes + 1))
        return failure("\"" + modeName(mode)
            + "\" padding pads the last 1 to 3 axes of an input with channels first (" + std::to_string(axes)
            + " padded axes need " + std::to_string(axes + 1) + " axes per sample, not "
            + std::to_string(in.shape.rank()) + ")");
    Shape shape = in.shape;
    for (std::size_t i = 0; i < axes; ++i) {
        const std::size_t axis = in.shape.rank() - 1 - i;
        const std::int64_t before = pad[2 * i], after = pad[2 * i + 1];
        const std::int64_t size = in.shape.dims[axis];
        if (mode != Mode::Constant && (before < 0 || after < 0))
            return failure("\"" + modeName(mode) + "\" padding cannot be negative");
        if (mode == Mode::Reflect && (before >= size || after >= size))
            return failure("reflection padding " + std::to_string(std::max(before, after))
                + " must be smaller than the axis it pads (" + std::to_string(size) + ")");
        if (mode == Mode::Circular && (before > size || after > size))
            return failure("circular padding " + std::to_string(std::max(before, after))
                + " must be at most the axis it pads (" + std::to_string(size) + ")");
        const auto grown = grownSize(size, 1, before + after);
        if (!grown)
            return tooLarge("the padded size of " + in.shape.toString());
        shape.dims[axis] = *grown;
        if (shape.dims[axis] < 1)
            return failure("padding " + Shape { pad }.toString() + " leaves nothing of axis "
                + std::to_string(axis + 1) + " (size " + std::to_string(size) + ")");
    }
    LayerOutcome o;
    o.output = contiguousTensor(shape, in.dtype);
    o.aliasedInputGradients = { false };
    if (mode == Mode::Reflect || mode == Mode::Replicate)
        o.saved.push_back(SavedTensor::input());
    o.forwardFlopsPerSample = 0;
    return o;
}

/// F.pad.
class PadKind final : public DescribedKind
{
public:
    PadKind()
        : DescribedKind("Pad", LayerCategory::Shape, "Pads the last axes (F.pad)",
            { listAttr("pad",
                  "Before and after each padded axis, last axis first: [left, right, top, bottom]",
                  std::numeric_limits<std::int32_t>::min()),
                choiceAttr("mode", "constant", { "constant", "reflect", "replicate", "circular" },
                    "How the padding is filled"),
                floatAttr("value", 0.0, "Fill value (constant mode)", -1e300, 1e300) })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        return padded(ctx.in(), ctx.attrs.integers("pad"), modeOf(ctx.attrs.choice("mode")));
    }
};

/// nn.ConstantPadNd, ZeroPadNd, ReflectionPadNd, ReplicationPadNd, CircularPadNd.
class PadModuleKind final : public DescribedKind
{
public:
    PadModuleKind(std::string prefix, Mode mode, int dims, bool hasValue)
        : DescribedKind(prefix + "Pad" + std::to_string(dims) + "d", LayerCategory::Shape,
            prefix + " padding of the last "
                + (dims == 1 ? std::string("axis") : std::to_string(dims) + " axes"),
            attributesFor(mode, dims, hasValue))
        , m_mode { mode }
        , m_dims { static_cast<std::size_t>(dims) }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        if (ctx.in().shape.rank() < m_dims)
            return failure("pads the last " + std::to_string(m_dims) + " axes but the input "
                + ctx.in().shape.toString() + " has fewer");
        return padded(ctx.in(), ctx.attrs.integers("padding"), m_mode);
    }

private:
    static std::vector<AttributeSpec> attributesFor(Mode mode, int dims, bool hasValue)
    {
        const std::string sides = dims == 1 ? "[left, right]"
            : dims == 2                     ? "[left, right, top, bottom]"
                                            : "[left, right, top, bottom, front, back]";
        std::vector<AttributeSpec> attrs { tupleAttr("padding", 2 * dims, nullptr,
            "Padding on every side, or " + sides,
            mode == Mode::Constant ? std::numeric_limits<std::int32_t>::min() : 0) };
        if (hasValue) { // nn.ConstantPadNd(padding, value): no default
            AttributeSpec value = floatAttr("value", 0.0, "Fill value", -1e300, 1e300);
            value.defaultValue = nullptr;
            attrs.push_back(value);
        }
        return attrs;
    }

    Mode m_mode;
    std::size_t m_dims;
};

} // namespace

std::unique_ptr<LayerKind> makePad()
{
    return std::make_unique<PadKind>();
}

std::vector<std::unique_ptr<LayerKind>> makePadModules()
{
    std::vector<std::unique_ptr<LayerKind>> kinds;
    for (int d = 1; d <= 3; ++d) {
        kinds.push_back(std::make_unique<PadModuleKind>("Constant", Mode::Constant, d, true));
        kinds.push_back(std::make_unique<PadModuleKind>("Zero", Mode::Constant, d, false));
        kinds.push_back(std::make_unique<PadModuleKind>("Reflection", Mode::Reflect, d, false));
        kinds.push_back(std::make_unique<PadModuleKind>("Replication", Mode::Replicate, d, false));
        kinds.push_back(std::make_unique<PadModuleKind>("Circular", Mode::Circular, d, false));
    }
    return kinds;
}

} // namespace headroom::layers
