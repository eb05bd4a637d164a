// Reductions over per-sample axes: Mean, Sum, Amax, Norm (torch.mean, torch.sum, torch.amax, the 2-norm
// torch.linalg.vector_norm / Tensor.norm with `dim`, as F.normalize computes it).
// derivatives.yaml: mean.dim's backward needs only sizes (mean_backward(grad, self.sym_sizes(), dim,
// self.sym_numel(), keepdim): PyTorch 2.x saves no tensor; torch 1.13 kept the input, see
// tests/reference/README.md) and builds a new input-sized gradient (the division); sum.dim_IntList's
// backward is grad expanded to the input's sizes, a view (nothing allocated); amax keeps its input and
// its result (scale_grad_by_count(..., restore_reduced_dims(result) == self, dim)), and its backward
// holds the input-sized bool mask of the maxima while it runs. Under autocast sum runs with
// dtype=float32 (fp32_set_opt_dtype): a float32 result, no copy of the input. linalg_vector_norm (and 1.13's
// norm.ScalarOpt_dim) keeps its input and its result (linalg_vector_norm_backward(grad, self, ord, result,
// dim, keepdim)); for ord 2 its backward is self * (grad / result), an output-sized quotient before the
// input-sized gradient.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

#include <algorithm>
#include <set>

namespace headroom::layers {
namespace {

enum class Reduction { Mean, Sum, Amax, Norm };

class ReduceKind final : public DescribedKind
{
public:
    ReduceKind(Reduction r, std::string type, std::string summary)
        : DescribedKind(std::move(type), LayerCategory::Pooling, std::move(summary),
            { listAttr("dim", "Axes to reduce, counting the batch axis as 0 (negative counts from the end)",
                  std::numeric_limits<std::int32_t>::min()),
                boolAttr("keepdim", false, "Keeps the reduced axes with size 1") })
        , m_reduction { r }
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override
    {
        return m_reduction == Reduction::Sum ? AutocastPolicy::Custom : AutocastPolicy::Passthrough;
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input but gets " + std::string(dtypeName(in.dtype)));
        std::set<std::size_t> axes;
        for (const auto dim : ctx.attrs.integers("dim")) {
            const auto axis = featureAxis(dim, in.shape.rank());
            if (!axis)
                return failure("dim " + std::to_string(dim) + " is not a feature axis of "
                    + in.shape.toBatchedString()
                    + " (the batch axis 0 is reduced by the loss, not per sample)");
            if (!axes.insert(*axis).second)
                return failure("dim " + std::to_string(dim) + " is listed twice");
        }
        const bool keepdim = ctx.attrs.flag("keepdim");
        Shape shape;
        for (std::size_t d = 0; d < in.shape.rank(); ++d) {
            if (!axes.contains(d))
                shape.dims.push_back(in.shape.dims[d]);
            else if (keepdim)
                shape.dims.push_back(1);
        }
        DType dtype = in.dtype;
        if (m_reduction == Reduction::Sum && isAutocast(ctx.precision))
            dtype = DType::Float32;
        LayerOutcome o;
        o.output = contiguousTensor(shape, dtype);
        o.aliasedInputGradients = { false };
        switch (m_reduction) {
        case Reduction::Mean:
            break;
        case Reduction::Sum:
            o.aliasedInputGradients = { true };
            break;
        case Reduction::Amax:
            o.saved.push_back(SavedTensor::input());
            o.saved.push_back(SavedTensor::output());
            o.backwardScratchBytesPerSample = in.shape.elements() * Count { elementSize(DType::Bool) };
            break;
        case Reduction::Norm:
            o.saved.push_back(SavedTensor::input());
            o.saved.push_back(SavedTensor::output());
            o.backwardScratchBytesPerSample = shape.elements() * Count { elementSize(dtype) };
            break;
        }
        o.forwardFlopsPerSample = in.shape.elements();
        return o;
    }

private:
    Reduction m_reduction;
};

} // namespace

std::unique_ptr<LayerKind> makeMean()
{
    return std::make_unique<ReduceKind>(Reduction::Mean, "Mean", "Mean over axes (torch.mean)");
}
std::unique_ptr<LayerKind> makeSum()
{
    return std::make_unique<ReduceKind>(Reduction::Sum, "Sum", "Sum over axes (torch.sum)");
}
std::unique_ptr<LayerKind> makeAmax()
{
    return std::make_unique<ReduceKind>(Reduction::Amax, "Amax", "Maximum over axes (torch.amax)");
}
std::unique_ptr<LayerKind> makeNorm()
{
    return std::make_unique<ReduceKind>(
        Reduction::Norm, "Norm", "Euclidean (2-)norm over axes (torch.linalg.vector_norm, Tensor.norm)");
}

} // namespace headroom::layers
