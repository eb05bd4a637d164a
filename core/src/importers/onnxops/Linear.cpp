// Gemm and MatMul with a stored matrix -> Linear; MatMul of two computed tensors -> MatMul.
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

void gemm(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() < 2) {
        ctx.refuse(i, "it has no weight input");
        return;
    }
    if (attrInt(n, "transA").value_or(0) != 0) {
        ctx.refuse(i, "transA = 1 (a transposed input) has no Linear equivalent");
        return;
    }
    const auto w = ctx.weightDims(i, n.input(1), "weight");
    if (!w)
        return;
    if (w->size() != 2) {
        ctx.reject(i, "its weight " + joinDims(*w) + " is not a matrix");
        return;
    }
    const bool transB = attrInt(n, "transB").value_or(0) != 0;
    const std::int64_t in = transB ? (*w)[1] : (*w)[0];
    const std::int64_t out = transB ? (*w)[0] : (*w)[1];
    const bool bias = n.input_size() > 2 && !n.input(2).empty();
    if (bias) {
        const auto b = ctx.weightDims(i, n.input(2), "bias");
        if (!b)
            return;
        std::int64_t elements = 1;
        for (const auto d : *b)
            elements *= d;
        if (elements != out) {
            ctx.refuse(i,
                "its bias " + joinDims(*b) + " does not have one value per output (" + std::to_string(out)
                    + ")");
            return;
        }
    }
    if (auto l = ctx.linearFrom(i, n.input(0), in, out, bias))
        ctx.push(std::move(*l));
}

void matmul(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() == 2 && ctx.graph().carriesData(n.input(0)) && ctx.graph().carriesData(n.input(1))) {
        // Two computed tensors (attention written by hand): torch.matmul, same number of axes.
        const auto a = ctx.rankOf(i, n.input(0));
        const auto b = ctx.rankOf(i, n.input(1));
        if (!a || !b)
            return;
        if (*a != *b || *a < 3) {
            ctx.refuse(i,
                "a product of a rank-" + std::to_string(*a) + " and a rank-" + std::to_string(*b)
                    + " tensor; the MatMul layer multiplies batches of matrices of the same rank");
            return;
        }
        ctx.push(
            PendingLayer { "MatMul", nlohmann::json::object(), { n.input(0), n.input(1) }, n.output(0), i });
        return;
    }
    if (n.input_size() != 2 || ctx.graph().isDynamic(n.input(1))) {
        ctx.refuse(i, "a stored matrix times a computed tensor has no Headroom layer");
        return;
    }
    const auto w = ctx.weightDims(i, n.input(1), "weight");
    if (!w)
        return;
    if (w->size() != 2) {
        ctx.refuse(i, "its weight " + joinDims(*w) + " is not a matrix");
        return;
    }
    if (auto l = ctx.linearFrom(i, n.input(0), (*w)[0], (*w)[1], false))
        ctx.push(std::move(*l));
}

} // namespace

void addLinear(Operators& table)
{
    table.push_back({ "Gemm", &gemm });
    table.push_back({ "MatMul", &matmul });
}

} // namespace headroom::onnximport::ops
