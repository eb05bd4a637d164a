// Attention as PyTorch 2.x's exporters write F.scaled_dot_product_attention: its math, q and k^T each
// multiplied by sqrt(scale), MatMul, an optional Add of the mask, Softmax, Dropout (training), MatMul with
// v. The TorchScript exporter writes it so (torch/onnx/symbolic_opset14.py scaled_dot_product_attention:
// query_scaled = Mul(query, Sqrt(scale)), key_transposed_scaled = Mul(key_transposed, Sqrt(scale))), and
// so does the dynamo exporter's decomposition (onnxscript's torchlib aten_scaled_dot_product_attention,
// whose last MatMul it names "node_scaled_dot_product_attention").
//
// The module that was exported did not run that math: on CUDA scaled_dot_product_attention runs the
// flash or memory-efficient kernel, which keeps q, k, v, its output and a logsumexp, and no heads x T x T
// probabilities (derivatives.yaml, _scaled_dot_product_{flash,efficient}_attention). Operator by operator
// the chain would keep the scaled q and k, the probabilities, the dropout mask and the dropped
// probabilities: the math path, 12 % more than PyTorch keeps for ViT-B/16 (docs/memory-model.md).
// Hand-written attention (one operand scaled, or the scores divided after the product; torch 1.13's
// multi_head_attention_forward; nn.MultiheadAttention with need_weights=True) really runs that math, so it
// stays operator by operator, which is exact there.
//
// nn.MultiheadAttention (nn.TransformerEncoderLayer, torchvision's ViT encoder) around the chain comes back
// as one MultiheadAttention layer with need_weights false, its fused-SDPA semantics: the packed
// in-projection ([3E, E] or its transpose [E, 3E], as the dynamo exporter stores it), the views that
// split q, k and v into heads, the chain, the views that merge the heads and the out-projection ([E, E]),
// found from the data flow (the dynamo exporter's node names carry no module scope). Other attention
// from scaled_dot_product_attention stays operator by operator with a warning that it keeps more than
// PyTorch does.
#include "Families.h"

#include <algorithm>
#include <set>

namespace headroom::onnximport::ops {

namespace {

/// `value` = Mul(x, s) or Mul(s, x) with s not computed from the data: x, and what s is (its number, or
/// the value under the Sqrt that the TorchScript exporter computes from q's shape).
std::optional<std::pair<std::string, std::string>> scaledBy(MappingContext& ctx, const std::string& value)
{
    const auto& g = ctx.graph();
    const int p = g.producer(value);
    if (p < 0 || !ctx.isOp(p, "Mul") || ctx.node(p).input_size() != 2)
        return std::nullopt;
    for (int side = 0; side < 2; ++side) {
        const auto& x = ctx.node(p).input(side);
        const auto& s = ctx.node(p).input(1 - side);
        if (!g.carriesData(x) || g.carriesData(s))
            continue;
        if (const auto c = g.constantNumbers(s, 1); c && c->size() == 1)
            return std::make_pair(x, numberText(decimal(static_cast<float>(c->front()))));
        const int sp = g.producer(s);
        if (sp >= 0 && ctx.isOp(sp, "Sqrt"))
            return std::make_pair(x, "sqrt of " + ctx.node(sp).input(0));
    }
    return std::nullopt;
}

bool contains(const std::string& s, const char* part)
{
    return s.find(part) != std::string::npos;
}

/// The view-like operators between the in-projection and the heads, and between the heads and the
/// out-projection.
bool isViewOp(MappingContext& ctx, int i)
{
    for (const char* op :
        { "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Gather", "Slice", "Split", "Identity" }) {
        if (ctx.isOp(i, op))
            return true;
    }
    return false;
}

/// The one node that reads `value`'s data (Shape and Size read only its sizes); -1 for none, several, or
/// a graph output.
int soleDataConsumer(MappingContext& ctx, const std::string& value)
{
    int found = -1;
    if (ctx.graph().isGraphOutput(value))
        return -1;
    for (const int c : ctx.graph().consumers(value)) {
        if (ctx.isOp(c, "Shape") || ctx.isOp(c, "Size"))
            continue;
        if (found >= 0)
            return -1;
        found = c;
    }
    return found;
}

/// The stored [rows, cols] matrix behind `value` (through Transpose and Identity), if it is one.
std::optional<std::vector<std::int64_t>> storedMatrix(MappingContext& ctx, std::string value)
{
    const auto& g = ctx.graph();
    for (int hops = 0; hops < 3 && !g.isInitializer(value); ++hops) {
        const int p = g.producer(value);
        if (p < 0 || !(ctx.isOp(p, "Transpose") || ctx.isOp(p, "Identity")))
            return std::nullopt;
        value = ctx.node(p).input(0);
    }
    const auto* t = g.isInitializer(value) ? g.type(value) : nullptr;
    const auto dims = t ? t->knownDims() : std::nullopt;
    return dims && dims->size() == 2 ? dims : std::nullopt;
}

/// A projection node: MatMul or Gemm of a data tensor by a stored matrix.
std::optional<std::vector<std::int64_t>> projectionWeight(MappingContext& ctx, int i)
{
    if (i < 0 || !(ctx.isOp(i, "MatMul") || ctx.isOp(i, "Gemm")) || ctx.node(i).input_size() < 2
        || ctx.node(i).output_size() < 1 || !ctx.graph().carriesData(ctx.node(i).input(0)))
        return std::nullopt;
    return storedMatrix(ctx, ctx.node(i).input(1));
}

/// Back from `value` through views (and the projection's bias Add) to the projection node; -1 if none.
int projectionBehind(MappingContext& ctx, std::string value)
{
    const auto& g = ctx.graph();
    for (int hops = 0; hops < 16; ++hops) {
        const int p = g.producer(value);
        if (p < 0)
            return -1;
        if (projectionWeight(ctx, p))
            return p;
        if (ctx.isOp(p, "Add") && ctx.node(p).input_size() == 2) {
            const bool first = g.carriesData(ctx.node(p).input(0));
            if (first == g.carriesData(ctx.node(p).input(1)))
                return -1;
            value = ctx.node(p).input(first ? 0 : 1);
            continue;
        }
        if (!isViewOp(ctx, p) || ctx.node(p).input_size() < 1)
            return -1;
        value = ctx.node(p).input(0);
    }
    return -1;
}

/// The nodes on data paths from `x` to `y`, and the needed nodes that only they read (the shape
/// computations of their reshapes).
std::vector<int> nodesBetween(MappingContext& ctx, const std::string& x, const std::string& y)
{
    const auto& g = ctx.graph();
    std::set<int> forward;
    std::vector<std::string> todo { x };
    while (!todo.empty()) {
        const std::string v = todo.back();
        todo.pop_back();
        if (v == y)
            continue;
        for (const int c : g.consumers(v)) {
            if (ctx.needed(c) && forward.insert(c).second)
                todo.insert(todo.end(), ctx.node(c).output().begin(), ctx.node(c).output().end());
        }
    }
    std::set<int> parts;
    todo = { y };
    while (!todo.empty()) {
        const std::string v = todo.back();
        todo.pop_back();
        const int p = v == x ? -1 : g.producer(v);
        if (p >= 0 && forward.count(p) > 0 && parts.insert(p).second)
            todo.insert(todo.end(), ctx.node(p).input().begin(), ctx.node(p).input().end());
    }
    for (bool grew = true; grew;) { // needed nodes whose every output only parts read
        grew = false;
        for (int i = 0; i < ctx.nodeCount(); ++i) {
            if (!ctx.needed(i) || parts.count(i) > 0 || ctx.node(i).output_size() == 0)
                continue;
            bool onlyParts = true;
            for (const auto& o : ctx.node(i).output()) {
                onlyParts = onlyParts && !g.isGraphOutput(o) && !g.consumers(o).empty();
                for (const int c : g.consumers(o))
                    onlyParts = onlyParts && parts.count(c) > 0;
            }
            if (onlyParts && forward.count(i) == 0 && g.producer(x) != i) {
                parts.insert(i);
                grew = true;
            }
        }
    }
    return { parts.begin(), parts.end() };
}

/// The value after the out-projection with x's layout: forward through its bias Add and the views that
/// restore x's axes (the transpose back to batch-first).
std::string outputLike(MappingContext& ctx, int outProj, const std::string& x)
{
    const auto& g = ctx.graph();
    const auto xs = g.perSampleOf(x);
    const auto* xt = g.type(x);
    if (ctx.node(outProj).output_size() < 1)
        return {};
    std::string v = ctx.node(outProj).output(0);
    for (int hops = 0; hops < 8 && xs && xt; ++hops) {
        const int c = soleDataConsumer(ctx, v);
        const bool bias = c >= 0 && ctx.isOp(c, "Add") && !g.carriesData(ctx.otherOperand(ctx.node(c), v));
        const auto* t = g.type(v);
        if (!bias && t && t->rank() == xt->rank() && g.perSampleOf(v) == xs
            && g.batchAxisOf(v) == g.batchAxisOf(x) && !g.batchMergeOf(v).merged())
            return v;
        if (c < 0 || !(bias || isViewOp(ctx, c)) || ctx.node(c).output_size() < 1)
            return {};
        v = ctx.node(c).output(0);
    }
    return {};
}

/// Forward from the attention output through the head-merging views to the out-projection; -1 if none.
int outProjectionAfter(MappingContext& ctx, std::string value)
{
    for (int hops = 0; hops < 8; ++hops) {
        const int c = soleDataConsumer(ctx, value);
        if (c < 0)
            return -1;
        if (projectionWeight(ctx, c))
            return c;
        if (!isViewOp(ctx, c) || ctx.node(c).output_size() < 1)
            return -1;
        value = ctx.node(c).output(0);
    }
    return -1;
}

/// The bias of the projection at `proj`: Gemm's third input, or the Add of a stored vector after it.
bool hasBias(MappingContext& ctx, int proj)
{
    if (ctx.isOp(proj, "Gemm"))
        return ctx.node(proj).input_size() > 2 && !ctx.node(proj).input(2).empty();
    const int c = soleDataConsumer(ctx, ctx.node(proj).output(0));
    return c >= 0 && ctx.isOp(c, "Add")
        && !ctx.graph().carriesData(ctx.otherOperand(ctx.node(c), ctx.node(proj).output(0)));
}

/// The whole nn.MultiheadAttention around `core` as one layer; false when the graph around it is not one.
bool fuseSelfAttentionModule(MappingContext& ctx, const WrittenOutAttention& core)
{
    const auto& g = ctx.graph();
    const int inProj = projectionBehind(ctx, core.q);
    if (inProj < 0 || projectionBehind(ctx, core.k) != inProj || projectionBehind(ctx, core.v) != inProj)
        return false;
    const auto w = projectionWeight(ctx, inProj);
    const std::int64_t embed = std::min((*w)[0], (*w)[1]);
    if (embed <= 0 || std::max((*w)[0], (*w)[1]) != 3 * embed || core.headDim <= 0
        || embed % core.headDim != 0)
        return false;
    const int outProj = outProjectionAfter(ctx, ctx.node(core.values).output(0));
    const auto wo = outProj >= 0 ? projectionWeight(ctx, outProj) : std::nullopt;
    if (!wo || (*wo)[0] != embed || (*wo)[1] != embed)
        return false;
    // torch transposes a batch-first input to [T, B, E] first (multi_head_attention_forward); a
    // sequence-first input has its batch axis second already.
    std::string x = ctx.node(inProj).input(0);
    std::string y;
    const int first = g.producer(x);
    const auto perm
        = first >= 0 && ctx.isOp(first, "Transpose") ? attrInts(ctx.node(first), "perm") : std::nullopt;
    const bool batchFirst = perm && *perm == std::vector<std::int64_t> { 1, 0, 2 }
        && g.batchAxisOf(ctx.node(first).input(0)) == 0
        && !(y = outputLike(ctx, outProj, ctx.node(first).input(0))).empty();
    if (batchFirst)
        x = ctx.node(first).input(0);
    else if (g.batchAxisOf(x) == 1)
        y = outputLike(ctx, outProj, x);
    if (y.empty())
        return false;
    const std::vector<int> parts = nodesBetween(ctx, x, y);
    // One data input and one output used outside: nothing else reads or feeds the module's inside.
    for (const int i : parts) {
        for (const auto& in : ctx.node(i).input()) {
            const int p = in.empty() ? -1 : g.producer(in);
            if (!in.empty() && in != x && g.carriesData(in)
                && std::find(parts.begin(), parts.end(), p) == parts.end())
                return false;
        }
        for (const auto& o : ctx.node(i).output()) {
            for (const int c : g.consumers(o)) {
                if (o != y && ctx.needed(c) && std::find(parts.begin(), parts.end(), c) == parts.end())
                    return false;
            }
            if (o != y && g.isGraphOutput(o))
                return false;
        }
    }
    nlohmann::json a { { "num_heads", embed / core.headDim }, { "need_weights", false } };
    if (batchFirst)
        a["batch_first"] = true;
    if (core.dropout > 0)
        a["dropout"] = core.dropout;
    if (!hasBias(ctx, inProj) && !hasBias(ctx, outProj))
        a["bias"] = false;
    return ctx.fuse(parts, PendingLayer { "MultiheadAttention", a, { x }, y, g.producer(y) });
}

/// The product of two computed tensors behind the scores: through a mask's Add and a scaling by a
/// constant after the product (hand-written attention, which sets `scaledAfter`); -1 if none.
int scoresProduct(MappingContext& ctx, std::string scores, bool& scaledAfter)
{
    const auto& g = ctx.graph();
    for (int hops = 0; hops < 3; ++hops) {
        const int p = g.producer(scores);
        if (p < 0 || ctx.node(p).input_size() != 2)
            return -1;
        const auto& n = ctx.node(p);
        const bool data0 = g.carriesData(n.input(0));
        const bool data1 = g.carriesData(n.input(1));
        if (ctx.isOp(p, "MatMul") && data0 && data1)
            return p;
        if (!(ctx.isOp(p, "Add") || ctx.isOp(p, "Mul") || ctx.isOp(p, "Div")) || !(data0 || data1))
            return -1;
        scaledAfter = scaledAfter || !ctx.isOp(p, "Add");
        // A mask computed from the data (padding from the token ids) is the operand not made by a MatMul.
        const int p0 = g.producer(n.input(0));
        scores = data0 && (!data1 || (p0 >= 0 && ctx.isOp(p0, "MatMul"))) ? n.input(0) : n.input(1);
    }
    return -1;
}

} // namespace

std::optional<WrittenOutAttention> writtenOutAttentionAt(MappingContext& ctx, int softmax)
{
    const auto& g = ctx.graph();
    const auto& sm = ctx.node(softmax);
    if (sm.input_size() < 1 || sm.output_size() < 1)
        return std::nullopt;
    const auto* st = g.type(sm.input(0));
    const auto axis = attrInt(sm, "axis").value_or(-1);
    if (!st || st->rank() < 2 || (axis != -1 && axis != static_cast<std::int64_t>(st->rank()) - 1))
        return std::nullopt;
    WrittenOutAttention a;
    a.softmax = softmax;
    a.product = scoresProduct(ctx, sm.input(0), a.scaledAfter);
    if (a.product < 0)
        return std::nullopt;
    // The probabilities, through Dropout, into the product with v.
    std::string probs = sm.output(0);
    int next = ctx.soleConsumer(probs);
    if (next >= 0 && ctx.isOp(next, "Dropout")) {
        a.dropoutNode = next;
        const auto& d = ctx.node(next);
        const auto r = d.input_size() > 1 && !d.input(1).empty() ? g.constantNumbers(d.input(1), 1)
                                                                 : std::optional<std::vector<double>> {};
        a.dropout = r && r->size() == 1 ? decimal(static_cast<float>(r->front())) : 0.0;
        probs = d.output_size() > 0 ? d.output(0) : std::string();
        next = probs.empty() ? -1 : ctx.soleConsumer(probs);
    }
    if (next < 0 || !ctx.isOp(next, "MatMul") || ctx.node(next).input_size() != 2
        || ctx.node(next).output_size() < 1 || ctx.node(next).input(0) != probs
        || !g.carriesData(ctx.node(next).input(1)))
        return std::nullopt;
    a.values = next;
    a.v = ctx.node(next).input(1);
    const auto& product = ctx.node(a.product);
    const auto q = scaledBy(ctx, product.input(0));
    const auto k = scaledBy(ctx, product.input(1));
    a.q = q ? q->first : product.input(0);
    a.k = k ? k->first : product.input(1);
    // head_dim: the axis the product contracts, q's last (general: [.., T, d] in any head layout).
    const auto qs = g.perSampleOf(product.input(0));
    a.headDim = qs && !qs->empty() ? qs->back() : 0;
    // scaled_dot_product_attention's decomposition scales both operands by the same sqrt(scale).
    a.fromSdpa = (q && k && q->second == k->second && !a.scaledAfter)
        || contains(ctx.node(a.values).name(), "scaled_dot_product_attention");
    return a;
}

void recogniseWrittenOutAttention(MappingContext& ctx, int softmax)
{
    const auto core = writtenOutAttentionAt(ctx, softmax);
    if (!core || !core->fromSdpa || fuseSelfAttentionModule(ctx, *core))
        return;
    ctx.note("Attention written out by an exporter from scaled_dot_product_attention (at "
            + ctx.node(core->values).name()
            + ") is mapped operator by operator, its math path: it keeps the heads x T x T probabilities "
              "that "
              "PyTorch's fused attention kernels on CUDA do not keep, so its activations are an upper bound",
        "written-out-sdpa");
}

} // namespace headroom::onnximport::ops
