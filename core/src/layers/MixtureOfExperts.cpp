// MixtureOfExperts: a router and E gated expert MLPs of which each token uses k, as Hugging Face
// transformers (4.5x) runs them in MixtralSparseMoeBlock (modeling_mixtral.py), Qwen2MoeSparseMoeBlock /
// Qwen3MoeSparseMoeBlock without their shared expert (modeling_qwen2_moe.py, modeling_qwen3_moe.py; the
// shared expert and its gate are ordinary layers beside this one) and DeepseekV3MoE's routed experts
// (modeling_deepseek_v3.py). Input and output [T, H].
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
//                                                      then runs in the scores' dtype (float32 unless autocast)
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

struct ExpertNames {
    std::string gate; ///< the projection the activation applies to
    std::string up;
    std::string down;
};

ExpertNames expertNames(const std::string& style)
{
    if (style == kMixtralNames)
        return {"w1", "w3", "w2"};
    return {"gate_proj", "up_proj", "down_proj"};
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

class MixtureOfExpertsKind final : public DescribedKind {
public:
    MixtureOfExpertsKind()
        : DescribedKind("MixtureOfExperts", LayerCategory::Linear,
            "A router and gated expert MLPs, each token through its top-k experts (Mixtral, Qwen-MoE, DeepSeek-V3)",
            {[] {
                 AttributeSpec s = intAttr("num_experts", 8, "Routed experts E (each a gated MLP)");
                 s.maxInt = kMaxExperts;
                 return s;
             }(),
                intAttr("num_experts_per_tok", 2, "Experts each token is routed to (top-k)"),
                intAttr("intermediate_size", nullptr, "Each expert's MLP width F"),
                choiceAttr("activation", "silu", {"silu", "gelu", "gelu_tanh", "relu"},
                    "The experts' activation (on the gate projection)"),
                choiceAttr("router", "softmax", {"softmax", "sigmoid"},
                    "softmax: softmax over all experts, then top-k (Mixtral, Qwen-MoE); sigmoid: float32 "
                    "sigmoid scores, bias-corrected group-limited top-k (DeepSeek-V3)"),
                boolAttr("norm_topk_prob", true, "Renormalise the top-k routing weights to sum to 1"),
                choiceAttr("expert_names", kLlamaNames, {kLlamaNames, kMixtralNames},
                    "The experts' projection names (LoRA targets): Qwen and DeepSeek's, or Mixtral's"),
                floatAttr("jitter_noise", 0.0,
                    "Mixtral's router_jitter_noise: multiplies the input by uniform noise in training", 0.0, 1.0)})
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
        const std::int64_t width = ctx.attrs.integer("intermediate_size");
        if (topK > experts)
            return failure("num_experts_per_tok " + std::to_string(topK) + " is more than num_experts "
                + std::to_string(experts) + ": a token is routed to distinct experts");
        const double imbalance = ctx.moeImbalance;
        const double most = static_cast<double>(experts) / static_cast<double>(topK);
        if (imbalance > most * (1.0 + 1e-12))
            return failure("the MoE imbalance " + number(imbalance) + " is more than this layer allows: with "
                + std::to_string(experts) + " experts and top-" + std::to_string(topK)
                + " the busiest expert gets at most every token, " + number(most) + " x an even share");

        const std::int64_t hidden = in.shape.dims.back();
        const Count h = Count::fromSigned(hidden);
        const Count f = Count::fromSigned(width);
        const Count e = Count::fromSigned(experts);
        const Count k = Count::fromSigned(topK);
        const Count tokens = in.shape.elements().value() == 0 ? Count{} : Count{in.shape.elements().value() / h.value()};
        const Count assignments = k * tokens;
        const bool sigmoid = ctx.attrs.choice("router") == "sigmoid";
        const bool norm = ctx.attrs.flag("norm_topk_prob");
        const ExpertNames names = expertNames(ctx.attrs.choice("expert_names"));
        const auto moduleName = [](const std::string& projection) { return "experts.{}." + projection; };

        OpTrace trace{ctx};
        const OpTrace::Tensor x = trace.input(0);
        const DType s = x.dtype;
        Count forwardScratch;

        // The router.
        if (ctx.attrs.real("jitter_noise") > 0.0) // x *= noise: mul_ keeps the noise for x's gradient
            trace.keep(trace.create("router jitter noise", tokens * h, s));
        DType routeType = s;    // the routing weights the experts' outputs are multiplied by
        DType combineType = s;  // the accumulator the weighted outputs are added into
        if (!sigmoid) {
            const OpTrace::Tensor gateIn = trace.toLowerPrecision(x, "gate input");
            trace.keepForWeightOf(gateIn, "gate");
            trace.keep(trace.create("routing probabilities (float32 softmax)", tokens * e, DType::Float32));
            trace.keep(trace.create("top-k expert indices", tokens * k, DType::Int64));
            if (norm) {
                trace.keep(trace.create("top-k routing weights", tokens * k, DType::Float32));
                trace.keep(trace.create("routing weight sums", tokens, DType::Float32));
            }
            forwardScratch += tokens * e * Count{elementSize(gateIn.dtype)}; // the logits the block returns
            if (gateIn.dtype != DType::Float32)
                forwardScratch += tokens * e * Count{elementSize(DType::Float32)}; // softmax's float32 copy
        } else {
            const OpTrace::Tensor x32
                = s == DType::Float32 ? x : trace.create("router input (float32 copy)", tokens * h, DType::Float32);
            const OpTrace::Tensor gateIn = trace.toLowerPrecision(x32, "router input");
            trace.keepForWeightOf(gateIn, "gate");
            if (!isAutocast(ctx.precision) && ctx.parameterType() != DType::Float32)
                trace.keepFixed("router weight (float32 copy)", e * h, DType::Float32);
            routeType = gateIn.dtype;
            combineType = routeType;
            trace.keep(trace.create("router scores (sigmoid)", tokens * e, routeType));
            trace.keep(trace.create("top-k expert indices", tokens * k, DType::Int64));
            if (norm) {
                trace.keep(trace.create("top-k routing weights", tokens * k, routeType));
                trace.keep(trace.create("routing weight sums", tokens, routeType));
            }
            // The logits, and get_topk_indices' bias-corrected scores, group mask and masked scores.
            forwardScratch += tokens * e * Count{elementSize(routeType) + 3 * elementSize(DType::Float32)};
        }
        forwardScratch += tokens * k * e * Count{elementSize(DType::Int64)}; // one_hot(selected_experts)

        // The experts, all assignments together.
        const OpTrace::Tensor gathered = trace.create("expert inputs (gathered tokens)", assignments * h, s);
        const OpTrace::Tensor gateIn = trace.toLowerPrecision(gathered, names.gate + " input");
        trace.keepForWeightOf(gateIn, moduleName(names.gate));
        const OpTrace::Tensor upIn = trace.toLowerPrecision(gathered, names.up + " input");
        trace.keepForWeightOf(upIn, moduleName(names.up));
        const DType m = gateIn.dtype;
        const OpTrace::Tensor gateOut = trace.create(names.gate + " outputs", assignments * f, m);
        const OpTrace::Tensor upOut = trace.create(names.up + " outputs", assignments * f, m);
        const OpTrace::Tensor activated = trace.create("activation outputs", assignments * f, m);
        trace.keep(ctx.attrs.choice("activation") == "relu" ? activated : gateOut);
        trace.keep(activated);
        trace.keep(upOut);
        const OpTrace::Tensor product = trace.create("activation x " + names.up + " products", assignments * f, m);
        trace.keepForWeightOf(product, moduleName(names.down));
        trace.keep(trace.create("expert outputs", assignments * h, m));
        trace.keep(trace.create("routing weights per assignment", assignments, routeType));
        const OpTrace::Tensor weighted = trace.create("weighted expert outputs", assignments * h, promote(m, routeType));
        const OpTrace::Tensor source = weighted.dtype == combineType
            ? weighted
            : trace.create("weighted expert outputs (" + std::string(dtypeName(combineType)) + ")", assignments * h,
                combineType);
        trace.keep(source);
        trace.keep(trace.create("slot and token indices", assignments * Count{2}, DType::Int64));

        // The busiest expert's share of the rows: f k T / E, at most T.
        const double busiest = std::ceil(imbalance * static_cast<double>(assignments.value()) / static_cast<double>(experts));
        const Count busiestRows{std::min(tokens.value(), static_cast<std::uint64_t>(busiest))};
        if (gateIn.storage != gathered.storage) // autocast: the gathered copy itself is not kept
            forwardScratch += busiestRows * h * Count{elementSize(s)};
        if (source.storage != weighted.storage)
            forwardScratch += busiestRows * h * Count{elementSize(weighted.dtype)};
        if (combineType != s) // DeepSeek's accumulator before .type(x.dtype)
            forwardScratch += tokens * h * Count{elementSize(combineType)};

        LayerOutcome o;
        o.output = in;
        o.saved = trace.saved(trace.create("output", tokens * h, s));
        o.forwardScratchBytesPerSample = forwardScratch;
        // Backward: IndexBackward's zero tensor of x's size for each expert in turn, and the busiest
        // expert's gradients while its MLP's backward runs: of its output (H), of the product, the
        // activation and the up projection (3 F), and of its gathered input (H).
        o.backwardScratchBytesPerSample = tokens * h * Count{elementSize(s)}
            + busiestRows * (Count{3} * f + Count{2} * h) * Count{elementSize(m)};

        o.params.push_back(castParameter("gate.weight", e * h));
        if (sigmoid)
            o.params.push_back(buffer("gate.e_score_correction_bias", e));
        for (std::int64_t i = 0; i < experts; ++i) {
            const std::string prefix = "experts." + std::to_string(i) + ".";
            o.params.push_back(castParameter(prefix + names.gate + ".weight", f * h));
            o.params.push_back(castParameter(prefix + names.up + ".weight", f * h));
            o.params.push_back(castParameter(prefix + names.down + ".weight", h * f));
        }
        if (!sigmoid) // DeepSeek-V3's router is a parameter used through F.linear, not an nn.Linear
            o.innerLinears.push_back(InnerLinear{"gate", hidden, experts, 1, tokens, s, "gate.weight"});
        for (const auto* projection : {&names.gate, &names.up}) {
            o.innerLinears.push_back(InnerLinear{moduleName(*projection), hidden, width, experts, assignments, s,
                moduleName(*projection) + ".weight"});
        }
        o.innerLinears.push_back(InnerLinear{moduleName(names.down), width, hidden, experts, assignments, m,
            moduleName(names.down) + ".weight"});

        // Only the experts a token is routed to run: FLOPs follow the k active experts, not all E.
        const Count router = Count{2} * tokens * h * e;
        const Count expertProducts = Count{6} * assignments * h * f;
        o.elementwiseFlopsPerSample = Count{5} * tokens * e + assignments * (Count{2} * f + Count{3} * h);
        o.forwardFlopsPerSample = router + expertProducts + o.elementwiseFlopsPerSample;
        o.warnings.push_back(routingWarning(experts, topK, imbalance));
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMixtureOfExperts()
{
    return std::make_unique<MixtureOfExpertsKind>();
}

} // namespace headroom::layers
