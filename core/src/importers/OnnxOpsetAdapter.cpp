#include "OnnxOpsetAdapter.h"

#include "OnnxGraph.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace headroom::onnximport {

namespace {

bool removeAttribute(onnx::NodeProto& node, const std::string& name)
{
    auto* attributes = node.mutable_attribute();
    const auto it = std::find_if(
        attributes->begin(), attributes->end(), [&](const auto& a) { return a.name() == name; });
    if (it == attributes->end())
        return false;
    attributes->erase(it);
    return true;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const std::string& name)
{
    for (const auto& a : node.attribute()) {
        if (a.name() == name)
            return &a;
    }
    return nullptr;
}

/// The values of a constant tensor: an initializer or a Constant node's value, read before any inference.
class Constants
{
public:
    explicit Constants(const onnx::GraphProto& graph)
    {
        for (const auto& t : graph.initializer())
            m_tensors.emplace(t.name(), &t);
        for (const auto& n : graph.node()) {
            if (n.op_type() == "Constant" && n.output_size() == 1) {
                if (const auto* a = attribute(n, "value"); a != nullptr && a->has_t())
                    m_tensors.emplace(n.output(0), &a->t());
            }
        }
    }

    [[nodiscard]] std::optional<std::vector<double>> numbers(const std::string& value) const
    {
        const auto it = m_tensors.find(value);
        return it == m_tensors.end() ? std::nullopt : tensorNumbers(*it->second, 64);
    }

private:
    std::unordered_map<std::string, const onnx::TensorProto*> m_tensors;
};

/// Rewrites one node; returns why it cannot be, or an empty string.
std::string rewrite(onnx::NodeProto& node, const Constants& constants)
{
    static const std::set<std::string> kReductions { "ReduceL1", "ReduceL2", "ReduceLogSum",
        "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSumSquare" };
    const std::string& op = node.op_type();
    if (kReductions.count(op) > 0) {
        const auto* noop = attribute(node, "noop_with_empty_axes");
        const bool hasAxes = node.input_size() > 1 && !node.input(1).empty();
        if (noop != nullptr && noop->i() != 0 && !hasAxes)
            return "noop_with_empty_axes = 1 without axes has no opset-17 form";
        removeAttribute(node, "noop_with_empty_axes");
        if (!hasAxes)
            return {};
        const auto axes = constants.numbers(node.input(1));
        if (!axes)
            return "its axes are computed at run time";
        auto* a = node.add_attribute();
        a->set_name("axes");
        a->set_type(onnx::AttributeProto::INTS);
        for (const double x : *axes) {
            const auto k = saturatedInteger(x);
            if (!k)
                return "its axes are not numbers";
            a->add_ints(*k);
        }
        node.mutable_input()->DeleteSubrange(1, node.input_size() - 1);
        return {};
    }
    if (op == "Split") {
        removeAttribute(node, "num_outputs"); // opset 17 splits evenly into as many parts as outputs
        return {};
    }
    if (op == "Pad") {
        if (node.input_size() > 3 && !node.input(3).empty())
            return "padding only some axes (its axes input) has no opset-17 form";
        if (const auto* mode = attribute(node, "mode"); mode != nullptr && mode->s() == "wrap")
            return "wrap padding has no opset-17 form";
        return {};
    }
    if (op == "Resize") {
        if (const auto* a = attribute(node, "antialias"); a != nullptr && a->i() != 0)
            return "antialias = 1 has no opset-17 form";
        if (attribute(node, "axes") != nullptr)
            return "resizing only some axes has no opset-17 form";
        if (const auto* a = attribute(node, "keep_aspect_ratio_policy"); a != nullptr && a->s() != "stretch")
            return "keep_aspect_ratio_policy \"" + a->s() + "\" has no opset-17 form";
        if (const auto* a = attribute(node, "coordinate_transformation_mode");
            a != nullptr && a->s() == "half_pixel_symmetric")
            return "coordinate_transformation_mode \"half_pixel_symmetric\" has no opset-17 form";
        removeAttribute(node, "antialias");
        removeAttribute(node, "keep_aspect_ratio_policy");
        return {};
    }
    if (op == "AveragePool") {
        if (const auto* d = attribute(node, "dilations")) {
            if (std::any_of(d->ints().begin(), d->ints().end(), [](auto v) { return v != 1; }))
                return "dilated average pooling has no opset-17 form";
            removeAttribute(node, "dilations");
        }
        return {};
    }
    if (op == "Cast" || op == "CastLike") {
        removeAttribute(node, "saturate"); // only affects float8 targets
        return {};
    }
    return {};
}

} // namespace

std::optional<Error> readAsOpset(onnx::ModelProto& model, int from, int to, const std::string& file)
{
    auto& graph = *model.mutable_graph();
    const Constants constants(graph);
    std::string refused;
    int count = 0;
    for (auto& node : *graph.mutable_node()) {
        if (!node.domain().empty() && node.domain() != "ai.onnx")
            continue;
        if (const std::string why = rewrite(node, constants); !why.empty()) {
            refused
                += (refused.empty() ? "" : ", ") + nodeLabel(node) + " (" + node.op_type() + ": " + why + ")";
            ++count;
        }
    }
    if (count > 0)
        return Error { file + ": uses opset " + std::to_string(from) + ", which Headroom reads as opset "
                + std::to_string(to) + ", but " + std::to_string(count) + " operator"
                + (count == 1 ? " has" : "s have") + " no opset-" + std::to_string(to) + " form: " + refused,
            file };
    for (auto& o : *model.mutable_opset_import()) {
        if (o.domain().empty() || o.domain() == "ai.onnx")
            o.set_version(to);
    }
    return std::nullopt;
}

} // namespace headroom::onnximport
