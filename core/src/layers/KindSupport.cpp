#include "KindSupport.h"

#include <algorithm>
#include <cmath>

namespace headroom::layers {

AttributeSpec intAttr(std::string name, json defaultValue, std::string help, std::int64_t min)
{
    AttributeSpec s;
    s.name = std::move(name);
    s.type = AttributeType::Int;
    s.defaultValue = std::move(defaultValue);
    s.minInt = min;
    s.help = std::move(help);
    return s;
}

AttributeSpec inferredAttr(std::string name, std::string help)
{
    AttributeSpec s
        = intAttr(std::move(name), nullptr, std::move(help) + " (inferred from the input if left out)");
    s.optional = true;
    s.whenOmitted = "from the input";
    return s;
}

AttributeSpec tupleAttr(std::string name, int arity, json defaultValue, std::string help, std::int64_t min,
    std::vector<std::string> choices)
{
    AttributeSpec s;
    s.name = std::move(name);
    s.type = AttributeType::IntTuple;
    s.arity = arity;
    s.defaultValue = std::move(defaultValue);
    s.minInt = min;
    s.choices = std::move(choices);
    s.help = std::move(help);
    return s;
}

AttributeSpec floatAttr(std::string name, double defaultValue, std::string help, double min, double max)
{
    AttributeSpec s;
    s.name = std::move(name);
    s.type = AttributeType::Float;
    s.defaultValue = defaultValue;
    s.minFloat = min;
    s.maxFloat = max;
    s.help = std::move(help);
    return s;
}

AttributeSpec boolAttr(std::string name, bool defaultValue, std::string help)
{
    AttributeSpec s;
    s.name = std::move(name);
    s.type = AttributeType::Bool;
    s.defaultValue = defaultValue;
    s.help = std::move(help);
    return s;
}

AttributeSpec choiceAttr(
    std::string name, std::string defaultValue, std::vector<std::string> choices, std::string help)
{
    AttributeSpec s;
    s.name = std::move(name);
    s.type = AttributeType::Choice;
    s.defaultValue = std::move(defaultValue);
    s.choices = std::move(choices);
    s.help = std::move(help);
    return s;
}

AttributeSpec textAttr(std::string name, json defaultValue, std::string help, std::string whenOmitted)
{
    AttributeSpec s;
    s.name = std::move(name);
    s.type = AttributeType::Text;
    s.optional = defaultValue.is_null();
    s.defaultValue = std::move(defaultValue);
    s.whenOmitted = std::move(whenOmitted);
    s.help = std::move(help);
    return s;
}

AttributeSpec listAttr(std::string name, std::string help, std::int64_t min)
{
    AttributeSpec s;
    s.name = std::move(name);
    s.type = AttributeType::IntList;
    s.minInt = min;
    s.help = std::move(help);
    return s;
}

AttributeSpec optionalAttr(AttributeSpec spec, std::string whenOmitted)
{
    spec.defaultValue = nullptr;
    spec.optional = true;
    spec.whenOmitted = std::move(whenOmitted);
    return spec;
}

AttributeSpec learnedOperandAttr(std::string help)
{
    return optionalAttr(listAttr("parameter", std::move(help)), "none");
}

std::string_view spatialLayout(int spatialDims)
{
    return spatialDims == 1 ? "[C, L]" : spatialDims == 2 ? "[C, H, W]" : "[C, D, H, W]";
}

Result<std::size_t> sequenceBatchAxis(const LayerContext& ctx)
{
    const auto& in = ctx.in();
    if (in.batchAxis == 0)
        return std::size_t { 0 };
    const std::string layout = in.shape.toBatchedString(in.batchAxis);
    if (in.batchAxis != 1 || in.shape.rank() != 2)
        return failure("reads a sequence [B, T, features] or, with batch_first false, [T, B, features], but "
                       "its input is "
            + layout);
    if (ctx.attrs.flag("batch_first"))
        return failure("has batch_first true but its input " + layout
            + " is sequence-first; set batch_first to false, or transpose the input to batch-first");
    return std::size_t { 1 };
}

std::optional<Error> expectRank(const TensorInfo& input, std::size_t rank, std::string_view layout)
{
    if (input.shape.rank() == rank)
        return std::nullopt;
    return failure("expects a per-sample input of shape " + std::string(layout) + " (" + std::to_string(rank)
        + " dimensions) but gets " + input.shape.toString());
}

std::optional<Error> expectFloatingPoint(const TensorInfo& input, std::string_view why)
{
    if (isFloatingPoint(input.dtype))
        return std::nullopt;
    return failure("needs a floating-point input but gets " + std::string(dtypeName(input.dtype)) + ": "
        + std::string(why) + " (convert the input with .float(), or look ids up with an Embedding)");
}

std::optional<Error> checkInferred(
    const Attributes& attrs, const std::string& name, std::int64_t actual, std::string_view what)
{
    const auto given = attrs.optionalInteger(name);
    if (!given || *given == actual)
        return std::nullopt;
    return failure(name + " is " + std::to_string(*given) + " but the input has " + std::to_string(actual)
        + " " + std::string(what));
}

Result<LayerOutcome> addedTable(const LayerContext& ctx, std::int64_t rows, std::string idsLabel)
{
    const auto& in = ctx.in();
    if (!isFloatingPoint(in.dtype))
        return failure("needs a floating-point input [T, D] but gets " + std::string(dtypeName(in.dtype))
            + " (token ids go through an Embedding first)");
    if (auto e = expectRank(in, 2, "[T, D] (sequence, features)"))
        return *e;
    const std::int64_t dim = in.shape.dims[1];
    if (auto e = checkInferred(ctx.attrs, "embedding_dim", dim, "features (its last axis)"))
        return *e;
    LayerOutcome o;
    o.output = TensorInfo { in.shape, promote(in.dtype, ctx.parameterType()) };
    o.params.push_back(parameter("weight", { rows, dim }));
    o.saved.push_back(
        SavedTensor::internal(std::move(idsLabel), 0, DType::Int64, Count::fromSigned(in.shape.dims[0])));
    o.forwardFlopsPerSample = in.shape.elements();
    return o;
}

std::optional<Error> checkChannels(const Attributes& attrs, std::int64_t inChannels)
{
    if (auto e = checkInferred(attrs, "in_channels", inChannels, "channels"))
        return e;
    const std::int64_t outChannels = attrs.integer("out_channels");
    const std::int64_t groups = attrs.integer("groups");
    if (inChannels % groups != 0 || outChannels % groups != 0)
        return failure("groups " + std::to_string(groups) + " must divide both in_channels ("
            + std::to_string(inChannels) + ") and out_channels (" + std::to_string(outChannels) + ")");
    return std::nullopt;
}

std::optional<std::int64_t> slidingOutputSize(std::int64_t in, std::int64_t kernel, std::int64_t stride,
    std::int64_t pad, std::int64_t dilation, bool ceilMode)
{
    // Attributes are at most 2^31 - 1, so only sums with the input size can overflow.
    std::int64_t padded = 0;
    if (__builtin_add_overflow(in, 2 * pad, &padded))
        return std::nullopt;
    const std::int64_t span = padded - dilation * (kernel - 1) - 1;
    if (span < 0)
        return 0;
    std::int64_t out = (ceilMode ? span / stride + (span % stride != 0 ? 1 : 0) : span / stride) + 1;
    // PyTorch (pooling_output_shape): with ceil_mode the last window must start inside the input.
    std::int64_t lastStart = 0;
    if (ceilMode && (__builtin_mul_overflow(out - 1, stride, &lastStart) || lastStart >= in + pad))
        --out;
    return out;
}

std::optional<std::int64_t> grownSize(std::int64_t a, std::int64_t b, std::int64_t c)
{
    constexpr std::int64_t kLimit = std::int64_t { 1 } << 62;
    std::int64_t size = 0;
    if (__builtin_mul_overflow(a, b, &size) || __builtin_add_overflow(size, c, &size) || size > kLimit)
        return std::nullopt;
    return size;
}

Error tooLarge(const std::string& what)
{
    return failure(what + " does not fit 64-bit sizes");
}

Count product(const std::vector<std::int64_t>& sizes)
{
    Count n { 1 };
    for (const auto s : sizes)
        n *= Count::fromSigned(s);
    return n;
}

std::string joinSizes(const std::vector<std::int64_t>& sizes)
{
    std::string s;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (i > 0)
            s += 'x';
        s += std::to_string(sizes[i]);
    }
    return s;
}

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b)
{
    const std::size_t rank = std::max(a.rank(), b.rank());
    Shape out { std::vector<std::int64_t>(rank, 1) };
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < a.rank() ? a.dims[a.rank() - 1 - i] : 1;
        const std::int64_t db = i < b.rank() ? b.dims[b.rank() - 1 - i] : 1;
        if (da != db && da != 1 && db != 1)
            return std::nullopt;
        out.dims[rank - 1 - i] = std::max(da, db);
    }
    return out;
}

DType promote(DType a, DType b) noexcept
{
    if (a == b)
        return a;
    if (isFloatingPoint(a) != isFloatingPoint(b))
        return isFloatingPoint(a) ? a : b;
    if (isFloatingPoint(a)) {
        if (a == DType::Float64 || b == DType::Float64)
            return DType::Float64;
        return DType::Float32; // float32 with a half type, or float16 with bfloat16
    }
    return elementSize(a) >= elementSize(b) ? a : b;
}

ParamTensor parameter(std::string name, Count elements)
{
    ParamTensor p;
    p.name = std::move(name);
    p.elements = elements;
    return p;
}

ParamTensor castParameter(std::string name, Count elements)
{
    ParamTensor p = parameter(std::move(name), elements);
    p.castByAutocast = true;
    return p;
}

ParamTensor parameter(std::string name, std::vector<std::int64_t> shape)
{
    ParamTensor p = parameter(std::move(name), Shape { shape }.elements());
    p.shape = std::move(shape);
    return p;
}

ParamTensor buffer(std::string name, Count elements, DType dtype)
{
    ParamTensor p;
    p.name = std::move(name);
    p.elements = elements;
    p.role = ParamTensor::Role::Buffer;
    p.dtype = dtype;
    return p;
}

} // namespace headroom::layers
