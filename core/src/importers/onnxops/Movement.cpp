// Shape and data movement: Transpose -> Permute, Slice -> Slice (one per sliced axis), Split -> one
// Narrow per output (torch.split / chunk return views; Headroom's kinds have one output each, and a
// Narrow keeps exactly what each view of a split keeps: nothing), Expand -> Expand, Pad -> Pad,
// Resize / Upsample -> Upsample, DepthToSpace / SpaceToDepth -> PixelShuffle / PixelUnshuffle.
// Every axis number here counts the whole tensor's axes, the batch axis among them, as ONNX's and the
// kinds' do.
#include "Families.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

/// A list of integers from an attribute (older opsets) or from a constant input (newer ones).
std::optional<std::vector<std::int64_t>> intsFrom(
    MappingContext& ctx, int i, const char* attribute, int input, std::size_t maxElements = 64)
{
    const auto& n = ctx.node(i);
    if (auto a = attrInts(n, attribute))
        return a;
    if (n.input_size() <= input || n.input(input).empty())
        return std::nullopt;
    const auto v = ctx.graph().constantNumbers(n.input(input), maxElements);
    if (!v) {
        ctx.refuse(i, std::string("its ") + attribute + " are computed at run time");
        return std::nullopt;
    }
    std::vector<std::int64_t> out;
    for (const double d : *v) {
        const auto k = saturatedInteger(d); // INT64_MAX ("to the end") reads back just past the range
        if (!k) {
            ctx.reject(i, std::string("its ") + attribute + " are not numbers");
            return std::nullopt;
        }
        out.push_back(*k);
    }
    return out;
}

/// The perm over the whole tensor as Headroom reads it: a batch axis merged with values of each sample
/// (OnnxGraph::batchMergeOf, [12*batch, T, d]) is up to three axes (outer values, the batch axis, inner
/// values), which move together.
std::vector<std::int64_t> wholePerm(
    const OnnxGraph& g, const std::string& value, const std::vector<std::int64_t>& perm)
{
    const BatchMerge merge = g.batchMergeOf(value);
    if (!merge.merged())
        return perm;
    const auto merged = static_cast<std::int64_t>(g.batchAxisOf(value));
    const auto extra = static_cast<std::int64_t>(merge.axes()) - 1;
    std::vector<std::int64_t> out;
    for (const auto p : perm) {
        out.push_back(p > merged ? p + extra : p);
        for (std::int64_t k = 1; p == merged && k <= extra; ++k)
            out.push_back(p + k);
    }
    return out;
}

void transpose(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    std::vector<std::int64_t> perm;
    if (const auto p = attrInts(n, "perm"))
        perm = *p;
    else
        for (std::size_t k = *rank; k-- > 0;)
            perm.push_back(static_cast<std::int64_t>(k)); // ONNX's default reverses the axes
    if (perm.size() != *rank) {
        ctx.reject(i, "its perm " + joinDims(perm) + " does not list the " + std::to_string(*rank) + " axes");
        return;
    }
    // A perm that moves the batch axis gives a tensor whose batch axis is elsewhere (a sequence-first
    // [T, B, E] for the RNNs and attention); the layers after it decide whether they can read that.
    ctx.emit(i, "Permute", json { { "dims", wholePerm(ctx.graph(), n.input(0), perm) } });
}

/// Slice (opset 10+: starts, ends, axes, steps inputs; before: attributes): one Slice layer per axis.
void slice(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    const bool inputs = ctx.opset() >= 10;
    const auto starts = inputs ? intsFrom(ctx, i, "starts", 1) : attrInts(n, "starts");
    const auto ends = inputs ? intsFrom(ctx, i, "ends", 2) : attrInts(n, "ends");
    if (!starts || !ends) {
        if (ctx.refusals().empty() || ctx.refusals().back().node != i)
            ctx.refuse(i, "its starts or ends are not stored numbers");
        return;
    }
    auto axes = inputs ? intsFrom(ctx, i, "axes", 3) : attrInts(n, "axes");
    auto steps = inputs ? intsFrom(ctx, i, "steps", 4) : std::nullopt;
    if (!axes) {
        axes.emplace();
        for (std::size_t k = 0; k < starts->size(); ++k)
            axes->push_back(static_cast<std::int64_t>(k));
    }
    if (!steps)
        steps = std::vector<std::int64_t>(starts->size(), 1);
    if (ends->size() != starts->size() || axes->size() != starts->size() || steps->size() != starts->size()) {
        ctx.reject(i, "its starts, ends, axes and steps differ in length");
        return;
    }
    std::vector<PendingLayer> layers;
    std::string value = n.input(0);
    for (std::size_t k = 0; k < starts->size(); ++k) {
        const auto axis
            = featureAxis(ctx, i, (*axes)[k], *rank, "sliced axis", ctx.graph().batchAxisOf(n.input(0)));
        if (!axis)
            return;
        if ((*steps)[k] < 1) {
            ctx.refuse(
                i, "a step of " + std::to_string((*steps)[k]) + " (reversing an axis) has no Headroom layer");
            return;
        }
        json a { { "dim", *axis } };
        if ((*starts)[k] != 0)
            a["start"] = std::clamp<std::int64_t>((*starts)[k], -kMaxDimension, kMaxDimension);
        if ((*ends)[k] < kMaxDimension)
            a["end"] = std::max<std::int64_t>((*ends)[k], -kMaxDimension);
        if ((*steps)[k] != 1)
            a["step"] = (*steps)[k];
        const std::string out
            = k + 1 == starts->size() ? n.output(0) : n.output(0) + "/axis" + std::to_string(*axis);
        layers.push_back(PendingLayer { "Slice", a, { value }, out, i });
        value = out;
    }
    if (layers.empty()) {
        ctx.emit(i, "Identity");
        return;
    }
    for (auto& l : layers)
        ctx.push(std::move(l));
}

/// Split: each output a Narrow of the input along the axis.
void split(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto in = ctx.perSampleOf(i, n.input(0));
    if (!in)
        return;
    const auto axis = featureAxis(ctx, i, attrInt(n, "axis").value_or(0), in->size() + 1, "split axis");
    if (!axis)
        return;
    const std::int64_t length = (*in)[static_cast<std::size_t>(*axis - 1)];
    auto sizes = ctx.opset() >= 13 ? intsFrom(ctx, i, "split", 1) : attrInts(n, "split");
    const auto outputs = static_cast<std::int64_t>(n.output_size());
    if (!sizes) {
        if (!ctx.refusals().empty() && ctx.refusals().back().node == i)
            return;
        // Equal parts (torch.chunk; opset 18's num_outputs makes the last one smaller).
        const std::int64_t part = (length + outputs - 1) / outputs;
        sizes.emplace();
        for (std::int64_t k = 0, left = length; k < outputs; ++k, left -= part)
            sizes->push_back(std::min(part, left));
    }
    if (static_cast<std::int64_t>(sizes->size()) != outputs) {
        ctx.reject(i,
            "it lists " + std::to_string(sizes->size()) + " sizes for " + std::to_string(outputs)
                + " outputs");
        return;
    }
    std::int64_t start = 0;
    for (std::int64_t k = 0; k < outputs; ++k) {
        const std::int64_t size = (*sizes)[static_cast<std::size_t>(k)];
        if (size < 0 || start + size > length) {
            ctx.reject(i,
                "its sizes " + joinDims(*sizes) + " do not fit axis " + std::to_string(*axis) + " of size "
                    + std::to_string(length));
            return;
        }
        if (!n.output(static_cast<int>(k)).empty())
            ctx.push(
                PendingLayer { "Narrow", json { { "dim", *axis }, { "start", start }, { "length", size } },
                    { n.input(0) }, n.output(static_cast<int>(k)), i });
        start += size;
    }
}

void expand(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto in = ctx.perSampleOf(i, n.input(0));
    if (!in)
        return;
    const auto out = ctx.perSampleOf(i, n.output(0)); // a merged batch axis read as its parts, as `in`
    if (!out)
        return;
    if (out->size() != in->size()) {
        ctx.refuse(i, "it adds axes in front of the batch axis");
        return;
    }
    ctx.emit(i, "Expand", json { { "size", *out } });
}

/// Pad (opset 11+: pads and constant_value inputs; before: attributes): before/after amounts over all
/// axes, batch first, become F.pad's list (last axis first) over the last axes that are padded.
void pad(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    const auto pads = ctx.opset() >= 11 ? intsFrom(ctx, i, "pads", 1) : attrInts(n, "pads");
    if (!pads) {
        if (ctx.refusals().empty() || ctx.refusals().back().node != i)
            ctx.reject(i, "it has no pads");
        return;
    }
    if (n.input_size() > 3 && !n.input(3).empty()) {
        ctx.refuse(i, "padding chosen axes (the axes input, opset 18) has no Headroom mapping yet");
        return;
    }
    if (pads->size() != 2 * *rank) {
        ctx.reject(i,
            "its pads list " + std::to_string(pads->size()) + " amounts for a rank-" + std::to_string(*rank)
                + " input");
        return;
    }
    const std::size_t r = *rank;
    if ((*pads)[0] != 0 || (*pads)[r] != 0) {
        ctx.reject(i, "it pads the batch axis");
        return;
    }
    const std::string mode = attrString(n, "mode", "constant");
    const std::string torchMode = mode == "edge" ? "replicate" : mode;
    if (torchMode != "constant" && torchMode != "reflect" && torchMode != "replicate") {
        ctx.refuse(i, "mode \"" + mode + "\" has no PyTorch padding");
        return;
    }
    std::size_t first = r;
    for (std::size_t k = 1; k < r; ++k) {
        if ((*pads)[k] != 0 || (*pads)[k + r] != 0) {
            first = k;
            break;
        }
    }
    if (first == r) {
        // Padding by nothing is still a copy in PyTorch (constant_pad_nd returns self.clone() when no pad
        // is positive; the other modes allocate their output too), and what reads it may keep that copy:
        // a Pad of zeros on the last axis, not an Identity (issue 34). The exporter's own zero Pad before
        // an AveragePool is a pattern of its own (PatternPaddedAvgPool.cpp).
        json a { { "pad", std::vector<std::int64_t> { 0, 0 } } };
        if (torchMode != "constant")
            a["mode"] = torchMode;
        ctx.emit(i, "Pad", a);
        return;
    }
    std::vector<std::int64_t> list;
    for (std::size_t k = r; k-- > first;) {
        list.push_back((*pads)[k]);
        list.push_back((*pads)[k + r]);
    }
    json a { { "pad", list } };
    if (torchMode != "constant")
        a["mode"] = torchMode;
    double value = ctx.opset() >= 11 ? 0.0 : attrFloat(n, "value").value_or(0.0);
    if (ctx.opset() >= 11 && n.input_size() > 2 && !n.input(2).empty()) {
        const auto v = ctx.graph().constantNumbers(n.input(2), 1);
        if (!v || v->size() != 1) {
            ctx.refuse(i, "its constant_value is computed at run time");
            return;
        }
        value = v->front();
    }
    if (torchMode == "constant" && value != 0.0)
        a["value"] = value;
    ctx.emit(i, "Pad", a);
}

/// Resize (opset 11+) and Upsample (before 10): nearest, linear (1 to 3 axes) or cubic (2 axes)
/// interpolation of the spatial axes (batch and channels unscaled).
void resize(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto in = ctx.perSampleOf(i, n.input(0));
    if (!in)
        return;
    if (in->size() < 2 || in->size() > 4) {
        ctx.refuse(
            i, "only inputs of 1 to 3 spatial axes ([C, L], [C, H, W], [C, D, H, W]) can be interpolated");
        return;
    }
    const std::size_t spatial = in->size() - 1;
    const auto* t = ctx.graph().type(n.output(0));
    const auto out = t ? t->perSample() : std::nullopt;
    if (!out || out->size() != in->size()) {
        ctx.missing(i, n.output(0));
        return;
    }
    if ((*out)[0] != (*in)[0]) {
        ctx.refuse(i, "it resizes the channel axis");
        return;
    }
    const std::string mode = attrString(n, "mode", "nearest");
    std::string torchMode;
    if (mode == "nearest")
        torchMode = "nearest";
    else if (mode == "linear" || mode == "bilinear" || mode == "trilinear")
        torchMode = spatial == 1 ? "linear" : spatial == 2 ? "bilinear" : "trilinear";
    else if (mode == "cubic" && spatial == 2)
        torchMode = "bicubic";
    else {
        ctx.refuse(i,
            "mode \"" + mode + "\" on " + std::to_string(spatial)
                + " spatial axes has no PyTorch interpolation");
        return;
    }
    const std::string coordinates = attrString(n, "coordinate_transformation_mode", "half_pixel");
    std::vector<std::int64_t> size(out->begin() + 1, out->end());
    json a { { "size", size } };
    // The scale, where every axis has the same integer one (nn.Upsample(scale_factor=2)).
    bool sameScale = true;
    for (std::size_t k = 1; k < in->size(); ++k)
        sameScale = sameScale && (*out)[k] % (*in)[k] == 0 && (*out)[k] / (*in)[k] == (*out)[1] / (*in)[1];
    if (sameScale)
        a = json { { "scale_factor", static_cast<double>((*out)[1] / (*in)[1]) } };
    if (torchMode != "nearest") {
        a["mode"] = torchMode;
        if (coordinates == "align_corners")
            a["align_corners"] = true;
    }
    ctx.emit(i, "Upsample", a);
}

/// DepthToSpace / SpaceToDepth: a new tensor, nothing kept, whatever the order of the channels. CRD is
/// PixelShuffle's order (torch exports pixel_shuffle so); DCR and SpaceToDepth take the channels in
/// TensorFlow's order, a permutation PyTorch writes as reshape-permute-reshape, with the same memory.
void depthToSpace(MappingContext& ctx, int i, bool toSpace)
{
    const auto& n = ctx.node(i);
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    if (*rank != 4) {
        ctx.reject(i, "its input has rank " + std::to_string(*rank) + ", not 4 ([N, C, H, W])");
        return;
    }
    const auto block = attrInt(n, "blocksize");
    if (!block || *block < 1 || *block > kMaxDimension) {
        ctx.reject(i, "it has no positive blocksize");
        return;
    }
    if (!toSpace || attrString(n, "mode", "DCR") != "CRD")
        ctx.note("The channel order of " + std::string(toSpace ? "DepthToSpace in DCR mode" : "SpaceToDepth")
                + " differs from PixelShuffle's; the memory (a new tensor, nothing kept) is the same.",
            toSpace ? "dcr" : "space-to-depth");
    ctx.emit(i, toSpace ? "PixelShuffle" : "PixelUnshuffle",
        json { { toSpace ? "upscale_factor" : "downscale_factor", *block } });
}

void depthToSpace(MappingContext& ctx, int i)
{
    depthToSpace(ctx, i, true);
}
void spaceToDepth(MappingContext& ctx, int i)
{
    depthToSpace(ctx, i, false);
}

} // namespace

std::optional<std::int64_t> featureAxis(
    MappingContext& ctx, int i, std::int64_t axis, std::size_t rank, const char* what, std::size_t batchAxis)
{
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r) {
        ctx.reject(i,
            std::string("its ") + what + " " + std::to_string(axis) + " is out of range for a rank-"
                + std::to_string(r) + " input");
        return std::nullopt;
    }
    if (axis < 0)
        axis += r;
    if (axis == static_cast<std::int64_t>(batchAxis)) {
        ctx.reject(i, std::string("its ") + what + " is the batch axis, which Headroom keeps whole");
        return std::nullopt;
    }
    return axis;
}

std::optional<std::int64_t> featureAxisOf(
    MappingContext& ctx, int i, std::int64_t axis, const std::string& value, const char* what)
{
    const auto rank = ctx.rankOf(i, value);
    if (!rank)
        return std::nullopt;
    const std::size_t batchAxis = ctx.graph().batchAxisOf(value);
    const auto found = featureAxis(ctx, i, axis, *rank, what, batchAxis);
    if (!found || *found < static_cast<std::int64_t>(batchAxis))
        return found;
    return *found + static_cast<std::int64_t>(ctx.graph().batchMergeOf(value).axes()) - 1;
}

void addMovement(Operators& table)
{
    table.push_back({ "Transpose", &transpose });
    table.push_back({ "Slice", &slice });
    table.push_back({ "Split", &split });
    table.push_back({ "Expand", &expand });
    table.push_back({ "Pad", &pad });
    table.push_back({ "Resize", &resize });
    table.push_back({ "Upsample", &resize });
    table.push_back({ "DepthToSpace", &depthToSpace });
    table.push_back({ "SpaceToDepth", &spaceToDepth });
}

} // namespace headroom::onnximport::ops
