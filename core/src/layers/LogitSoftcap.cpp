// LogitSoftcap: cap x tanh(x / cap), Gemma 2's final_logit_softcapping on the language-model head's
// logits (Gemma2ForCausalLM.forward: logits / cap, torch.tanh, * cap). derivatives.yaml: tanh's
// backward is tanh_backward(grad, result), so the tanh output is kept (a new tensor of the input's size
// and dtype: none of the three ops is on an autocast list); the divisions by and multiplication with a
// Python number keep nothing. With a vocabulary of 256,000 this is T x 256,000 values per sample, as
// large as the logits themselves.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class LogitSoftcapKind final : public DescribedKind
{
public:
    LogitSoftcapKind()
        : DescribedKind("LogitSoftcap", LayerCategory::Activation,
            "cap x tanh(x / cap): soft-caps logits to (-cap, cap) (Gemma 2's final_logit_softcapping)", { [] {
                AttributeSpec s = floatAttr("cap", 30.0, "The bound the values approach", 0.0, 1e9);
                s.minFloatExclusive = true;
                return s;
            }() })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input but gets " + std::string(dtypeName(in.dtype)));
        const Count elements = in.shape.elements();
        LayerOutcome o;
        o.output = in;
        o.saved.push_back(SavedTensor::internal("tanh output", elements, in.dtype));
        o.forwardFlopsPerSample = Count { 3 } * elements; // divide, tanh, multiply
        o.forwardScratchBytesPerSample
            = elements * Count { elementSize(in.dtype) }; // x / cap, until tanh is done
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeLogitSoftcap()
{
    return std::make_unique<LogitSoftcapKind>();
}

} // namespace headroom::layers
