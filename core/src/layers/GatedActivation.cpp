// GatedActivation: act(x[..., :F]) * x[..., F:] on one packed [..., 2F] input, as Phi-3's MLP runs it
// after its fused gate_up_proj (modeling_phi3.py, Phi3MLP.forward):
//
//   up_states = self.gate_up_proj(hidden_states)
//   gate, up_states = up_states.chunk(2, dim=-1)      two views of the packed output
//   up_states = up_states * self.activation_fn(gate)
//
// SiLU and GELU keep their input (silu_backward(grad, self), gelu_backward(grad, self)), a view of the
// packed tensor, and the mul keeps up_states (the other view) and the activation's output, so the
// packed [2F] tensor stays alive whole plus one new [F] tensor; ReLU keeps its output instead, the
// same new [F] tensor. The product (the output) is new. Not on any autocast list: the dtype is the
// input's. The same memory as a Llama MLP's gate_proj and up_proj outputs, SiLU and Mul.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class GatedActivationKind final : public DescribedKind
{
public:
    GatedActivationKind()
        : DescribedKind("GatedActivation", LayerCategory::Activation,
            "act(first half) x second half of a packed gate/up projection (Phi-3's gate_up_proj)",
            { choiceAttr("activation", "silu", { "silu", "gelu", "gelu_tanh", "relu" },
                "Applied to the first half (the gate)") })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype) || in.shape.rank() == 0)
            return failure("needs a floating-point input with at least one axis");
        const std::int64_t packed = in.shape.dims.back();
        if (packed % 2 != 0)
            return failure("the input's last axis (" + std::to_string(packed)
                + " features) must be even: the gate and up halves are equal");
        LayerOutcome o;
        o.output = in;
        o.output.shape.dims.back() = packed / 2;
        const Count half = o.output.shape.elements();
        o.saved.push_back(SavedTensor::input());
        o.saved.push_back(SavedTensor::internal("activation output", half, in.dtype));
        o.forwardFlopsPerSample = Count { 5 } * half; // the activation (~4) and the product
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeGatedActivation()
{
    return std::make_unique<GatedActivationKind>();
}

} // namespace headroom::layers
