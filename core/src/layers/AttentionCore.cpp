#include "AttentionCore.h"

#include "KindSupport.h"

#include <cstdio>

namespace headroom::layers {

namespace {

constexpr std::int64_t kMemEfficientLseAlign = 32;

/// What eager matmul keeps of an operand: the operand itself when it is head-major in the matmul dtype,
/// its autocast copy (which keeps the layout) when only the dtype differs, else matmul's reshape copy.
OpTrace::Tensor matmulOperand(OpTrace& trace, const OpTrace::Tensor& t, bool headMajor, DType mm, const char* name)
{
    if (headMajor)
        return trace.toLowerPrecision(t, name);
    return trace.create(std::string(name) + " (heads made contiguous)", t.elements, mm);
}

} // namespace

OpTrace::Tensor traceAttentionCore(OpTrace& trace, const LayerContext& ctx, OpTrace::Tensor q, OpTrace::Tensor k,
    OpTrace::Tensor v, const AttentionCoreShape& shape)
{
    const Count t = Count::fromSigned(shape.length);
    const Count h = Count::fromSigned(shape.heads);
    const Count out = t * h * Count::fromSigned(shape.vHeadDim);
    if (ctx.attention == AttentionImplementation::Eager) {
        const DType mm = trace.toLowerPrecision(q, "q").dtype;
        trace.keep(matmulOperand(trace, q, shape.qHeadMajor, mm, "q"));
        trace.keep(matmulOperand(trace, k, shape.kHeadMajor, mm, "k"));
        if (shape.logitSoftcapping > 0.0) // tanh_backward(grad, result)
            trace.keep(trace.create("attention scores (soft-capping tanh)", h * t * t, mm));
        const bool float32Softmax = shape.softmaxFloat32 || isAutocast(ctx.precision);
        const OpTrace::Tensor probs
            = trace.create("attention probabilities", h * t * t, float32Softmax ? DType::Float32 : mm);
        trace.keep(probs);
        const OpTrace::Tensor cast = probs.dtype == mm
            ? probs
            : trace.create("attention probabilities (" + std::string(dtypeName(mm)) + " copy)", h * t * t, mm);
        trace.keep(trace.dropout(cast, shape.dropout, "attention dropout"));
        trace.keep(matmulOperand(trace, v, shape.vHeadMajor, mm, "v"));
        return trace.create("attention output (heads merged)", out, mm);
    }
    const OpTrace::Tensor sq = trace.toLowerPrecision(q, "q");
    const OpTrace::Tensor sk = trace.toLowerPrecision(k, "k");
    const OpTrace::Tensor sv = trace.toLowerPrecision(v, "v");
    trace.keep(sq);
    trace.keep(sk);
    trace.keep(sv);
    const OpTrace::Tensor result = trace.create("attention output (SDPA)", out, sq.dtype);
    trace.keep(result);
    // Flash attention takes half types with equal q/k and v head sizes; otherwise memory-efficient
    // attention runs, whose logsumexp is padded to 32 rows.
    const bool flash = (sq.dtype == DType::Float16 || sq.dtype == DType::BFloat16) && shape.qkHeadDim == shape.vHeadDim;
    const std::int64_t blocks = shape.length / kMemEfficientLseAlign + (shape.length % kMemEfficientLseAlign != 0 ? 1 : 0);
    const Count lse = flash ? t : Count::fromSigned(blocks) * Count::fromSigned(kMemEfficientLseAlign);
    trace.keep(trace.create("logsumexp", h * lse, DType::Float32));
    return result;
}

AttentionCoreFlops attentionCoreFlops(const LayerContext& ctx, const AttentionCoreShape& shape)
{
    const Count t = Count::fromSigned(shape.length);
    const Count h = Count::fromSigned(shape.heads);
    AttentionCoreFlops core;
    core.scores = Count{2} * t * t * h * Count::fromSigned(shape.qkHeadDim);
    core.values = Count{2} * t * t * h * Count::fromSigned(shape.vHeadDim);
    const bool capped = shape.logitSoftcapping > 0.0 && ctx.attention == AttentionImplementation::Eager;
    core.softmax = Count{capped ? 8U : 5U} * h * t * t;
    core.recomputedInBackward = ctx.attention == AttentionImplementation::Sdpa;
    return core;
}

std::string softcapIgnoredWarning(double cap)
{
    char value[32];
    std::snprintf(value, sizeof value, "%g", cap);
    return std::string("attention logit soft-capping (") + value
        + ") is skipped by transformers' SDPA attention, which this estimate follows; Hugging Face recommends "
          "attn_implementation=\"eager\" for training this model, which keeps heads x T x T scores per layer "
          "(choose the eager attention implementation to plan for it)";
}

} // namespace headroom::layers
