#include "OnnxPinning.h"

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
        out.pins.push_back({ i, k, std::move(known), {} });
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
        out.pins.push_back({ i, 2, {}, std::move(scales) });
        out.opensShapes = out.opensShapes || !outputKnown(n, g);
    }
}

/// Pad's amounts (opset 11+), which torch 1.13 computes from constants for every F.pad.
void pinPad(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    if (n.input_size() < 2 || n.input(1).empty() || g.constantNumbers(n.input(1)))
        return;
    if (auto pads = g.foldIntegers(n.input(1)); pads && pads->shape.size() == 1 && !pads->data.empty()) {
        out.pins.push_back({ i, 1, std::move(pads->data), {} });
        out.opensShapes = out.opensShapes || !outputKnown(n, g);
    }
}

/// A Reshape whose target keeps the batch axis first and whose other sizes are known.
void pinReshape(int i, const onnx::NodeProto& n, const OnnxGraph& g, Pins& out)
{
    if (n.input_size() != 2 || g.constantNumbers(n.input(1)))
        return;
    const auto* result = g.type(n.output(0));
    const auto* in = g.type(n.input(0));
    if ((result && result->perSample()) || in == nullptr || !in->hasShape || in->dims.empty())
        return;
    for (const auto& a : n.attribute()) {
        if (a.name() == "allowzero" && a.i() != 0)
            return;
    }
    const auto target = g.shapeTensor(n.input(1));
    if (!target || target->size() < 2)
        return;
    const Dim& batch = in->dims.front();
    const Dim& first = target->front();
    if (!(!first.symbol.empty() && first.symbol == batch.symbol)
        && !(first.known() && batch.known() && *first.value == *batch.value))
        return;
    std::vector<std::int64_t> pinned { 0 };
    for (std::size_t k = 1; k < target->size(); ++k) {
        if (!(*target)[k].known())
            return;
        pinned.push_back(*(*target)[k].value);
    }
    out.pins.push_back({ i, 1, std::move(pinned), {} });
    out.opensShapes = true; // only pinned while ONNX does not know the output
}

/// Input `pin.input` of node `pin.node` becomes a new 1-D initializer holding the pinned values.
void apply(onnx::ModelProto& model, const Pins::Pin& pin)
{
    auto* n = model.mutable_graph()->mutable_node(pin.node);
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
    }
    if (pins.empty())
        return PinResult::Nothing;
    for (const auto& pin : pins.pins)
        apply(model, pin);
    return pins.opensShapes ? PinResult::OpensShapes : PinResult::ValuesOnly;
}

} // namespace headroom::onnximport
