#include "OnnxPinning.h"

#include "onnxops/Families.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace headroom::onnximport {

namespace {

struct Pins
{
    struct Pin
    {
        int node = 0;
        int input = 0;
        std::vector<std::int64_t> ints;
        std::vector<double> floats; ///< a FLOAT tensor when not empty
        /// For a Reshape whose output's batch axis merges values of each sample: its symbol ("12*batch"),
        /// written into the output's value_info, where inference keeps it for the axis it cannot size.
        std::string batchSymbol {};
        std::size_t batchAt = 0; ///< that axis
        std::int32_t elementType = 0; ///< of that output
        bool declareOnly = false; ///< only the output's value_info is written; the input stays
    };
    std::vector<Pin> pins;
    bool opensShapes = false; ///< a pinned node's output is unknown: another inference pass may learn it

    [[nodiscard]] bool empty() const { return pins.empty(); }
};

/// Whether inference already knows the node's first output, per sample: nothing to pin.
bool outputKnown(const onnx::NodeProto& n, const OnnxGraph& g)
{
    const auto* t = n.output_size() > 0 ? g.type(n.output(0)) : nullptr;
    return t != nullptr && t->perSample().has_value();
}

/// Slice's starts, ends, axes and steps (torch's chunk on a traced size): every value known.
void pinSlice(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    for (int k = 1; k < std::min(n.input_size(), 5); ++k) {
        if (n.input(k).empty() || g.constantNumbers(n.input(k)))
            continue;
        const auto values = g.shapeTensor(n.input(k));
        if (!values || values->empty()
            || !std::all_of(values->begin(), values->end(), [](const auto& d) { return d.known(); }))
            continue;
        std::vector<std::int64_t> known;
        for (const auto& d : *values)
            known.push_back(*d.value);
        out.pins.push_back({ i, k, std::move(known), {}, {} });
        out.opensShapes = out.opensShapes || !outputKnown(n, g);
    }
}

/// Resize's scales, when they are a Concat of constant parts ([1, 1] for batch and channels, then the
/// spatial ones).
void pinResize(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    if (n.input_size() < 3 || n.input(2).empty())
        return;
    if (g.constantNumbers(n.input(2)))
        return;
    const int concat = g.producer(n.input(2));
    if (concat < 0 || g.graph().node(concat).op_type() != "Concat")
        return;
    std::vector<double> scales;
    for (const auto& input : g.graph().node(concat).input()) {
        const auto part = g.constantNumbers(input);
        if (!part)
            return;
        for (const double x : *part) // a float tensor: values beyond float's range are cut to it
            scales.push_back(
                std::clamp<double>(x, -std::numeric_limits<float>::max(), std::numeric_limits<float>::max()));
    }
    if (!scales.empty()) {
        out.pins.push_back({ i, 2, {}, std::move(scales), {} });
        out.opensShapes = out.opensShapes || !outputKnown(n, g);
    }
}

/// Pad's amounts (opset 11+), which torch 1.13 computes from constants for every F.pad.
void pinPad(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    if (n.input_size() < 2 || n.input(1).empty() || g.constantNumbers(n.input(1)))
        return;
    if (auto pads = g.foldIntegers(n.input(1)); pads && pads->shape.size() == 1 && !pads->data.empty()) {
        out.pins.push_back({ i, 1, std::move(pads->data), {}, {} });
        out.opensShapes = out.opensShapes || !outputKnown(n, g);
    }
}

/// A Reshape's target worked out: its sizes (0 "copy the input's axis" and -1 "inferred" replaced), and
/// which axis carries the batch, as a multiple of B.
struct ResolvedTarget
{
    std::vector<std::int64_t> sizes; ///< sizes[batchAt] is a placeholder
    std::size_t batchAt = 0;
    std::int64_t multiple = 1;
};

/// `target`'s sizes for an input `inDims` whose axis `ki` is `mi` x B: exactly one entry is a multiple of B
/// (given as such, copied with 0 from the input's batch axis, or the -1 that takes what is left).
std::optional<ResolvedTarget> resolveTarget(const std::vector<Dim>& target, const std::vector<Dim>& inDims,
    std::size_t ki, std::int64_t mi, const std::string& batch)
{
    std::int64_t volume = mi; // the input's values per sample
    for (std::size_t k = 0; k < inDims.size(); ++k) {
        if (k != ki && (!inDims[k].known() || __builtin_mul_overflow(volume, *inDims[k].value, &volume)))
            return std::nullopt;
    }
    ResolvedTarget r;
    std::optional<std::size_t> batchAt, inferred;
    std::int64_t product = 1;
    for (std::size_t k = 0; k < target.size(); ++k) {
        const auto multiple = batchMultiple(target[k], batch);
        const bool copiesBatch = target[k].known() && *target[k].value == 0 && k == ki;
        if ((multiple || copiesBatch) && !batchAt) {
            batchAt = k;
            r.multiple = multiple ? *multiple : mi;
            r.sizes.push_back(1);
            continue;
        }
        if (!target[k].known())
            return std::nullopt;
        std::int64_t v = *target[k].value;
        if (v == 0 && k < inDims.size() && k != ki && inDims[k].known())
            v = *inDims[k].value;
        if (v == -1 && !inferred) {
            inferred = k;
            r.sizes.push_back(1);
            continue;
        }
        if (v < 1 || __builtin_mul_overflow(product, v, &product))
            return std::nullopt;
        r.sizes.push_back(v);
    }
    if (!batchAt && inferred && volume % product == 0) { // the -1 takes the batch
        batchAt = inferred;
        r.multiple = volume / product;
        inferred.reset();
    }
    std::int64_t whole = 0;
    if (!batchAt || r.multiple < 1 || __builtin_mul_overflow(product, r.multiple, &whole)
        || volume % whole != 0)
        return std::nullopt;
    if (inferred)
        r.sizes[*inferred] = volume / whole;
    else if (whole != volume)
        return std::nullopt;
    r.batchAt = *batchAt;
    return r;
}

/// A Reshape whose target's sizes are known but for one multiple of the batch size (torch's [T, B * heads,
/// d] and [B, heads, T, d], computed from the input's shape): pinned with 0 where that axis is the input's
/// batch axis unchanged, else with -1 and the output's "m*batch" written into value_info, which inference
/// keeps for the axis it cannot size. A fixed batch size kept first is pinned with 0.
void pinReshape(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    if (n.input_size() != 2 || g.constantNumbers(n.input(1)))
        return;
    const auto* result = g.type(n.output(0));
    const auto* in = g.type(n.input(0));
    // Sized: every axis a number or a multiple of the batch (not a fresh symbol inference made up).
    const bool sized = result != nullptr && result->hasShape && !result->dims.empty()
        && std::all_of(result->dims.begin(), result->dims.end(),
            [&](const Dim& d) { return d.known() || batchMultiple(d, g.batchSymbol()); })
        && g.perSampleOf(n.output(0));
    if (sized || in == nullptr || !in->hasShape || in->dims.empty()
        || std::any_of(n.attribute().begin(), n.attribute().end(),
            [](const auto& a) { return a.name() == "allowzero" && a.i() != 0; }))
        return;
    const auto target = g.shapeTensor(n.input(1));
    if (!target || target->size() < 2)
        return;
    if (const Dim& batch = in->dims.front(); g.batchSymbol().empty() && batch.known()) {
        std::vector<std::int64_t> pinned { 0 }; // a fixed batch size kept first
        for (std::size_t k = 1; k < target->size(); ++k) {
            if (!(*target)[k].known())
                return;
            pinned.push_back(*(*target)[k].value);
        }
        if (target->front().known() && *target->front().value == *batch.value) {
            out.pins.push_back({ i, 1, std::move(pinned), {}, {} });
            out.opensShapes = true;
        }
        return;
    }
    const std::size_t ki = g.batchAxisOf(n.input(0));
    const auto mi = ki < in->dims.size() ? batchMultiple(in->dims[ki], g.batchSymbol()) : std::nullopt;
    const auto resolved = mi ? resolveTarget(*target, in->dims, ki, *mi, g.batchSymbol()) : std::nullopt;
    if (!resolved)
        return;
    const bool copied = resolved->batchAt == ki && resolved->multiple == *mi;
    Pins::Pin pin { i, 1, resolved->sizes, {}, {} };
    pin.ints[resolved->batchAt] = copied ? 0 : -1;
    if (!copied) {
        pin.batchSymbol = batchDim(resolved->multiple, g.batchSymbol()).symbol;
        pin.batchAt = resolved->batchAt;
        pin.elementType = in->elementType;
    }
    out.pins.push_back(std::move(pin));
    out.opensShapes = true; // only pinned while ONNX does not know the output
}

/// Expand whose target is computed from the input's batch size (the class token's `expand(n, -1, -1)`,
/// n = x.shape[0], with torch's -1 -> 1 through Equal and Where): ONNX cannot size its output, so the
/// output's value_info is declared from the folded target broadcast with the input, the batch symbol
/// where the target has a multiple of the batch size against a 1.
void pinExpand(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    if (n.input_size() != 2 || n.output_size() < 1 || g.constantNumbers(n.input(1)))
        return;
    const auto* result = g.type(n.output(0));
    const std::size_t axis = g.batchAxisOf(n.output(0));
    if (result != nullptr && result->hasShape && axis < result->dims.size() && g.perSampleOf(n.output(0))
        && batchMultiple(result->dims[axis], g.batchSymbol()))
        return; // sized already
    const auto* in = g.type(n.input(0));
    const auto target = g.shapeTensor(n.input(1));
    if (in == nullptr || !in->hasShape || !target || target->empty() || g.batchSymbol().empty())
        return;
    const std::size_t rank = std::max(in->dims.size(), target->size());
    const auto at = [rank](const std::vector<Dim>& dims, std::size_t k) {
        return k + dims.size() >= rank ? dims[k + dims.size() - rank] : Dim { 1, {} };
    };
    Pins::Pin pin { i, 1, std::vector<std::int64_t>(rank, 1), {}, {} };
    pin.declareOnly = true;
    pin.elementType = in->elementType;
    for (std::size_t k = 0; k < rank; ++k) {
        const Dim a = at(in->dims, k);
        const Dim b = at(*target, k);
        const bool aOne = a.known() && *a.value == 1;
        const bool bOne = b.known() && *b.value == 1;
        if (a.known() && b.known() && (aOne || bOne || *a.value == *b.value)) {
            pin.ints[k] = aOne ? *b.value : *a.value;
            continue;
        }
        const Dim& batch = aOne ? b : a;
        const auto multiple = batchMultiple(batch, g.batchSymbol());
        if (!multiple || !(aOne || bOne) || !pin.batchSymbol.empty())
            return;
        pin.batchSymbol = batchDim(*multiple, g.batchSymbol()).symbol;
        pin.batchAt = k;
    }
    if (pin.batchSymbol.empty())
        return;
    out.pins.push_back(std::move(pin));
    out.opensShapes = true;
}

/// Einsum's output, whose sizes ONNX 1.12 does not infer (only its rank): each letter of the result takes
/// its size from the first operand that has it, the batch axis its symbol (MaxViT's attention).
void pinEinsum(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    if (n.output_size() < 1 || outputKnown(n, g) || g.batchSymbol().empty())
        return;
    std::string equation;
    for (const auto& a : n.attribute()) {
        if (a.name() == "equation")
            equation = a.s();
    }
    const auto terms = ops::parseEinsum(equation);
    if (!terms || terms->inputs.size() != static_cast<std::size_t>(n.input_size()))
        return;
    Pins::Pin pin { i, 0, {}, {}, {} };
    pin.declareOnly = true;
    for (std::size_t k = 0; k < terms->output.size(); ++k) {
        std::optional<Dim> size;
        for (std::size_t t = 0; t < terms->inputs.size() && !size; ++t) {
            const auto at = terms->inputs[t].find(terms->output[k]);
            const auto* type = g.type(n.input(static_cast<int>(t)));
            if (at == std::string::npos || type == nullptr || !type->hasShape
                || type->dims.size() != terms->inputs[t].size())
                continue;
            size = type->dims[at];
            pin.elementType = type->elementType;
        }
        if (!size)
            return;
        if (size->known()) {
            pin.ints.push_back(*size->value);
            continue;
        }
        if (!batchMultiple(*size, g.batchSymbol()) || !pin.batchSymbol.empty())
            return;
        pin.batchSymbol = size->symbol;
        pin.batchAt = k;
        pin.ints.push_back(1);
    }
    if (pin.batchSymbol.empty())
        return;
    out.pins.push_back(std::move(pin));
    out.opensShapes = true;
}

/// `value`'s value_info: the pinned target's sizes, its axis `pin.batchAt` `pin.batchSymbol`.
void declareBatchAxis(onnx::ModelProto& model, const std::string& value, const Pins::Pin& pin)
{
    auto* infos = model.mutable_graph()->mutable_value_info();
    auto it = std::find_if(infos->begin(), infos->end(), [&](const auto& v) { return v.name() == value; });
    auto* info = it != infos->end() ? &*it : model.mutable_graph()->add_value_info();
    info->set_name(value);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(pin.elementType);
    auto* shape = info->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (std::size_t k = 0; k < pin.ints.size(); ++k) {
        auto* d = shape->add_dim();
        if (k == pin.batchAt)
            d->set_dim_param(pin.batchSymbol);
        else
            d->set_dim_value(pin.ints[k]);
    }
}

/// Input `pin.input` of node `pin.node` becomes a new 1-D initializer holding the pinned values.
void apply(onnx::ModelProto& model, const Pins::Pin& pin)
{
    auto* n = model.mutable_graph()->mutable_node(pin.node);
    if (pin.declareOnly) {
        declareBatchAxis(model, n->output(0), pin);
        return;
    }
    auto* t = model.mutable_graph()->add_initializer();
    t->set_name(n->output(0) + "/headroom_pinned_" + std::to_string(pin.input));
    if (pin.floats.empty()) {
        t->set_data_type(onnx::TensorProto::INT64);
        t->add_dims(static_cast<std::int64_t>(pin.ints.size()));
        for (const auto v : pin.ints)
            t->add_int64_data(v);
    } else {
        t->set_data_type(onnx::TensorProto::FLOAT);
        t->add_dims(static_cast<std::int64_t>(pin.floats.size()));
        for (const auto v : pin.floats)
            t->add_float_data(static_cast<float>(v));
    }
    n->set_input(pin.input, t->name());
    if (!pin.batchSymbol.empty())
        declareBatchAxis(model, n->output(0), pin);
}

/// ONNX's inference names each size it cannot work out "unk__<n>" in the value_info it writes back; a later
/// pass keeps such a name over what it could infer then (a merged "8*batch" a pin opened). Those sizes are
/// made unknown again before the next pass.
void forgetMadeUpSymbols(onnx::ModelProto& model)
{
    for (auto& v : *model.mutable_graph()->mutable_value_info()) {
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
            continue;
        for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
            if (d.has_dim_param() && d.dim_param().rfind("unk__", 0) == 0)
                d.clear_dim_param();
        }
    }
}

} // namespace

PinResult pinShapeInputs(onnx::ModelProto& model, const OnnxGraph& g)
{
    Pins pins;
    const auto& graph = model.graph();
    for (int i = 0; i < graph.node_size(); ++i) {
        const auto& n = graph.node(i);
        if (n.op_type() == "Slice")
            pinSlice(i, n, g, pins);
        else if (n.op_type() == "Resize")
            pinResize(i, n, g, pins);
        else if (n.op_type() == "Pad")
            pinPad(i, n, g, pins);
        else if (n.op_type() == "Reshape")
            pinReshape(i, n, g, pins);
        else if (n.op_type() == "Expand")
            pinExpand(i, n, g, pins);
        else if (n.op_type() == "Einsum")
            pinEinsum(i, n, g, pins);
    }
    if (pins.empty())
        return PinResult::Nothing;
    for (const auto& pin : pins.pins)
        apply(model, pin);
    forgetMadeUpSymbols(model);
    return pins.opensShapes ? PinResult::OpensShapes : PinResult::ValuesOnly;
}

} // namespace headroom::onnximport
