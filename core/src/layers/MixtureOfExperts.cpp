// MixtureOfExperts: a router and E gated expert MLPs of which each token uses k, as Hugging Face
// transformers runs them in MixtralSparseMoeBlock (modeling_mixtral.py), Qwen2MoeSparseMoeBlock /
// Qwen3MoeSparseMoeBlock without their shared expert (modeling_qwen2_moe.py, modeling_qwen3_moe.py; the
// shared expert and its gate are ordinary layers beside this one) and DeepseekV3MoE's routed experts
// (modeling_deepseek_v3.py). Input and output [T, H]. experts_implementation "eager" is transformers
// 4.5x's loop (below, "Experts"), "grouped_mm" transformers 5's default (at the end).
//
// Router "softmax" (Mixtral, Qwen-MoE), per token:
//   router_logits = self.gate(x)                       nn.Linear: keeps x (autocast: its half copy) for
//                                                      the gate's weight gradient; logits [E], alive
//                                                      until the block returns (the block returns them)
//   softmax(router_logits, dtype=torch.float)          keeps its float32 result [E] (a float32 copy of half
//                                                      logits is made first and freed)
//   topk(routing_weights, k)                           keeps the int64 indices [k]
//   routing_weights /= routing_weights.sum(-1)         norm_topk_prob (Mixtral always): keeps the float32
//                                                      top-k weights [k] and their sum [1]
//   routing_weights.to(x.dtype)                        the weights in x's dtype
// Router "sigmoid" (DeepSeek-V3's DeepseekV3TopkRouter):
//   F.linear(x.type(float32), weight.type(float32))    a float32 copy of x (when x is half) kept for the
//                                                      weight gradient; in pure half training a float32
//                                                      copy of the router weight [E, H] kept for x's
//                                                      gradient (under autocast F.linear casts both to half)
//   scores = logits.sigmoid()                          keeps its result [E]
//   get_topk_indices (no_grad: bias-corrected, group-limited top-k) keeps nothing; a few [E] temporaries
//   scores.gather(1, indices)                          keeps the int64 indices [k]
//   topk_weights /= sum + 1e-20; * routed_scaling     keeps the weights [k] and their sum; the combine
//                                                      then runs in the scores' dtype (float32 unless
//                                                      autocast)
// Experts, a loop over the experts that received tokens (n_e rows each, sum over experts = k T whatever
// the routing):
//   torch.where(expert_mask[e])                        a [n_e, 2] int64 nonzero result: the slot and token
//                                                      indices, kept by the indexing below and index_add_
//   x[top_x]                                           a gathered copy [n_e, H]; index keeps only indices
//   w1(x_e), w3(x_e)                                   keep x_e (each its own half copy under autocast) for
//                                                      their weight gradients; outputs [n_e, F]
//   act_fn(w1 out) * w3 out                            SiLU/GELU keep their input (ReLU its output), the
//                                                      mul both operands: 3 [n_e, F] tensors
//   w2(product)                                        keeps the product for its weight gradient
//   w2 out * routing_weights[top_x, idx, None]         keeps both: [n_e, H] and [n_e, 1]
//   final.index_add_(0, top_x, weighted.to(x.dtype))   keeps its source [n_e, H] (derivatives.yaml:
//                                                      "source.dim() > 0 ? grad.index_select(dim,
//                                                      index).expand_as(source)" references source)
// Measured with torch in tests/data/hf/measure_moe.py: per sample, Mixtral-style (E 4, k 2, H 64, F 96,
// T 16, float32) 75,072 bytes with balanced routing and the same with every token on two experts.
//
// Routing balance. What the loop keeps is the same for any routing (sum of n_e = k T), and so are the
// FLOPs. What depends on the routing is what one expert holds while it runs: the imbalance f
// (LayerContext::moeImbalance; the busiest expert gets f k T / E rows, f from 1 to E / k) scales the
// busiest expert's backward working set, reported as backward scratch together with IndexBackward's
// full-size zero tensor (index_backward(grad.new_zeros(self.sizes()), indices, grad)).
//
// experts_implementation "grouped_mm": transformers 5, where the experts are one module with 3-D weights
// (gate_up_proj [E, 2F, H], down_proj [E, H, F]) and integrations/moe.py's grouped_mm_experts_forward runs
// them (the default on CUDA with PyTorch >= 2.9, PreTrainedModel.get_correct_experts_implementation). The
// routers are TopKRouter modules: F.linear on a gate Parameter, then as above, except that the routing
// weights stay float32 (Mixtral's router returns the renormalised float32 top-k values; Qwen's casts to
// router_logits.dtype after router_logits became the float32 softmax). Per assignment:
//   expert_ids_g, perm = sort(expert_ids)             no grad
//   hidden_states[perm // k]                          the gathered tokens [A, H]; index keeps its int64
//                                                     indices (A)
//   sample_weights[perm]                              keeps perm (A int64); the sorted routing weights
//   x_g.masked_fill_(sentinel_mask, 0)                keeps the [A, 1] bool mask
//   _grouped_mm(x_g.to(W.dtype), W^T, offs)           derivatives.yaml: self kept only for mat2's gradient
//                                                     (x_g, in the weights' dtype, when the experts train),
//                                                     mat2 for self's (a view of the parameter). Not on any
//                                                     autocast list (pytorch/pytorch#174763): it runs in the
//                                                     weights' dtype, float32 under autocast with float32
//                                                     weights, and no half copies of the experts are made
//   gate, up = gate_up.chunk(2); act(gate) * up       SiLU/GELU keep the gate half, the mul the up half:
//                                                     the whole [A, 2F] output; plus the activation [A, F]
//   _grouped_mm(product, W_down^T, offs)              keeps the product [A, F] only when the experts train
//   out * sample_weights_g                            keeps out [A, H] and the sorted weights [A]
//   weighted.masked_fill_(mask); weighted[inv_perm]   the mask again; keeps inv_perm (A int64)
//   .view(T, k, H).sum(1).to(x.dtype)                 keeps nothing (no index_add_: no source kept)
// Measured in tests/data/hf/measure_moe.py ("*_grouped", trained and frozen): a Qwen3-style block (E 8,
// k 2, F 48, H 64, T 16) keeps 42,848 bytes per sample trained and 28,512 frozen. The grouped products
// run over all assignments at once, so the routing changes nothing and the imbalance is ignored.
#include "KindSupport.h"
#include "Kinds.h"
#include "OpTrace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::layers {
namespace {

constexpr std::int64_t kMaxExperts = 1 << 16;
constexpr const char* kLlamaNames = "gate_proj/up_proj/down_proj";
constexpr const char* kMixtralNames = "w1/w3/w2";
constexpr const char* kEager = "eager";
constexpr const char* kGroupedMm = "grouped_mm";

struct ExpertNames
{
    std::string gate; ///< the projection the activation applies to
    std::string up;
    std::string down;
};

ExpertNames expertNames(const std::string& style)
{
    if (style == kMixtralNames)
        return { "w1", "w3", "w2" };
    return { "gate_proj", "up_proj", "down_proj" };
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

/// The routing assumption in the user's terms, for the CLI, the GUI banner and the report.
std::string routingWarning(std::int64_t experts, std::int64_t topK, double imbalance)
{
    const std::string share = std::to_string(topK) + " x T / " + std::to_string(experts) + " tokens";
    const std::string saved = "The saved activations are the same for any routing; ";
    if (imbalance == 1.0)
        return "assumes balanced routing: each of the " + std::to_string(experts) + " experts gets " + share
            + " (T tokens, top-" + std::to_string(topK) + "). " + saved
            + "the busiest expert's backward buffers grow with the MoE imbalance setting.";
    return "assumes the busiest of the " + std::to_string(experts) + " experts gets " + number(imbalance)
        + " x an even share (" + share + "): MoE imbalance " + number(imbalance) + ". " + saved
        + "only that expert's backward buffers grow with the imbalance.";
}

/// grouped_mm's assumption: transformers 5's experts, in the weights' dtype, whatever the routing.
std::string groupedWarning()
{
    return "assumes transformers 5's grouped_mm experts (experts_implementation=\"grouped_mm\", its default "
           "on "
           "CUDA with PyTorch 2.9 or later): one grouped product over every token's top-k experts in the "
           "weights' dtype (float32 under autocast with float32 weights). What they keep does not depend on "
           "the routing, so the MoE imbalance setting changes nothing for this layer.";
}

/// What the router leaves the experts: the routing weights' dtype and the accumulator's.
struct Routing
{
    DType weights = DType::Float32; ///< the routing weights the experts' outputs are multiplied by
    DType combine = DType::Float32; ///< eager: the accumulator the weighted outputs are added into
    Count forwardScratch;
};

/// The sizes every part of the trace reads.
struct MoeSizes
{
    Count h;
    Count f;
    Count e;
    Count k;
    Count tokens;
    Count assignments;
    bool grouped = false;
};

/// The router (the header's "Router" rules), recorded in `trace`.
Routing traceRouter(OpTrace& trace, const LayerContext& ctx, const OpTrace::Tensor& x, const MoeSizes& z)
{
    const DType s = x.dtype;
    const bool sigmoid = ctx.attrs.choice("router") == "sigmoid";
    const bool norm = ctx.attrs.flag("norm_topk_prob");
    Routing r { s, s, {} };
    if (ctx.attrs.real("jitter_noise") > 0.0) // x *= noise: mul_ keeps the noise for x's gradient
        trace.keep(trace.create("router jitter noise", z.tokens * z.h, s));
    if (!sigmoid) {
        const OpTrace::Tensor gateIn = trace.toLowerPrecision(x, "gate input");
        trace.keepForWeightOf(gateIn, "gate");
        trace.keep(trace.create("routing probabilities (float32 softmax)", z.tokens * z.e, DType::Float32));
        trace.keep(trace.create("top-k expert indices", z.tokens * z.k, DType::Int64));
        if (norm) {
            trace.keep(trace.create("top-k routing weights", z.tokens * z.k, DType::Float32));
            trace.keep(trace.create("routing weight sums", z.tokens, DType::Float32));
        }
        r.forwardScratch += z.tokens * z.e * Count { elementSize(gateIn.dtype) }; // the logits
        if (gateIn.dtype != DType::Float32)
            r.forwardScratch
                += z.tokens * z.e * Count { elementSize(DType::Float32) }; // softmax's float32 copy
        if (z.grouped) // transformers 5's routers hand on float32 weights
            r.weights = DType::Float32;
    } else {
        const OpTrace::Tensor x32 = s == DType::Float32
            ? x
            : trace.create("router input (float32 copy)", z.tokens * z.h, DType::Float32);
        const OpTrace::Tensor gateIn = trace.toLowerPrecision(x32, "router input");
        trace.keepForWeightOf(gateIn, "gate");
        if (!isAutocast(ctx.precision) && ctx.parameterType() != DType::Float32)
            trace.keepFixed("router weight (float32 copy)", z.e * z.h, DType::Float32);
        r.weights = gateIn.dtype;
        r.combine = r.weights;
        trace.keep(trace.create("router scores (sigmoid)", z.tokens * z.e, r.weights));
        trace.keep(trace.create("top-k expert indices", z.tokens * z.k, DType::Int64));
        if (norm) {
            trace.keep(trace.create("top-k routing weights", z.tokens * z.k, r.weights));
            trace.keep(trace.create("routing weight sums", z.tokens, r.weights));
        }
        // The logits, and the bias-corrected scores, group mask and masked scores of the choice.
        r.forwardScratch
            += z.tokens * z.e * Count { elementSize(r.weights) + 3 * elementSize(DType::Float32) };
    }
    if (!z.grouped)
        r.forwardScratch
            += z.tokens * z.k * z.e * Count { elementSize(DType::Int64) }; // one_hot(selected_experts)
    return r;
}

/// What the experts add to the layer besides their saved tensors.
struct ExpertsTrace
{
    DType compute = DType::Float32; ///< the dtype the expert projections compute in
    Count forwardScratch;
    Count backwardScratch;
};

/// transformers 4.5x's loop over the experts (the header's "Experts" rules).
ExpertsTrace traceEagerExperts(OpTrace& trace, const LayerContext& ctx, const OpTrace::Tensor& x,
    const MoeSizes& z, const Routing& r, const ExpertNames& names)
{
    const DType s = x.dtype;
    const auto moduleName = [](const std::string& projection) { return "experts.{}." + projection; };
    const OpTrace::Tensor gathered = trace.create("expert inputs (gathered tokens)", z.assignments * z.h, s);
    const OpTrace::Tensor gateIn = trace.toLowerPrecision(gathered, names.gate + " input");
    trace.keepForWeightOf(gateIn, moduleName(names.gate));
    const OpTrace::Tensor upIn = trace.toLowerPrecision(gathered, names.up + " input");
    trace.keepForWeightOf(upIn, moduleName(names.up));
    const DType m = gateIn.dtype;
    const OpTrace::Tensor gateOut = trace.create(names.gate + " outputs", z.assignments * z.f, m);
    const OpTrace::Tensor upOut = trace.create(names.up + " outputs", z.assignments * z.f, m);
    const OpTrace::Tensor activated = trace.create("activation outputs", z.assignments * z.f, m);
    trace.keep(ctx.attrs.choice("activation") == "relu" ? activated : gateOut);
    trace.keep(activated);
    trace.keep(upOut);
    const OpTrace::Tensor product
        = trace.create("activation x " + names.up + " products", z.assignments * z.f, m);
    trace.keepForWeightOf(product, moduleName(names.down));
    trace.keep(trace.create("expert outputs", z.assignments * z.h, m));
    trace.keep(trace.create("routing weights per assignment", z.assignments, r.weights));
    const OpTrace::Tensor weighted
        = trace.create("weighted expert outputs", z.assignments * z.h, promote(m, r.weights));
    const OpTrace::Tensor source = weighted.dtype == r.combine
        ? weighted
        : trace.create("weighted expert outputs (" + std::string(dtypeName(r.combine)) + ")",
            z.assignments * z.h, r.combine);
    trace.keep(source);
    trace.keep(trace.create("slot and token indices", z.assignments * Count { 2 }, DType::Int64));

    // The busiest expert's share of the rows: f k T / E, at most T.
    ExpertsTrace out { m, {}, {} };
    const double busiest = std::ceil(
        ctx.moeImbalance * static_cast<double>(z.assignments.value()) / static_cast<double>(z.e.value()));
    const Count busiestRows { std::min(z.tokens.value(), static_cast<std::uint64_t>(busiest)) };
    if (gateIn.storage != gathered.storage) // autocast: the gathered copy itself is not kept
        out.forwardScratch += busiestRows * z.h * Count { elementSize(s) };
    if (source.storage != weighted.storage)
        out.forwardScratch += busiestRows * z.h * Count { elementSize(weighted.dtype) };
    if (r.combine != s) // DeepSeek's accumulator before .type(x.dtype)
        out.forwardScratch += z.tokens * z.h * Count { elementSize(r.combine) };
    // Backward: IndexBackward's zero tensor of x's size for each expert in turn, and the busiest
    // expert's gradients while its MLP's backward runs: of its output (H), of the product, the
    // activation and the up projection (3 F), and of its gathered input (H).
    out.backwardScratch = z.tokens * z.h * Count { elementSize(s) }
        + busiestRows * (Count { 3 } * z.f + Count { 2 } * z.h) * Count { elementSize(m) };
    return out;
}

/// transformers 5's grouped_mm_experts_forward (the header's "grouped_mm" rules).
ExpertsTrace traceGroupedExperts(OpTrace& trace, const LayerContext& ctx, const OpTrace::Tensor& x,
    const MoeSizes& z, const Routing& r, const ExpertNames& names)
{
    const DType s = x.dtype;
    const DType p = ctx.parameterType(); // _grouped_mm runs in the weights' dtype
    const auto moduleName = [](const std::string& projection) { return "experts.{}." + projection; };
    const Count a = z.assignments;
    trace.keep(trace.create("gather, routing-weight and restore indices", a * Count { 3 }, DType::Int64));
    trace.keep(trace.create("sentinel mask", a, DType::Bool));
    const OpTrace::Tensor gathered = trace.create("expert inputs (gathered tokens, sorted)", a * z.h, s);
    const OpTrace::Tensor cast
        = s == p ? gathered : trace.create("expert inputs (" + std::string(dtypeName(p)) + ")", a * z.h, p);
    trace.keepForWeightOf(cast, moduleName(names.gate));
    trace.keepForWeightOf(cast, moduleName(names.up));
    trace.keep(trace.create("gate_up_proj outputs", a * Count { 2 } * z.f, p));
    trace.keep(trace.create("activation outputs", a * z.f, p));
    trace.keepForWeightOf(trace.create("activation x up products", a * z.f, p), moduleName(names.down));
    trace.keep(trace.create("expert outputs", a * z.h, p));
    trace.keep(trace.create("routing weights per assignment (sorted)", a, r.weights));

    ExpertsTrace out { p, {}, {} };
    const std::uint64_t sp = elementSize(s);
    const std::uint64_t pp = elementSize(p);
    const std::uint64_t w = elementSize(promote(p, r.weights)); // the weighted outputs
    // Forward: the gathered tokens when only their cast is kept, the weighted outputs and their
    // reordered copy (alive together at the indexing), and the per-token sums before .to(x.dtype).
    if (cast.storage != gathered.storage)
        out.forwardScratch += a * z.h * Count { sp };
    out.forwardScratch += Count { 2 } * a * z.h * Count { w };
    if (promote(p, r.weights) != s)
        out.forwardScratch += z.tokens * z.h * Count { w };
    // Backward, all assignments at once (the engine frees each node's input gradient after it runs):
    // the restore and mask backwards hold two [A, H] gradients, the weight mul's backward one more in
    // the weights' dtype, the down projection's backward [A, H] + [A, F], the gated product's three
    // [A, F] and chunk's cat [A, 2F] beside two of them (4F), the gate_up projection's [A, 2F] + [A, H].
    const std::uint64_t hv = z.h.value();
    const std::uint64_t fv = z.f.value();
    const std::uint64_t perRow
        = std::max({ 2 * hv * w, hv * (w + pp), (hv + fv) * pp, 4 * fv * pp, (2 * fv + hv) * pp });
    out.backwardScratch = a * Count { perRow };
    return out;
}

class MixtureOfExpertsKind final : public DescribedKind
{
public:
    MixtureOfExpertsKind()
        : DescribedKind("MixtureOfExperts", LayerCategory::Linear,
            "A router and gated expert MLPs, each token through its top-k experts (Mixtral, Qwen-MoE, "
            "DeepSeek-V3)",
            { [] {
                 AttributeSpec s = intAttr("num_experts", 8, "Routed experts E (each a gated MLP)");
                 s.maxInt = kMaxExperts;
                 return s;
             }(),
                intAttr("num_experts_per_tok", 2, "Experts each token is routed to (top-k)"),
                intAttr("intermediate_size", nullptr, "Each expert's MLP width F"),
                choiceAttr("activation", "silu", { "silu", "gelu", "gelu_tanh", "relu" },
                    "The experts' activation (on the gate projection)"),
                choiceAttr("router", "softmax", { "softmax", "sigmoid" },
                    "softmax: softmax over all experts, then top-k (Mixtral, Qwen-MoE); sigmoid: float32 "
                    "sigmoid scores, bias-corrected group-limited top-k (DeepSeek-V3)"),
                boolAttr("norm_topk_prob", true, "Renormalise the top-k routing weights to sum to 1"),
                choiceAttr("expert_names", kLlamaNames, { kLlamaNames, kMixtralNames },
                    "The experts' projection names (LoRA targets): Qwen and DeepSeek's, or Mixtral's"),
                floatAttr("jitter_noise", 0.0,
                    "Mixtral's router_jitter_noise: multiplies the input by uniform noise in training", 0.0,
                    1.0),
                choiceAttr("experts_implementation", kEager, { kEager, kGroupedMm },
                    "eager: a loop over the experts with index_add_ (transformers 4.5x, or "
                    "experts_implementation="
                    "\"eager\"); grouped_mm: one grouped product over all assignments in the weights' dtype "
                    "(transformers 5's default on CUDA)") })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Custom; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype) || in.shape.rank() == 0)
            return failure("needs a floating-point input [T, hidden]");
        const std::int64_t experts = ctx.attrs.integer("num_experts");
        const std::int64_t topK = ctx.attrs.integer("num_experts_per_tok");
        if (topK > experts)
            return failure("num_experts_per_tok " + std::to_string(topK) + " is more than num_experts "
                + std::to_string(experts) + ": a token is routed to distinct experts");
        const double most = static_cast<double>(experts) / static_cast<double>(topK);
        if (ctx.moeImbalance > most * (1.0 + 1e-12))
            return failure("the MoE imbalance " + number(ctx.moeImbalance)
                + " is more than this layer allows: with " + std::to_string(experts) + " experts and top-"
                + std::to_string(topK) + " the busiest expert gets at most every token, " + number(most)
                + " x an even share");

        const std::int64_t hidden = in.shape.dims.back();
        const std::int64_t width = ctx.attrs.integer("intermediate_size");
        MoeSizes z;
        z.h = Count::fromSigned(hidden);
        z.f = Count::fromSigned(width);
        z.e = Count::fromSigned(experts);
        z.k = Count::fromSigned(topK);
        z.tokens = in.shape.elements().value() == 0 ? Count {}
                                                    : Count { in.shape.elements().value() / z.h.value() };
        z.assignments = z.k * z.tokens;
        z.grouped = ctx.attrs.choice("experts_implementation") == kGroupedMm;
        const ExpertNames names = expertNames(ctx.attrs.choice("expert_names"));

        OpTrace trace { ctx };
        const OpTrace::Tensor x = trace.input(0);
        const Routing routing = traceRouter(trace, ctx, x, z);
        const ExpertsTrace ex = z.grouped ? traceGroupedExperts(trace, ctx, x, z, routing, names)
                                          : traceEagerExperts(trace, ctx, x, z, routing, names);

        LayerOutcome o;
        o.output = in;
        o.saved = trace.saved(trace.create("output", z.tokens * z.h, x.dtype));
        o.forwardScratchBytesPerSample = routing.forwardScratch + ex.forwardScratch;
        o.backwardScratchBytesPerSample = ex.backwardScratch;
        describeModules(o, ctx, z, names, ex.compute);
        o.routedExperts = experts;
        o.expertsPerToken = topK;
        o.warnings.push_back(z.grouped ? groupedWarning() : routingWarning(experts, topK, ctx.moeImbalance));
        return o;
    }

private:
    /// Parameters, the inner Linear modules LoRA and QLoRA see, and FLOPs.
    static void describeModules(
        LayerOutcome& o, const LayerContext& ctx, const MoeSizes& z, const ExpertNames& names, DType compute)
    {
        const bool sigmoid = ctx.attrs.choice("router") == "sigmoid";
        const std::int64_t hidden = static_cast<std::int64_t>(z.h.value());
        const std::int64_t width = ctx.attrs.integer("intermediate_size");
        const std::int64_t experts = ctx.attrs.integer("num_experts");
        const auto moduleName = [](const std::string& projection) { return "experts.{}." + projection; };
        // The router's F.linear is autocast's; the eager loop's expert Linears are too, grouped_mm is not.
        const auto expertWeight = [&](std::string name, Count elements) {
            ParamTensor p
                = z.grouped ? parameter(std::move(name), elements) : castParameter(std::move(name), elements);
            p.routedExpert = true;
            return p;
        };
        o.params.push_back(castParameter("gate.weight", z.e * z.h));
        if (sigmoid)
            o.params.push_back(buffer("gate.e_score_correction_bias", z.e));
        for (std::int64_t i = 0; i < experts; ++i) {
            const std::string prefix = "experts." + std::to_string(i) + ".";
            o.params.push_back(expertWeight(prefix + names.gate + ".weight", z.f * z.h));
            o.params.push_back(expertWeight(prefix + names.up + ".weight", z.f * z.h));
            o.params.push_back(expertWeight(prefix + names.down + ".weight", z.h * z.f));
        }
        const DType s = ctx.in().dtype;
        if (!sigmoid) // DeepSeek-V3's router is a parameter used through F.linear, not an nn.Linear
            o.innerLinears.push_back(InnerLinear { "gate", hidden, experts, 1, z.tokens, s, "gate.weight" });
        for (const auto* projection : { &names.gate, &names.up }) {
            o.innerLinears.push_back(InnerLinear { moduleName(*projection), hidden, width, experts,
                z.assignments, s, moduleName(*projection) + ".weight" });
        }
        o.innerLinears.push_back(InnerLinear { moduleName(names.down), width, hidden, experts, z.assignments,
            compute, moduleName(names.down) + ".weight" });

        // Only the experts a token is routed to run: FLOPs follow the k active experts, not all E.
        const Count router = Count { 2 } * z.tokens * z.h * z.e;
        const Count expertProducts = Count { 6 } * z.assignments * z.h * z.f;
        o.elementwiseFlopsPerSample
            = Count { 5 } * z.tokens * z.e + z.assignments * (Count { 2 } * z.f + Count { 3 } * z.h);
        o.forwardFlopsPerSample = router + expertProducts + o.elementwiseFlopsPerSample;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMixtureOfExperts()
{
    return std::make_unique<MixtureOfExpertsKind>();
}

} // namespace headroom::layers
