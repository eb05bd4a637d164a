// Flatten, and Reshape / Squeeze / Unsqueeze that keep the batch axis: Flatten, Identity or Reshape.
#include "Families.h"
#include "headroom/model/Shape.h"

#include <algorithm>
#include <limits>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void flatten(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const std::int64_t given = attrInt(n, "axis").value_or(1);
    std::int64_t axis = given;
    if (axis < 0 || axis > 1) {
        const auto rank = ctx.rankOf(i, n.input(0));
        if (!rank)
            return;
        // ONNX: axis in [-r, r]; a negative one counts from the end.
        const auto r = static_cast<std::int64_t>(*rank);
        if (given < -r || given > r) {
            ctx.reject(i,
                "its axis " + std::to_string(given) + " is out of range for a rank-" + std::to_string(r)
                    + " input (from -" + std::to_string(r) + " to " + std::to_string(r) + ")");
            return;
        }
        if (axis < 0)
            axis += r;
    }
    if (axis != 1) {
        ctx.reject(i,
            axis == 0 ? "axis " + std::to_string(given) + " merges the batch axis into the features"
                      : "axis " + std::to_string(given) + " folds feature axes into the batch axis");
        return;
    }
    ctx.emit(i, "Flatten");
}

/// What a Reshape produces per sample, worked out from its target shape when shape inference left
/// it open (a symbolic batch times -1 has no number).
std::optional<std::vector<std::int64_t>> reshapeTarget(
    const MappingContext& ctx, int i, const std::vector<std::int64_t>& in)
{
    const auto& n = ctx.node(i);
    if (n.input_size() < 2)
        return std::nullopt;
    const auto target = ctx.graph().shapeTensor(n.input(1));
    const auto* inType = ctx.graph().type(n.input(0));
    if (!target || target->empty() || inType == nullptr || inType->dims.empty())
        return std::nullopt;
    const bool allowZero = attrInt(n, "allowzero").value_or(0) != 0;
    const Dim& batch = inType->dims.front();
    const Dim& first = target->front();
    const bool firstIsBatch = (!first.symbol.empty() && first.symbol == batch.symbol)
        || (first.known() && *first.value == 0 && !allowZero)
        || (first.known() && batch.known() && *first.value == *batch.value);
    const bool firstInferred = first.known() && *first.value == -1;
    if (!firstIsBatch && !firstInferred)
        return std::nullopt;
    std::int64_t inElements = 1;
    for (const auto d : in)
        inElements *= d;
    std::vector<std::int64_t> out;
    std::optional<std::size_t> inferred;
    std::int64_t product = 1;
    for (std::size_t k = 1; k < target->size(); ++k) {
        const Dim& d = (*target)[k];
        if (!d.known())
            return std::nullopt;
        std::int64_t v = *d.value;
        if (v == 0 && !allowZero) {
            if (k - 1 >= in.size())
                return std::nullopt;
            v = in[k - 1];
        }
        if (v == -1) {
            if (inferred || firstInferred)
                return std::nullopt;
            inferred = out.size();
            out.push_back(1);
            continue;
        }
        if (v < 1 || v > kMaxDimension)
            return std::nullopt;
        product *= v;
        if (product > inElements)
            return std::nullopt;
        out.push_back(v);
    }
    if (inferred) {
        if (inElements % product != 0)
            return std::nullopt;
        out[*inferred] = inElements / product;
    }
    return out;
}

/// A reshape keeps Headroom's batch axis an axis of its own when as many values of each sample come before
/// it in the result as in the input: [B, 12, T, d] -> [12*batch, T, d] is the same per-sample [12, T, d];
/// [T, B, 512] -> [T, 8*batch, 64] is T x B x 8 x 64 (OnnxGraph::batchMergeOf); [T, B, 3, E] -> [1, T, B,
/// 3, E] moves it one axis on. Anything else mixes the batch with values of each sample: refused by name.
bool mixesBatchAxis(
    MappingContext& ctx, int i, const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& out)
{
    const auto& g = ctx.graph();
    const auto& n = ctx.node(i);
    const std::size_t from = g.wholeBatchAxisOf(n.input(0));
    const std::size_t to = g.wholeBatchAxisOf(n.output(0));
    const auto before = [](const std::vector<std::int64_t>& d, std::size_t axis) {
        std::int64_t product = 1;
        for (std::size_t k = 0; k < axis && k < d.size(); ++k) {
            if (__builtin_mul_overflow(product, d[k], &product))
                return std::int64_t { -1 };
        }
        return axis <= d.size() ? product : std::int64_t { -1 };
    };
    if (before(in, from) >= 0 && before(in, from) == before(out, to))
        return false;
    ctx.reject(i,
        "it turns " + describe(g.type(n.input(0))) + " into " + describe(g.type(n.output(0)))
            + ", mixing the batch axis with values of each sample (Headroom reads them as "
            + headroom::Shape { in }.toBatchedString(from) + " and "
            + headroom::Shape { out }.toBatchedString(to) + ")");
    return true;
}

/// The Flatten(start_dim = s + 1, end_dim = e + 1) that turns `in` into `out` by merging per-sample axes
/// s..e, if one does.
std::optional<json> flattenOf(const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& out)
{
    for (std::size_t s = 0; s < in.size(); ++s) {
        for (std::size_t e = in.size(); e-- > s;) {
            std::vector<std::int64_t> merged(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(s));
            std::int64_t m = 1;
            for (std::size_t k = s; k <= e; ++k)
                m *= in[k];
            merged.push_back(m);
            merged.insert(merged.end(), in.begin() + static_cast<std::ptrdiff_t>(e + 1), in.end());
            if (merged != out)
                continue;
            json a = json::object();
            if (s != 0)
                a["start_dim"] = static_cast<std::int64_t>(s + 1);
            if (e + 1 != in.size())
                a["end_dim"] = static_cast<std::int64_t>(e + 1);
            return a;
        }
    }
    return std::nullopt;
}

/// `value` through the nodes that only relabel a small integer tensor's axes (Unsqueeze, Squeeze, Cast,
/// Reshape, Identity): the node that computed its values, or -1.
int valuesProducer(const OnnxGraph& g, const std::string& value)
{
    std::string v = value;
    for (int depth = 0; depth < 8; ++depth) {
        const int p = g.producer(v);
        if (p < 0)
            return -1;
        const auto& op = g.graph().node(p).op_type();
        if (op != "Unsqueeze" && op != "Squeeze" && op != "Cast" && op != "Reshape" && op != "Identity")
            return p;
        if (g.graph().node(p).input_size() < 1)
            return -1;
        v = g.graph().node(p).input(0);
    }
    return -1;
}

/// Whether `term` is Range(0, batch, 1) x `stride` (any relabelling of its axes around the Range and the
/// Mul): the start of each sample's values in the input flattened to one axis.
bool isSampleStarts(const MappingContext& ctx, const std::string& term, std::int64_t stride)
{
    const auto& g = ctx.graph();
    const int mul = valuesProducer(g, term);
    if (!ctx.isOp(mul, "Mul") || ctx.node(mul).input_size() != 2)
        return false;
    const auto& m = ctx.node(mul);
    for (int k = 0; k < 2; ++k) {
        const int range = valuesProducer(g, m.input(k));
        if (!ctx.isOp(range, "Range") || ctx.node(range).input_size() != 3
            || !ctx.isConstant(m.input(1 - k), static_cast<double>(stride)))
            continue;
        const auto& r = ctx.node(range);
        const auto limit = g.shapeTensor(r.input(1));
        if (ctx.isConstant(r.input(0), 0) && ctx.isConstant(r.input(2), 1) && limit && limit->size() == 1
            && batchMultiple(limit->front(), g.batchSymbol()) == 1)
            return true;
    }
    return false;
}

/// torch's as_strided as the dynamo exporter writes it when the result keeps each sample's values
/// (ConvNeXt's head): the input flattened to one axis (Reshape to [-1]), then a Gather of indices that
/// are Range(batch) x (values per sample) plus stored offsets of one sample, broadcast over the batch.
/// Each sample reads only its own values, as a view (as_strided saves nothing for backward,
/// derivatives.yaml), so the pair is a Reshape to the indices' shape, or an Identity when that is the
/// input's. Returns whether the pair was taken.
bool asStridedView(MappingContext& ctx, int i, const std::vector<std::int64_t>& in)
{
    const auto& g = ctx.graph();
    const auto& n = ctx.node(i);
    const auto target = n.input_size() == 2 ? g.foldIntegers(n.input(1)) : std::nullopt;
    const int gather = ctx.soleConsumer(n.output(0));
    if (!target || target->data != std::vector<std::int64_t> { -1 } || !ctx.isOp(gather, "Gather")
        || ctx.node(gather).input_size() != 2 || ctx.node(gather).input(0) != n.output(0)
        || attrInt(ctx.node(gather), "axis").value_or(0) != 0)
        return false;
    const auto out = g.perSampleOf(ctx.node(gather).output(0));
    const auto elements = [](const std::vector<std::int64_t>& dims) {
        std::int64_t e = 1;
        for (const auto d : dims) {
            if (d < 0 || __builtin_mul_overflow(e, d, &e))
                return std::int64_t { -1 };
        }
        return e;
    };
    const std::int64_t perSample = elements(in);
    if (!out || perSample < 1 || elements(*out) != perSample
        || g.wholeBatchAxisOf(ctx.node(gather).output(0)) != 0)
        return false;
    // The indices: a sum of terms, exactly one of them the samples' starts, the others stored offsets
    // without a batch axis of their own (their first axis 1, broadcast).
    std::vector<std::string> work { ctx.node(gather).input(1) };
    int starts = 0;
    for (int steps = 0; !work.empty() && steps < 16; ++steps) {
        const std::string v = work.back();
        work.pop_back();
        const int p = g.producer(v);
        if (ctx.isOp(p, "Add") && ctx.node(p).input_size() == 2) {
            work.push_back(ctx.node(p).input(0));
            work.push_back(ctx.node(p).input(1));
        } else if (isSampleStarts(ctx, v, perSample)) {
            ++starts;
        } else {
            const auto* t = g.type(v);
            if (g.isDynamic(v) || t == nullptr || !t->hasShape || t->dims.empty() || !t->dims.front().known()
                || *t->dims.front().value != 1)
                return false;
        }
    }
    if (!work.empty() || starts != 1)
        return false;
    const int last = gather;
    if (*out == in)
        return ctx.fuse({ i, last },
            PendingLayer { "Identity", json::object(), { n.input(0) }, ctx.node(last).output(0), last });
    return ctx.fuse({ i, last },
        PendingLayer {
            "Reshape", json { { "shape", *out } }, { n.input(0) }, ctx.node(last).output(0), last });
}

/// Reshape, Squeeze and Unsqueeze keep the batch axis and, to have a Headroom layer, merge one run of
/// adjacent axes (Flatten) or change nothing (Identity).
void reshape(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto in = ctx.perSampleOf(i, n.input(0));
    if (!in)
        return;
    if (ctx.graph().type(n.output(0)) == nullptr) { // ONNX could not infer the node at all
        ctx.missing(i, n.output(0));
        return;
    }
    auto out = ctx.graph().perSampleOf(n.output(0));
    if (!out && n.op_type() == "Reshape")
        out = reshapeTarget(ctx, i, *in);
    if (!out) {
        ctx.missing(i, n.output(0));
        return;
    }
    const std::size_t batchAxis = ctx.graph().wholeBatchAxisOf(n.input(0));
    const std::size_t outAxis = ctx.graph().wholeBatchAxisOf(n.output(0));
    if (out->empty() && batchAxis == 0 && n.op_type() == "Reshape" && asStridedView(ctx, i, *in))
        return;
    if (!out->empty() && mixesBatchAxis(ctx, i, *in, *out))
        return;
    const auto elements = [](const std::vector<std::int64_t>& v) {
        std::int64_t e = 1;
        for (const auto d : v) {
            if (d < 0 || (d > 0 && e > std::numeric_limits<std::int64_t>::max() / d))
                return std::int64_t { -1 };
            e *= d;
        }
        return e;
    };
    if (out->empty()) {
        ctx.reject(i,
            "it merges the batch axis and the " + joinDims(*in)
                + " of each sample into one axis; Headroom keeps the batch axis first and separate");
        return;
    }
    if (elements(*in) < 0 || elements(*in) != elements(*out)) {
        ctx.reject(i,
            "it turns " + joinDims(*in) + " per sample into " + joinDims(*out)
                + ", changing the batch axis, which Headroom keeps first and separate");
        return;
    }
    if (*in == *out && batchAxis == outAxis) {
        ctx.emit(i, "Identity");
        return;
    }
    if (batchAxis == 0 && outAxis == 0) {
        if (const auto a = flattenOf(*in, *out)) {
            ctx.emit(i, "Flatten", *a);
            return;
        }
    }
    // Anything else: Tensor.reshape, a view or (on a non-contiguous input) a new copy.
    json a { { "shape", *out } };
    if (outAxis != batchAxis)
        a["batch_axis"] = outAxis;
    ctx.emit(i, "Reshape", a);
}

} // namespace

void addReshape(Operators& table)
{
    table.push_back({ "Flatten", &flatten });
    table.push_back({ "Reshape", &reshape });
    table.push_back({ "Squeeze", &reshape });
    table.push_back({ "Unsqueeze", &reshape });
}

} // namespace headroom::onnximport::ops
