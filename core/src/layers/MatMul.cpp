// MatMul (torch.matmul / torch.bmm) of two computed tensors, per sample [..., n, k] @ [..., k, m]: attention
// written by hand (q @ k.transpose(-2, -1), attn @ v). With the batch axis both operands have three or
// more dimensions, so at::matmul (aten/src/ATen/native/LinearAlgebra.cpp, _matmul_impl) takes its bmm
// path: each operand is expanded to the broadcast leading axes and reshaped to [P, n, k] (P = batch x
// leading axes), a view when its layout allows one and otherwise a contiguous copy (a transposed
// [B, h, T, d] from [B, T, h, d] is copied; a broadcast operand is materialised), then bmm. derivatives.yaml
// bmm: self's gradient is grad.bmm(mat2^T), mat2's is self^T.bmm(grad): the (reshaped) self is kept when
// mat2 requires grad and mat2 when self does (a copy that is not kept lives only while the forward runs;
// it is not counted as scratch since both operands normally require grad). The result is a new
// contiguous tensor. Autocast runs matmul in the half type. Backward costs one product per operand that
// requires grad.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

class MatMulKind final : public DescribedKind
{
public:
    MatMulKind()
        : DescribedKind("MatMul", LayerCategory::Merge,
            "Matrix product of two inputs over their last two axes (torch.matmul, bmm)", {})
    {
    }
    [[nodiscard]] std::size_t minInputs() const override { return 2; }
    [[nodiscard]] std::size_t maxInputs() const override { return 2; }
    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::LowerPrecision; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& a = ctx.in(0);
        const auto& b = ctx.in(1);
        if (!isFloatingPoint(a.dtype) || !isFloatingPoint(b.dtype))
            return failure("needs floating-point inputs");
        if (a.dtype != b.dtype)
            return failure("needs inputs of one dtype but gets " + std::string(dtypeName(a.dtype)) + " and "
                + std::string(dtypeName(b.dtype)) + " (torch.matmul does not promote)");
        if (a.shape.rank() < 2 || a.shape.rank() != b.shape.rank())
            return failure(
                "needs two inputs with the same number of axes, at least two per sample ([..., n, k] and "
                "[..., k, m]), but gets "
                + a.shape.toString() + " and " + b.shape.toString());
        const std::size_t rank = a.shape.rank();
        const std::int64_t n = a.shape.dims[rank - 2], k = a.shape.dims[rank - 1];
        const std::int64_t k2 = b.shape.dims[rank - 2], m = b.shape.dims[rank - 1];
        if (k != k2)
            return failure("cannot multiply " + a.shape.toString() + " by " + b.shape.toString()
                + ": the inner sizes " + std::to_string(k) + " and " + std::to_string(k2) + " differ");
        const Shape leadA { { a.shape.dims.begin(), a.shape.dims.end() - 2 } };
        const Shape leadB { { b.shape.dims.begin(), b.shape.dims.end() - 2 } };
        const auto lead = broadcastShapes(leadA, leadB);
        if (!lead)
            return failure(
                "cannot broadcast the leading axes of " + a.shape.toString() + " and " + b.shape.toString());
        const Count products = lead->elements();

        Shape out = *lead;
        out.dims.push_back(n);
        out.dims.push_back(m);
        LayerOutcome o;
        o.output = contiguousTensor(out, a.dtype);
        o.saved.push_back(keptOperand(a, *lead, 0, 1));
        o.saved.push_back(keptOperand(b, *lead, 1, 0));
        const Count flops
            = Count { 2 } * products * Count::fromSigned(n) * Count::fromSigned(k) * Count::fromSigned(m);
        o.forwardFlopsPerSample = flops;
        // One product per operand that requires grad (dA = dO B^T, dB = A^T dO), as attention's Q K^T.
        AttentionCoreFlops core;
        core.scores = flops;
        core.q = 0;
        core.k = 1;
        o.attentionCore = core;
        return o;
    }

private:
    /// What bmm keeps of one operand: the operand itself when its expand + reshape to [P, rows, cols] is a
    /// view, otherwise that contiguous copy; kept for the other operand's gradient.
    static SavedTensor keptOperand(
        const TensorInfo& t, const Shape& lead, std::size_t self, std::size_t other)
    {
        const std::size_t rank = t.shape.rank();
        Shape expanded = lead;
        expanded.dims.push_back(t.shape.dims[rank - 2]);
        expanded.dims.push_back(t.shape.dims[rank - 1]);
        // An operand broadcast along a leading axis has stride 0 there: merging it is never a view.
        const bool view = expanded == t.shape && mergesWithBatchAsView(t, rank - 2);
        SavedTensor s = view ? SavedTensor::input(self)
                             : SavedTensor::internal("input " + std::to_string(self) + " (contiguous copy)",
                                 expanded.elements(), t.dtype);
        s.onlyFor = { other };
        return s;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMatMul()
{
    return std::make_unique<MatMulKind>();
}

} // namespace headroom::layers
