#pragma once

// Shared building blocks for layer kinds: attribute-spec builders, a base class for the
// descriptive parts of a kind, and PyTorch's shape formulas.

#include "headroom/layers/LayerKind.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace headroom::layers {

using nlohmann::json;

/// The input limit of kinds that take any number of inputs (Add, Concat, a generic operator).
inline constexpr std::size_t kManyInputs = 65536;
/// The lowest axis an axis attribute accepts (negative axes count from the end).
inline constexpr std::int64_t kMinDim = std::numeric_limits<std::int32_t>::min();

[[nodiscard]] AttributeSpec intAttr(
    std::string name, json defaultValue, std::string help, std::int64_t min = 1);
/// An input size that is normally inferred from the previous layer; if given it must match.
[[nodiscard]] AttributeSpec inferredAttr(std::string name, std::string help);
[[nodiscard]] AttributeSpec tupleAttr(std::string name, int arity, json defaultValue, std::string help,
    std::int64_t min = 1, std::vector<std::string> choices = {});
[[nodiscard]] AttributeSpec floatAttr(
    std::string name, double defaultValue, std::string help, double min, double max);
[[nodiscard]] AttributeSpec boolAttr(std::string name, bool defaultValue, std::string help);
[[nodiscard]] AttributeSpec choiceAttr(
    std::string name, std::string defaultValue, std::vector<std::string> choices, std::string help);
/// A line of text; with a null default it may be left out (`whenOmitted` says what that means).
[[nodiscard]] AttributeSpec textAttr(
    std::string name, json defaultValue, std::string help, std::string whenOmitted = {});

/// An IntList attribute (a list of integers, or one), required unless `optional` is applied.
[[nodiscard]] AttributeSpec listAttr(std::string name, std::string help, std::int64_t min = 1);
/// `spec` made optional with no default: left out, it means `whenOmitted` ("none", "kernel_size").
[[nodiscard]] AttributeSpec optionalAttr(AttributeSpec spec, std::string whenOmitted);
/// The `parameter` attribute of kinds that take a learned tensor as an operand (Add, Mul, Concat, ...):
/// its shape per sample, broadcast over the batch.
[[nodiscard]] AttributeSpec learnedOperandAttr(std::string help);

/// "[C, L]", "[C, H, W]" or "[C, D, H, W]": the per-sample layout of 1-, 2- or 3-D spatial data.
[[nodiscard]] std::string_view spatialLayout(int spatialDims);

/// Implements the descriptive half of LayerKind from constructor arguments.
class DescribedKind : public LayerKind
{
public:
    DescribedKind(
        std::string type, LayerCategory category, std::string summary, std::vector<AttributeSpec> attributes)
        : m_type { std::move(type) }
        , m_category { category }
        , m_summary { std::move(summary) }
        , m_attributes { std::move(attributes) }
    {
    }
    [[nodiscard]] std::string_view type() const override { return m_type; }
    [[nodiscard]] LayerCategory category() const override { return m_category; }
    [[nodiscard]] std::string_view summary() const override { return m_summary; }
    [[nodiscard]] std::span<const AttributeSpec> attributes() const override { return m_attributes; }

private:
    std::string m_type;
    LayerCategory m_category;
    std::string m_summary;
    std::vector<AttributeSpec> m_attributes;
};

/// Shorthand for a failed inference.
[[nodiscard]] inline Error failure(std::string message)
{
    return Error { std::move(message), {} };
}

/// Checks the input rank; the message names what the layer expects ("[C, H, W]").
[[nodiscard]] std::optional<Error> expectRank(
    const TensorInfo& input, std::size_t rank, std::string_view layout);
/// Refuses an integer or bool input to an operator PyTorch computes only on floating-point tensors;
/// `why` says why ("PyTorch's max pooling has no integer or bool CUDA kernel").
[[nodiscard]] std::optional<Error> expectFloatingPoint(const TensorInfo& input, std::string_view why);
/// The batch axis of the [T, features] sequence that LSTM, GRU, MultiheadAttention and
/// TransformerEncoderLayer read and give (TensorInfo::batchAxis): 1 for a sequence-first [T, B, E]
/// input when batch_first is false, 0 for a batch-first one (with batch_first false too, which a model
/// file without the layout has always meant); an error for batch_first with a sequence-first input and
/// for any other place of the batch axis.
[[nodiscard]] Result<std::size_t> sequenceBatchAxis(const LayerContext& ctx);

/// Checks an inferred size attribute against the actual size.
[[nodiscard]] std::optional<Error> checkInferred(
    const Attributes& attrs, const std::string& name, std::int64_t actual, std::string_view what);

/// A learned `rows` x D table looked up by T int64 ids that are the same for every sample, and added to
/// a sequence [T, D] (position and token-type embeddings): checks the input and embedding_dim; the
/// ids are kept as fixed bytes, the add keeps nothing and promotes (half input + float32 table).
[[nodiscard]] Result<LayerOutcome> addedTable(
    const LayerContext& ctx, std::int64_t rows, std::string idsLabel);

/// Convolutions: a given in_channels must match the input, and groups must divide both channel counts.
[[nodiscard]] std::optional<Error> checkChannels(const Attributes& attrs, std::int64_t inChannels);

/// PyTorch's sliding-window output size (Conv, MaxPool, AvgPool):
/// floor or ceil of (in + 2 pad - dilation (kernel - 1) - 1) / stride + 1, with ceil_mode's rule
/// that the last window must start inside the input or left padding. 0 when the kernel does not fit
/// the padded input; nullopt when the padded input does not fit 64 bits (tooLarge()).
[[nodiscard]] std::optional<std::int64_t> slidingOutputSize(std::int64_t in, std::int64_t kernel,
    std::int64_t stride, std::int64_t pad, std::int64_t dilation, bool ceilMode);

/// A size that layers grow (pixel shuffle, transposed convolution, padding, concatenation): a x b + c,
/// or nullopt when that exceeds 2^62 (so later sums with attribute-sized terms cannot overflow).
[[nodiscard]] std::optional<std::int64_t> grownSize(std::int64_t a, std::int64_t b, std::int64_t c = 0);
/// The error for a size formula whose result does not fit 64 bits, "<what> does not fit 64-bit sizes":
/// an error at the layer where it happens, never a wrapped number carried to the next layer.
[[nodiscard]] Error tooLarge(const std::string& what);

/// The product of a list of sizes (a kernel's volume), as a Count.
[[nodiscard]] Count product(const std::vector<std::int64_t>& sizes);

/// "3x3" for a list of sizes.
[[nodiscard]] std::string joinSizes(const std::vector<std::int64_t>& sizes);

/// PyTorch's broadcasting of two per-sample shapes (right-aligned; the batch axes are equal): nullopt
/// when an axis differs and neither is 1.
[[nodiscard]] std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b);

/// The dtype PyTorch's type promotion gives two floating or integer inputs.
[[nodiscard]] DType promote(DType a, DType b) noexcept;

/// A parameter of the precision's parameter type.
[[nodiscard]] ParamTensor parameter(std::string name, Count elements);
/// A parameter a composite layer uses through F.linear, which autocast casts to the half type (a copy
/// cached for the step): ParamTensor::castByAutocast.
[[nodiscard]] ParamTensor castParameter(std::string name, Count elements);
/// A parameter of the precision's parameter type with its shape (Linear's weight: {out, in}).
[[nodiscard]] ParamTensor parameter(std::string name, std::vector<std::int64_t> shape);
/// A floating-point buffer (BatchNorm running statistics).
[[nodiscard]] ParamTensor buffer(std::string name, Count elements, DType dtype = DType::Float32);

} // namespace headroom::layers
