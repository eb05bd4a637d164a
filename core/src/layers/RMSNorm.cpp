// RMSNorm as Hugging Face's LlamaRMSNorm (and Mistral's, Qwen2's) runs it, op by op:
//
//   input_dtype = x.dtype
//   x = x.to(torch.float32)                       a new float32 copy unless x is float32 already
//   variance = x.pow(2).mean(-1, keepdim=True)    pow keeps x; mean keeps only sizes (PyTorch >= 2.0:
//                                                 mean_backward(grad, self.sym_sizes(), dim,
//                                                 self.sym_numel()))
//   x = x * torch.rsqrt(variance + eps)           rsqrt keeps its result (one float32 per row); mul keeps
//   both return weight * x.to(input_dtype)             mul keeps x.to(input_dtype) (a new tensor in the input
//   dtype)
//
// So per sample: the (float32) input, a float32 rstd per row and the normalised rows in the input's
// dtype. The output has the promoted dtype of the weight and the input (float32 under autocast, where
// the weight is float32). pow and rsqrt are on autocast's float32 list, which changes nothing here
// since they already run in float32; the kind decides its casts itself (Custom). Measured with torch
// 1.13 in tests/data/hf/measure_layers.py (1.13's mean also kept its input, the squared rows; 2.x
// does not, see docs/hf-import.md).
//
// Which gradient needs what (tools/autograd/derivatives.yaml; the codegen saves an operand only when a
// formula that reads it is for an input that requires grad): pow.Tensor_Scalar keeps `self` for self's
// gradient, rsqrt keeps `result` for its input's, and the first mul keeps each operand for the other's
// gradient. All three sit on x's path, so the float32 input and rstd are kept only when x requires grad.
// The last mul, weight * normalised, keeps the normalised rows for the weight's gradient
// (mul_tensor_backward(grad, self, other.scalar_type()) for `other`) and the weight for the rows'
// gradient: a frozen weight (LoRA, a frozen layer) keeps no normalised rows. Measured in
// tests/data/hf/measure_layers.py ("rmsnorm_*").
//
// unit_offset: Gemma's RMSNorm (modeling_gemma.py, modeling_gemma2.py, modeling_gemma3.py):
//
//   output = self._norm(x.float())               x.float() keeps x if float32, else a float32 copy;
//                                                pow keeps it, rsqrt its result, the mul both
//   output = output * (1.0 + self.weight.float()) keeps the normalised rows (float32) for the weight's
//                                                gradient and 1 + w (one float32 vector of the weight's
//                                                size, fixed) for the rows' gradient, i.e. when x needs one
//   return output.type_as(x)                     the output has the input's dtype
//
// group_size: Qwen3's and Gemma 3's q_norm/k_norm normalise each head's head_dim features of a
// [T, heads x head_dim] projection (applied to its view as [T, heads, head_dim]): a weight of
// group_size and one rstd per (position, head).
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class RMSNormKind final : public DescribedKind
{
public:
    RMSNormKind()
        : DescribedKind("RMSNorm", LayerCategory::Normalization,
            "Root-mean-square normalisation over the last axis (Llama's RMSNorm, computed in float32)",
            { inferredAttr("hidden_size", "Normalised size (the input's last axis)"),
                [] {
                    AttributeSpec s = floatAttr("eps", 1e-6, "Added to the mean square", 0.0, 1.0);
                    s.minFloatExclusive = true;
                    return s;
                }(),
                boolAttr("elementwise_affine", true, "Learnable per-element scale"),
                boolAttr("unit_offset", false,
                    "Scale by 1 + weight in float32 and return the input's dtype (Gemma's RMSNorm)"),
                [] {
                    AttributeSpec s = intAttr("group_size", nullptr,
                        "Normalise each group of this many features on its own (per-head q/k norms: "
                        "head_dim); "
                        "the weight has this size");
                    s.optional = true;
                    s.whenOmitted = "the whole last axis";
                    return s;
                }() })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Custom; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (in.shape.rank() == 0 || !isFloatingPoint(in.dtype))
            return failure("needs a floating-point input with at least one axis");
        const std::int64_t hidden = in.shape.dims.back();
        if (auto e = checkInferred(ctx.attrs, "hidden_size", hidden, "features (its last axis)"))
            return *e;
        const std::int64_t group = ctx.attrs.optionalInteger("group_size").value_or(hidden);
        if (hidden % group != 0)
            return failure("group_size " + std::to_string(group) + " does not divide the input's "
                + std::to_string(hidden) + " features");
        const Count elements = in.shape.elements();
        const Count rows = Count { elements.value() / static_cast<std::uint64_t>(group) };
        const bool affine = ctx.attrs.flag("elementwise_affine");
        const bool unitOffset = ctx.attrs.flag("unit_offset");

        LayerOutcome o;
        o.output = TensorInfo { in.shape,
            affine && !unitOffset ? promote(in.dtype, ctx.parameterType()) : in.dtype };
        if (affine)
            o.params.push_back(parameter("weight", Count::fromSigned(group)));
        // x's path (pow, rsqrt, the first mul) is recorded only when x requires grad; the weight's mul
        // keeps the normalised rows only for the weight's gradient.
        const auto forInput = [](SavedTensor s) {
            s.onlyFor = { 0 };
            return s;
        };
        const auto forWeight = [](SavedTensor s) {
            s.onlyFor = { SavedTensor::kWeight };
            return s;
        };
        if (in.dtype == DType::Float32)
            o.saved.push_back(forInput(SavedTensor::input()));
        else
            o.saved.push_back(
                forInput(SavedTensor::internal("input (float32 copy)", elements, DType::Float32)));
        o.saved.push_back(forInput(SavedTensor::internal("rstd", rows, DType::Float32)));
        if (affine && unitOffset) {
            o.saved.push_back(
                forWeight(SavedTensor::internal("normalized (float32)", elements, DType::Float32)));
            o.saved.push_back(forInput(
                SavedTensor::internal("1 + weight (float32)", 0, DType::Float32, Count::fromSigned(group))));
        } else if (affine) {
            o.saved.push_back(forWeight(SavedTensor::internal("normalized", elements, in.dtype)));
        }
        // The float32 result before type_as (Gemma) or the float32 copy of the input: alive while it runs.
        if (in.dtype != DType::Float32)
            o.forwardScratchBytesPerSample = elements * Count { elementSize(DType::Float32) };
        // pow, mean, add, rsqrt, mul, cast, mul: about 5 per element.
        o.forwardFlopsPerSample = Count { 5 } * elements;
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeRMSNorm()
{
    return std::make_unique<RMSNormKind>();
}

} // namespace headroom::layers
