// NewGELU: Hugging Face's NewGELUActivation ("gelu_new", GPT-2's activation_function), which is not
// the fused F.gelu(approximate="tanh") but the formula in Python ops:
//
//   0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
//
// What each op keeps (derivatives.yaml; measured in tests/data/hf/measure_layers.py):
//   pow(x, 3.0)          keeps x                      (autocast float32 op: a float32 copy of a half x)
//   scalar muls, adds    nothing
//   tanh                 keeps its result u           (float32 under autocast, following pow)
//   h = 0.5 * x          nothing, h is new (x's dtype)
//   h * (1.0 + u)        keeps h and g = 1 + u        (the result has the promoted dtype)
// so four tensors of the input's size where F.gelu keeps one.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class NewGELUKind final : public DescribedKind
{
public:
    NewGELUKind()
        : DescribedKind("NewGELU", LayerCategory::Activation,
            "GELU, tanh approximation written out in tensor ops (Hugging Face's gelu_new, GPT-2)", {})
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Custom; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        const Count n = in.shape.elements();
        const bool castToFloat32 = isAutocast(ctx.precision) && in.dtype != DType::Float32;
        const DType inner = castToFloat32 ? DType::Float32 : in.dtype;

        LayerOutcome o;
        o.output = TensorInfo { in.shape, promote(in.dtype, inner) };
        if (castToFloat32)
            o.saved.push_back(SavedTensor::internal("input (float32 copy for pow)", n, DType::Float32));
        else
            o.saved.push_back(SavedTensor::input());
        o.saved.push_back(SavedTensor::internal("tanh result", n, inner));
        o.saved.push_back(SavedTensor::internal("0.5 * x", n, in.dtype));
        o.saved.push_back(SavedTensor::internal("1 + tanh", n, inner));
        o.forwardFlopsPerSample = Count { 9 } * n;
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeNewGELU()
{
    return std::make_unique<NewGELUKind>();
}

} // namespace headroom::layers
