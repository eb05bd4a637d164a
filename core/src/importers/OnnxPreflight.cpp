#include "OnnxPreflight.h"

#include "OnnxGraph.h"

#include <algorithm>
#include <map>
#include <onnx/defs/schema.h>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace headroom::onnximport {

namespace {

Error fail(const std::string& file, const std::string& what, std::string location = {})
{
    return Error { file + ": " + what, location.empty() ? file : std::move(location) };
}

std::string labelOf(const onnx::NodeProto& node)
{
    return "node " + nodeLabel(node) + " (" + node.op_type() + ")";
}

/// The tensors the file stores (initializers and Constant nodes' values), found by name before any
/// inference; node pointers stay valid because nodes are edited, never added.
struct StoredTensors
{
    std::unordered_map<std::string, const onnx::TensorProto*> initializers;
    std::unordered_map<std::string, const onnx::NodeProto*> producers;

    explicit StoredTensors(const onnx::GraphProto& graph)
    {
        for (const auto& t : graph.initializer())
            initializers.emplace(t.name(), &t);
        for (const auto& n : graph.node()) {
            for (const auto& out : n.output())
                producers[out] = &n;
        }
    }

    /// The tensor stored as `value`: an initializer, or a Constant node's value, possibly behind
    /// Identity nodes.
    const onnx::TensorProto* find(std::string value) const
    {
        for (int hops = 0; hops < 8; ++hops) {
            if (const auto it = initializers.find(value); it != initializers.end())
                return it->second;
            const auto p = producers.find(value);
            if (p == producers.end())
                return nullptr;
            const onnx::NodeProto* producer = p->second;
            if (producer->op_type() == "Constant") {
                for (const auto& a : producer->attribute()) {
                    if (a.name() == "value" && a.has_t())
                        return &a.t();
                }
                return nullptr;
            }
            if (producer->op_type() != "Identity" || producer->input_size() != 1)
                return nullptr;
            value = producer->input(0);
        }
        return nullptr;
    }
};

/// A tensor read before it is defined makes ONNX 1.12's data propagation crash (found by fuzzing).
std::optional<Error> checkDefinitionOrder(const onnx::GraphProto& graph, const std::string& file)
{
    std::unordered_set<std::string> defined;
    for (const auto& in : graph.input())
        defined.insert(in.name());
    for (const auto& t : graph.initializer())
        defined.insert(t.name());
    for (const auto& node : graph.node()) {
        for (const auto& in : node.input()) {
            if (!in.empty() && defined.count(in) == 0)
                return fail(file,
                    labelOf(node) + " reads tensor '" + in
                        + "' before any node produces it (the graph is not in topological order or the "
                          "tensor "
                          "does not exist)",
                    node.name());
        }
        defined.insert(node.output().begin(), node.output().end());
    }
    return std::nullopt;
}

/// A Reshape target below -1 makes ONNX 1.12's inference crash (found by fuzzing).
std::optional<Error> checkReshapeTarget(
    const onnx::NodeProto& node, const StoredTensors& stored, const std::string& file)
{
    if (node.op_type() != "Reshape" || node.input_size() < 2)
        return std::nullopt;
    const auto* target = stored.find(node.input(1));
    const auto values = target ? tensorNumbers(*target, 64) : std::nullopt;
    if (values && std::any_of(values->begin(), values->end(), [](double v) { return v < -1.0; }))
        return fail(file, "node " + nodeLabel(node) + " (Reshape) has a target shape with a size below -1",
            node.name());
    return std::nullopt;
}

/// ONNX 1.12's convolution inference reads kernel_shape, or else the weight's axes, and reads past a
/// vector when the weight has more axes than the input: each convolution gets the kernel_shape of its
/// stored weight, and one whose weight the file does not store is refused.
std::optional<Error> fillKernelShape(
    onnx::NodeProto& node, const StoredTensors& stored, const std::string& file)
{
    static const std::map<std::string, int> kWeightInput { { "Conv", 1 }, { "ConvTranspose", 1 },
        { "ConvInteger", 1 }, { "QLinearConv", 3 } };
    const auto weight = kWeightInput.find(node.op_type());
    if (weight == kWeightInput.end())
        return std::nullopt;
    const auto* tensor
        = node.input_size() > weight->second ? stored.find(node.input(weight->second)) : nullptr;
    const auto dims = tensor ? std::optional<std::vector<std::int64_t>>(
                          std::in_place, tensor->dims().begin(), tensor->dims().end())
                             : std::nullopt;
    const onnx::AttributeProto* kernel = nullptr;
    for (const auto& a : node.attribute()) {
        if (a.name() == "kernel_shape")
            kernel = &a;
    }
    if (!dims || dims->size() < 3
        || (kernel != nullptr && static_cast<std::size_t>(kernel->ints_size()) + 2 != dims->size()))
        return fail(file,
            labelOf(node) + " needs a stored weight with "
                + (kernel ? std::to_string(kernel->ints_size() + 2) : std::string("3 or more")) + " axes"
                + (dims ? ", not " + joinDims(*dims) : std::string()),
            node.name());
    if (kernel == nullptr) {
        auto* a = node.add_attribute();
        a->set_name("kernel_shape");
        a->set_type(onnx::AttributeProto::INTS);
        for (std::size_t k = 2; k < dims->size(); ++k)
            a->add_ints((*dims)[k]);
    }
    return std::nullopt;
}

/// A standard node's checks: its schema (the ONNX checker's node rule), a Reshape target, a
/// convolution's kernel. A node of an operator ONNX does not know at this opset is left to the mapping.
std::optional<Error> checkStandardNode(
    onnx::NodeProto& node, int opset, const StoredTensors& stored, const std::string& file)
{
    const auto* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, onnx::ONNX_DOMAIN);
    if (schema == nullptr)
        return std::nullopt;
    try {
        schema->Verify(node);
    } catch (const std::exception& e) {
        return fail(file, labelOf(node) + " does not match the ONNX operator: " + shortText(e.what(), 300),
            node.name());
    }
    if (auto e = checkReshapeTarget(node, stored, file))
        return e;
    return fillKernelShape(node, stored, file);
}

Error controlFlowError(const std::vector<std::string>& controlFlow, const std::string& file)
{
    std::string list;
    for (const auto& c : controlFlow)
        list += (list.empty() ? "" : ", ") + c;
    return fail(file,
        "cannot import " + std::to_string(controlFlow.size()) + " control-flow operator"
            + (controlFlow.size() == 1 ? "" : "s") + " (" + list + "): a Headroom network has no subgraphs");
}

} // namespace

std::optional<Error> preflight(onnx::ModelProto& model, int opset, const std::string& file)
{
    model.clear_functions();
    for (auto& o : *model.mutable_opset_import()) {
        if (o.domain() == "ai.onnx")
            o.set_domain("");
    }
    auto& graph = *model.mutable_graph();
    if (auto e = checkDefinitionOrder(graph, file))
        return e;
    const StoredTensors stored(graph);
    std::vector<std::string> controlFlow;
    std::set<std::string> hiddenDomains;
    for (auto& node : *graph.mutable_node()) {
        if (node.domain() == "ai.onnx")
            node.set_domain("");
        if (!node.domain().empty()) {
            // A domain without schemas: inference skips its nodes (it only needs the domain imported).
            node.set_domain("headroom.unsupported." + node.domain());
            hiddenDomains.insert(node.domain());
            continue;
        }
        const bool hasGraph = std::any_of(node.attribute().begin(), node.attribute().end(),
            [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size() > 0; });
        if (hasGraph) {
            controlFlow.push_back(nodeLabel(node) + " (" + node.op_type() + ")");
            continue;
        }
        if (auto e = checkStandardNode(node, opset, stored, file))
            return e;
    }
    for (const auto& domain : hiddenDomains) {
        auto* o = model.add_opset_import();
        o->set_domain(domain);
        o->set_version(1);
    }
    if (!controlFlow.empty())
        return controlFlowError(controlFlow, file);
    return std::nullopt;
}

} // namespace headroom::onnximport
