#include "AttentionCore.h"

#include "KindSupport.h"

#include <cstdio>

namespace headroom::layers {

namespace {

constexpr std::int64_t kMemEfficientLseAlign = 32;
constexpr std::int64_t kFlashMaxHeadDim = 256; // sdp_utils.cpp check_head_dim_size_flash

/// What eager matmul keeps of an operand: the operand itself when it is head-major in the matmul dtype,
/// its autocast copy (which keeps the layout) when only the dtype differs, else matmul's reshape copy.
OpTrace::Tensor matmulOperand(
    OpTrace& trace, const OpTrace::Tensor& t, bool headMajor, DType mm, const char* name)
{
    if (headMajor)
        return trace.toLowerPrecision(t, name);
    return trace.create(std::string(name) + " (heads made contiguous)", t.elements, mm);
}

} // namespace

SdpaKernel sdpaKernel(const AttentionCoreShape& shape, DType q)
{
    const bool half = q == DType::Float16 || q == DType::BFloat16;
    if (half && shape.qkHeadDim == shape.vHeadDim && shape.qkHeadDim <= kFlashMaxHeadDim)
        return SdpaKernel::Flash;
    const std::int64_t groups = shape.kvHeads > 0 ? shape.kvHeads : shape.heads;
    if (groups == shape.heads)
        return SdpaKernel::MemoryEfficient;
    return SdpaKernel::Math;
}

namespace {

/// Eager attention: the matmuls' operands, the (soft-capped) scores, the probabilities (float32 where the
/// softmax runs in float32), their dropout and the heads-merged output.
AttentionCoreTrace traceEagerAttention(OpTrace& trace, const LayerContext& ctx, const OpTrace::Tensor& q,
    const OpTrace::Tensor& k, const OpTrace::Tensor& v, const AttentionCoreShape& shape)
{
    const Count t = Count::fromSigned(shape.length);
    const Count h = Count::fromSigned(shape.heads);
    const Count out = t * h * Count::fromSigned(shape.vHeadDim);
    AttentionCoreTrace result;
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
    result.output = trace.create("attention output (heads merged)", out, mm);
    return result;
}

/// SDPA's math kernel on inputs of `inputType`.
AttentionCoreTrace traceMathAttention(OpTrace& trace, const AttentionCoreShape& shape, DType inputType)
{
    const Count t = Count::fromSigned(shape.length);
    const Count h = Count::fromSigned(shape.heads);
    const Count out = t * h * Count::fromSigned(shape.vHeadDim);
    AttentionCoreTrace result;
    // _scaled_dot_product_attention_math (aten/src/ATen/native/transformers/attention.cpp): half
    // inputs are upcast to float32 (allowFP16BF16ReductionMathSDP is off by default); q * sqrt(scale)
    // is a new tensor (the mul by a scalar keeps nothing); enable_gqa's repeat_interleave copies k and
    // v to every query head; k^T * sqrt(scale) is another new tensor; the q K^T bmm keeps both scaled
    // operands, _safe_softmax its result (h T T), the P V bmm the probabilities and the repeated v.
    // The output (float32, then .to(q's dtype)) is copied by transformers' transpose(1, 2).contiguous()
    // into the tensor the output projection receives; the core itself keeps none of it. Dropout
    // (p > 0) is at::dropout: a mask and the dropped probabilities.
    const DType acc = DType::Float32;
    const Count qk = t * h * Count::fromSigned(shape.qkHeadDim);
    trace.keep(trace.create("q scaled (math attention, float32)", qk, acc));
    trace.keep(trace.create("k repeated to every query head and scaled (float32)", qk, acc));
    const OpTrace::Tensor probs
        = trace.create("attention probabilities (math attention, float32)", h * t * t, acc);
    trace.keep(probs);
    trace.keep(trace.dropout(probs, shape.dropout, "attention dropout"));
    trace.keep(trace.create("v repeated to every query head (float32)", out, acc));
    result.output = trace.create("attention output (heads merged)", out, inputType);
    // The scores before the softmax while it runs, then the float32 output (and its cast) while the
    // heads are merged.
    const Count scores = h * t * t * Count { elementSize(acc) };
    const Count outputs = out * Count { elementSize(acc) + (inputType == acc ? 0U : elementSize(inputType)) };
    result.forwardScratchBytes = scores.value() > outputs.value() ? scores : outputs;
    // Backward: P V's backward makes dP = dO V^T (h T T), _safe_softmax's backward dS from it while
    // dP is alive.
    result.backwardScratchBytes = Count { 2 } * scores;
    return result;
}

/// SDPA's flash or memory-efficient kernel.
AttentionCoreTrace traceFusedAttention(OpTrace& trace, const AttentionCoreShape& shape,
    const OpTrace::Tensor& sq, const OpTrace::Tensor& sk, const OpTrace::Tensor& sv, bool flash)
{
    const Count t = Count::fromSigned(shape.length);
    const Count h = Count::fromSigned(shape.heads);
    const Count out = t * h * Count::fromSigned(shape.vHeadDim);
    AttentionCoreTrace result;
    // Flash (half types) and memory-efficient attention keep q, k and v as given (with enable_gqa flash
    // reads the g key/value heads directly), their output and a float32 logsumexp, which is padded to
    // 32 rows for memory-efficient attention.
    trace.keep(sq);
    trace.keep(sk);
    trace.keep(sv);
    result.output = trace.create("attention output (SDPA)", out, sq.dtype);
    trace.keep(result.output);
    trace.keep(trace.create("logsumexp", h * logsumexpRows(shape.length, flash), DType::Float32));
    result.explicitScores = false;
    return result;
}

} // namespace

Count logsumexpRows(std::int64_t length, bool flash)
{
    if (flash)
        return Count::fromSigned(length);
    const std::int64_t blocks
        = length / kMemEfficientLseAlign + (length % kMemEfficientLseAlign != 0 ? 1 : 0);
    return Count::fromSigned(blocks) * Count::fromSigned(kMemEfficientLseAlign);
}

AttentionCoreTrace traceAttentionCore(OpTrace& trace, const LayerContext& ctx, OpTrace::Tensor q,
    OpTrace::Tensor k, OpTrace::Tensor v, const AttentionCoreShape& shape)
{
    if (ctx.attention == AttentionImplementation::Eager)
        return traceEagerAttention(trace, ctx, q, k, v, shape);
    const OpTrace::Tensor sq = trace.toLowerPrecision(q, "q");
    const OpTrace::Tensor sk = trace.toLowerPrecision(k, "k");
    const OpTrace::Tensor sv = trace.toLowerPrecision(v, "v");
    const SdpaKernel kernel = sdpaKernel(shape, sq.dtype);
    if (kernel == SdpaKernel::Math)
        return traceMathAttention(trace, shape, sq.dtype);
    return traceFusedAttention(trace, shape, sq, sk, sv, kernel == SdpaKernel::Flash);
}

AttentionCoreFlops attentionCoreFlops(
    const LayerContext& ctx, const AttentionCoreShape& shape, bool explicitScores)
{
    const Count t = Count::fromSigned(shape.length);
    const Count h = Count::fromSigned(shape.heads);
    AttentionCoreFlops core;
    core.scores = Count { 2 } * t * t * h * Count::fromSigned(shape.qkHeadDim);
    core.values = Count { 2 } * t * t * h * Count::fromSigned(shape.vHeadDim);
    const bool capped = shape.logitSoftcapping > 0.0 && ctx.attention == AttentionImplementation::Eager;
    core.softmax = Count { capped ? 8U : 5U } * h * t * t;
    core.recomputedInBackward = !explicitScores;
    return core;
}

std::string softcapIgnoredWarning(double cap)
{
    char value[32];
    std::snprintf(value, sizeof value, "%g", cap);
    return std::string("attention logit soft-capping (") + value
        + ") is skipped by transformers' SDPA attention, which this estimate follows; Hugging Face "
          "recommends "
          "attn_implementation=\"eager\" for training this model, which keeps heads x T x T scores per layer "
          "(choose the eager attention implementation to plan for it)";
}

} // namespace headroom::layers
