// Mul: the elementwise product of two inputs (torch.mul / a * b, with broadcasting), as in the gated
// MLPs of Llama-style models: down_proj(act_fn(gate_proj(x)) * up_proj(x)). derivatives.yaml mul:
// self's gradient is grad * other and other's is grad * self, so autograd keeps both inputs (each one
// only when the other needs a gradient; both do inside a network). Not on any autocast list: the
// result has the promoted dtype.
#include "KindSupport.h"
#include "Kinds.h"

#include <algorithm>

namespace headroom::layers {
namespace {

class MulKind final : public DescribedKind {
public:
    MulKind()
        : DescribedKind("Mul", LayerCategory::Merge, "Elementwise product of two inputs (gated units)", {})
    {
    }
    [[nodiscard]] std::size_t minInputs() const override { return 2; }
    [[nodiscard]] std::size_t maxInputs() const override { return 2; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& a = ctx.in(0);
        const auto& b = ctx.in(1);
        if (!isFloatingPoint(a.dtype) || !isFloatingPoint(b.dtype))
            return failure("needs floating-point inputs");
        const std::size_t rank = std::max(a.shape.rank(), b.shape.rank());
        Shape out{std::vector<std::int64_t>(rank, 1)};
        for (std::size_t i = 0; i < rank; ++i) {
            const std::int64_t da = i < a.shape.rank() ? a.shape.dims[a.shape.rank() - 1 - i] : 1;
            const std::int64_t db = i < b.shape.rank() ? b.shape.dims[b.shape.rank() - 1 - i] : 1;
            if (da != db && da != 1 && db != 1)
                return failure("cannot multiply inputs of shapes " + a.shape.toString() + " and " + b.shape.toString());
            out.dims[rank - 1 - i] = std::max(da, db);
        }
        LayerOutcome o;
        o.output = TensorInfo{out, promote(a.dtype, b.dtype)};
        o.saved.push_back(SavedTensor::input(0));
        o.saved.push_back(SavedTensor::input(1));
        o.forwardFlopsPerSample = out.elements();
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMul()
{
    return std::make_unique<MulKind>();
}

} // namespace headroom::layers
