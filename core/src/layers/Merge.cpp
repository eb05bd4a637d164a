// Add (elementwise sum of branches, with broadcasting) and Concat (torch.cat). Neither keeps a
// tensor for backward: add's gradient is the incoming gradient, cat's backward needs only sizes.
#include "Kinds.h"
#include "KindSupport.h"

#include <algorithm>

namespace headroom::layers {
namespace {

constexpr std::size_t kManyInputs = 1024;

/// PyTorch broadcasting of two per-sample shapes (the batch axes are equal).
std::optional<Shape> broadcast(const Shape& a, const Shape& b)
{
    const std::size_t rank = std::max(a.rank(), b.rank());
    Shape out{std::vector<std::int64_t>(rank, 1)};
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < a.rank() ? a.dims[a.rank() - 1 - i] : 1;
        const std::int64_t db = i < b.rank() ? b.dims[b.rank() - 1 - i] : 1;
        if (da != db && da != 1 && db != 1)
            return std::nullopt;
        out.dims[rank - 1 - i] = std::max(da, db);
    }
    return out;
}

class AddKind final : public DescribedKind {
public:
    AddKind()
        : DescribedKind("Add", LayerCategory::Merge, "Elementwise sum of two or more inputs (residual)", {})
    {
    }
    [[nodiscard]] std::size_t minInputs() const override { return 2; }
    [[nodiscard]] std::size_t maxInputs() const override { return kManyInputs; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        TensorInfo out = ctx.in(0);
        for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
            auto shape = broadcast(out.shape, ctx.in(i).shape);
            if (!shape)
                return failure("cannot add inputs of shapes " + out.shape.toString() + " and "
                               + ctx.in(i).shape.toString());
            out.shape = *shape;
            out.dtype = promote(out.dtype, ctx.in(i).dtype);
        }
        LayerOutcome o;
        o.output = out;
        o.forwardFlopsPerSample = Count{ctx.inputs.size() - 1} * out.shape.elements();
        // add's backward passes grad to an operand of the output's shape and dtype; a broadcast operand
        // gets a reduced copy (sum_to_size), a promoted one a cast copy.
        for (const auto& in : ctx.inputs)
            o.aliasedInputGradients.push_back(in == TensorInfo{out.shape, out.dtype, in.contiguous});
        return o;
    }
};

class ConcatKind final : public DescribedKind {
public:
    ConcatKind()
        : DescribedKind("Concat", LayerCategory::Merge, "Concatenates inputs along an axis (torch.cat)",
                        {intAttr("dim", 1, "Axis, counting the batch axis as 0 (1 = channels)",
                                 std::numeric_limits<std::int32_t>::min())})
    {
    }
    [[nodiscard]] std::size_t minInputs() const override { return 2; }
    [[nodiscard]] std::size_t maxInputs() const override { return kManyInputs; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& first = ctx.in(0);
        const auto rank = static_cast<std::int64_t>(first.shape.rank()) + 1;
        std::int64_t dim = ctx.attrs.integer("dim");
        if (dim < 0)
            dim += rank;
        if (dim < 1 || dim >= rank)
            return failure("dim " + std::to_string(ctx.attrs.integer("dim")) + " is not a feature axis of "
                           + first.shape.toBatchedString());
        const auto axis = static_cast<std::size_t>(dim - 1);
        TensorInfo out = first;
        for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
            const auto& next = ctx.in(i);
            bool compatible = next.shape.rank() == first.shape.rank();
            for (std::size_t d = 0; compatible && d < first.shape.rank(); ++d)
                compatible = d == axis || next.shape.dims[d] == first.shape.dims[d];
            if (!compatible)
                return failure("cannot concatenate " + first.shape.toString() + " and " + next.shape.toString()
                               + " along dim " + std::to_string(dim) + ": the other axes must match");
            if (__builtin_add_overflow(out.shape.dims[axis], next.shape.dims[axis], &out.shape.dims[axis]))
                return sizeOverflow("the concatenated axis");
            out.dtype = promote(out.dtype, next.dtype);
        }
        LayerOutcome o;
        o.output = out;
        // cat's backward hands each input a slice (a view) of the output gradient, cast where promoted.
        for (const auto& in : ctx.inputs)
            o.aliasedInputGradients.push_back(in.dtype == out.dtype);
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeAdd() { return std::make_unique<AddKind>(); }
std::unique_ptr<LayerKind> makeConcat() { return std::make_unique<ConcatKind>(); }

} // namespace headroom::layers
