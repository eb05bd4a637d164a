// nn.MultiheadAttention as torch.onnx (1.13) writes it in training mode: its whole forward
// (torch/nn/functional.py multi_head_attention_forward, the math path) under the module's scope: the
// packed in-projection MatMul with "<module>.in_proj_weight", q / sqrt(head_dim), MatMul, Softmax,
// Dropout, MatMul, the out-projection Gemm with "<module>.out_proj.weight", and the transposes and
// reshapes between heads and batch. The scope comes back as one MultiheadAttention layer, so what it
// keeps follows the analysis' attention implementation (SDPA or eager), as for a hand-written model:
// the export cannot show need_weights (unused weights are pruned), so it is false. PyTorch 2.x's TorchScript
// exporter writes the same scope with scaled_dot_product_attention's math instead (q and k^T each
// multiplied by Sqrt(scale), the scale computed from q's shape): head_dim is read from the shapes, the
// axis the q k^T product contracts (PatternWrittenOutAttention.cpp), and only failing that from the scale.
#include "Families.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace headroom::onnximport::ops {

namespace {

std::string scopeOf(const std::string& nodeName)
{
    const auto slash = nodeName.rfind('/');
    return nodeName.empty() || nodeName.front() != '/' || slash == std::string::npos || slash == 0
        ? std::string()
        : nodeName.substr(0, slash + 1);
}

bool endsWith(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// The initializer behind a value, through Transpose and Identity nodes.
std::string storedBehind(const OnnxGraph& g, std::string value)
{
    for (int hops = 0; hops < 4; ++hops) {
        if (g.isInitializer(value))
            return value;
        const int p = g.producer(value);
        if (p < 0 || g.graph().node(p).input_size() < 1)
            return {};
        const auto& op = g.graph().node(p).op_type();
        if (op != "Transpose" && op != "Identity")
            return {};
        value = g.graph().node(p).input(0);
    }
    return {};
}

} // namespace

namespace {

/// What a module scope's nodes read, write and hold: its data inputs and outputs (used outside it), the
/// projections' weights by their module names, the dropout, and how many softmaxes and products of
/// computed tensors it has.
struct ScopeSummary
{
    std::vector<int> parts;
    std::set<std::string> inputs, outputs;
    std::string inProj, inBias, outProj;
    double dropout = 0.0;
    int softmaxes = 0, products = 0;
    bool readable = true; ///< false for a Dropout whose ratio is not a stored number
};

std::vector<int> scopeParts(MappingContext& ctx, const std::string& scope)
{
    std::vector<int> parts;
    for (int i = 0; i < ctx.nodeCount(); ++i) {
        if (ctx.needed(i) && ctx.node(i).name().rfind(scope, 0) == 0
            && ctx.node(i).name().find('/', scope.size()) == std::string::npos)
            parts.push_back(i);
    }
    return parts;
}

void summariseNode(MappingContext& ctx, int i, const std::set<std::string>& produced, ScopeSummary& s)
{
    const auto& g = ctx.graph();
    const auto& n = ctx.node(i);
    for (const auto& in : n.input()) {
        if (!in.empty() && g.carriesData(in) && produced.count(in) == 0)
            s.inputs.insert(in);
        const std::string stored = in.empty() ? std::string() : storedBehind(g, in);
        if (endsWith(stored, ".in_proj_weight"))
            s.inProj = stored;
        else if (endsWith(stored, ".in_proj_bias"))
            s.inBias = stored;
        else if (endsWith(stored, ".out_proj.weight"))
            s.outProj = stored;
    }
    for (const auto& o : n.output()) {
        bool usedOutside = g.isGraphOutput(o);
        for (const int c : g.consumers(o))
            usedOutside = usedOutside
                || (ctx.needed(c) && std::find(s.parts.begin(), s.parts.end(), c) == s.parts.end());
        if (usedOutside)
            s.outputs.insert(o);
    }
    s.softmaxes += ctx.isOp(i, "Softmax") ? 1 : 0;
    s.products += ctx.isOp(i, "MatMul") && g.carriesData(n.input(0)) && n.input_size() == 2
            && g.carriesData(n.input(1))
        ? 1
        : 0;
    if (ctx.isOp(i, "Dropout") && n.input_size() > 1) {
        const auto r = g.constantNumbers(n.input(1), 1);
        if (!r || r->size() != 1)
            s.readable = false;
        else
            s.dropout = decimal(static_cast<float>(r->front()));
    }
}

ScopeSummary summariseScope(MappingContext& ctx, const std::string& scope)
{
    ScopeSummary s;
    s.parts = scopeParts(ctx, scope);
    std::set<std::string> produced;
    for (const int i : s.parts)
        produced.insert(ctx.node(i).output().begin(), ctx.node(i).output().end());
    for (const int i : s.parts)
        summariseNode(ctx, i, produced, s);
    return s;
}

/// head_dim from q's scaling by 1 / sqrt(head_dim) (a Div by the constant sqrt(head_dim), or a Mul by its
/// inverse); 0 when there is none.
std::int64_t headDimOf(MappingContext& ctx, const std::vector<int>& parts, std::int64_t embed)
{
    const auto& g = ctx.graph();
    std::int64_t headDim = 0;
    for (const int i : parts) {
        const auto& n = ctx.node(i);
        if (n.input_size() != 2 || !(ctx.isOp(i, "Div") || ctx.isOp(i, "Mul")))
            continue;
        const auto c = g.constantNumbers(n.input(1), 1);
        if (!c || c->size() != 1 || !(c->front() > 0) || !g.carriesData(n.input(0)))
            continue;
        const double root = ctx.isOp(i, "Div") ? c->front() : 1.0 / c->front();
        const auto d = static_cast<std::int64_t>(std::llround(root * root));
        if (d >= 1 && d <= embed && embed % d == 0 && near(root * root, static_cast<double>(d)))
            headDim = d;
    }
    return headDim;
}

} // namespace

void recogniseMultiheadAttention(MappingContext& ctx, int softmax)
{
    const auto& g = ctx.graph();
    const std::string scope = scopeOf(ctx.node(softmax).name());
    if (scope.empty())
        return;
    // Exactly one data input and one data output; the projections' weights by their module names.
    const ScopeSummary s = summariseScope(ctx, scope);
    if (!s.readable || s.inputs.size() != 1 || s.outputs.size() != 1 || s.softmaxes != 1 || s.products != 2
        || s.inProj.empty() || s.outProj.empty())
        return;
    const std::string x = *s.inputs.begin();
    const std::string y = *s.outputs.begin();
    const auto* w = g.type(s.inProj);
    const auto wd = w ? w->knownDims() : std::nullopt;
    const auto* xt = g.type(x);
    const auto* yt = g.type(y);
    const auto xs = g.perSampleOf(x);
    const auto ys = g.perSampleOf(y);
    if (!wd || wd->size() != 2 || (*wd)[0] != 3 * (*wd)[1] || !xt || !yt || xt->rank() != 3 || !ys || !xs
        || xs->back() != (*wd)[1] || *xs != *ys || g.batchAxisOf(x) != g.batchAxisOf(y))
        return;
    const std::int64_t embed = (*wd)[1];
    // head_dim from the product's shapes (the axis it contracts), else from q's scaling.
    const auto core = writtenOutAttentionAt(ctx, softmax);
    const std::int64_t headDim = core && core->headDim > 0 && embed > 0 && embed % core->headDim == 0
        ? core->headDim
        : headDimOf(ctx, s.parts, embed);
    if (headDim == 0)
        return;
    // torch transposes a batch-first input to [T, B, E] first; without batch_first the input is
    // sequence-first already, its batch axis second.
    const bool sequenceFirst = g.batchAxisOf(x) == 1;
    const int first = g.consumers(x).empty() ? -1 : g.consumers(x).front();
    const auto perm
        = first >= 0 && ctx.isOp(first, "Transpose") ? attrInts(ctx.node(first), "perm") : std::nullopt;
    if (!sequenceFirst && (!perm || *perm != std::vector<std::int64_t> { 1, 0, 2 }))
        return;
    nlohmann::json a { { "num_heads", embed / headDim }, { "need_weights", false } };
    if (!sequenceFirst)
        a["batch_first"] = true;
    if (s.dropout > 0)
        a["dropout"] = s.dropout;
    if (s.inBias.empty())
        a["bias"] = false;
    const int last = g.producer(y);
    if (std::find(s.parts.begin(), s.parts.end(), last) == s.parts.end())
        return;
    // The layer is named after the module's scope: its last node stands for it.
    ctx.fuse(s.parts, PendingLayer { "MultiheadAttention", a, { x }, y, last });
}

} // namespace headroom::onnximport::ops
