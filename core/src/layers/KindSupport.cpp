#include "KindSupport.h"

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
    AttributeSpec s = intAttr(std::move(name), nullptr, std::move(help) + " (inferred from the input if left out)");
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

AttributeSpec choiceAttr(std::string name, std::string defaultValue, std::vector<std::string> choices, std::string help)
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

std::optional<Error> expectRank(const TensorInfo& input, std::size_t rank, std::string_view layout)
{
    if (input.shape.rank() == rank)
        return std::nullopt;
    return failure("expects a per-sample input of shape " + std::string(layout) + " (" + std::to_string(rank)
                   + " dimensions) but gets " + input.shape.toString());
}

std::optional<Error> checkInferred(const Attributes& attrs, const std::string& name, std::int64_t actual,
                                   std::string_view what)
{
    const auto given = attrs.optionalInteger(name);
    if (!given || *given == actual)
        return std::nullopt;
    return failure(name + " is " + std::to_string(*given) + " but the input has " + std::to_string(actual) + " "
                   + std::string(what));
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
    o.output = TensorInfo{in.shape, promote(in.dtype, ctx.parameterType())};
    o.params.push_back(parameter("weight", Count::fromSigned(rows) * Count::fromSigned(dim)));
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
        return failure("groups " + std::to_string(groups) + " must divide both in_channels (" + std::to_string(inChannels)
                       + ") and out_channels (" + std::to_string(outChannels) + ")");
    return std::nullopt;
}

std::int64_t slidingOutputSize(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                               std::int64_t dilation, bool ceilMode)
{
    const std::int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1;
    if (span < 0)
        return 0;
    std::int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
    // PyTorch (pooling_output_shape): with ceil_mode the last window must start inside the input.
    if (ceilMode && (out - 1) * stride >= in + pad)
        --out;
    return out;
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
