#include "OnnxValidation.h"

#include "OnnxGraph.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace headroom::onnximport {

namespace {

using onnx::TensorProto;

/// Bytes of one element in raw_data; 0 for STRING and invalid types.
std::size_t elementBytes(std::int32_t type)
{
    switch (type) {
    case TensorProto::UINT8:
    case TensorProto::INT8:
    case TensorProto::BOOL:
        return 1;
    case TensorProto::UINT16:
    case TensorProto::INT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
        return 2;
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32:
        return 4;
    case TensorProto::INT64:
    case TensorProto::UINT64:
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX64:
        return 8;
    case TensorProto::COMPLEX128:
        return 16;
    default:
        return 0;
    }
}

/// The typed field an element type keeps its values in (onnx.proto's comments on each field), and how
/// many numbers one element takes there (two for complex numbers).
struct TypedField
{
    const char* name;
    std::size_t size;
    std::size_t perElement;
};

std::vector<TypedField> typedFields(const TensorProto& t)
{
    return { { "float_data", static_cast<std::size_t>(t.float_data_size()), 1 },
        { "int32_data", static_cast<std::size_t>(t.int32_data_size()), 1 },
        { "int64_data", static_cast<std::size_t>(t.int64_data_size()), 1 },
        { "uint64_data", static_cast<std::size_t>(t.uint64_data_size()), 1 },
        { "double_data", static_cast<std::size_t>(t.double_data_size()), 1 },
        { "string_data", static_cast<std::size_t>(t.string_data_size()), 1 } };
}

std::string fieldFor(std::int32_t type)
{
    switch (type) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64:
        return "float_data";
    case TensorProto::INT64:
        return "int64_data";
    case TensorProto::UINT32:
    case TensorProto::UINT64:
        return "uint64_data";
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128:
        return "double_data";
    default:
        return "int32_data";
    }
}

/// The element count its dims give, or a problem.
std::optional<std::string> countProblem(const TensorProto& t, std::uint64_t& count)
{
    if (static_cast<std::size_t>(t.dims_size()) > kMaxRank)
        return "has " + std::to_string(t.dims_size()) + " axes; tensors have at most "
            + std::to_string(kMaxRank) + " (PyTorch's limit)";
    const std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
    count = 1;
    for (const auto d : dims) {
        if (d < 0 || d > kMaxDimension)
            return "has dims " + joinDims(dims) + "; each axis must have 0 to 2^40 elements";
        constexpr std::uint64_t kSaturated = std::uint64_t { 1 } << 62;
        const auto size = static_cast<std::uint64_t>(d);
        count = size != 0 && count > kSaturated / size ? kSaturated : count * size;
    }
    if (count > static_cast<std::uint64_t>(kMaxDimension))
        return "has dims " + joinDims(dims) + ", more than 2^40 elements";
    return std::nullopt;
}

/// The problem with where `t` keeps its values, given `count` elements.
std::optional<std::string> dataProblem(const TensorProto& t, std::uint64_t count)
{
    const std::string dims = joinDims(std::vector<std::int64_t>(t.dims().begin(), t.dims().end()));
    const std::string type = elementTypeName(t.data_type());
    std::vector<TypedField> used;
    for (const auto& f : typedFields(t)) {
        if (f.size > 0)
            used.push_back(f);
    }
    if (!t.raw_data().empty() && !used.empty())
        return "holds its values twice, in raw_data and in " + std::string(used.front().name);
    if (used.size() > 1 || (used.size() == 1 && used.front().name != fieldFor(t.data_type())))
        return "holds values in " + std::string(used.back().name) + ", which a " + type
            + " tensor does not use";
    const std::uint64_t perElement
        = t.data_type() == TensorProto::COMPLEX64 || t.data_type() == TensorProto::COMPLEX128 ? 2 : 1;
    if (!t.raw_data().empty() && t.raw_data().size() != count * elementBytes(t.data_type()))
        return "has " + std::to_string(t.raw_data().size()) + " bytes of raw_data, but "
            + std::to_string(count) + " " + type + " elements (dims " + dims + ") take "
            + std::to_string(count * elementBytes(t.data_type()));
    if (used.size() == 1 && used.front().size != count * perElement)
        return "has " + std::to_string(used.front().size) + " values in " + used.front().name
            + ", but its dims " + dims + " hold " + std::to_string(count * perElement);
    return std::nullopt;
}

bool holdsNoData(const TensorProto& t)
{
    if (!t.raw_data().empty())
        return false;
    const auto fields = typedFields(t);
    return std::all_of(fields.begin(), fields.end(), [](const TypedField& f) { return f.size == 0; });
}

/// A name in quotes (the import cuts it to 64 characters when it returns the error: shortNames).
std::string quoted(const std::string& name)
{
    return "'" + cleanText(name) + "'";
}

/// A declared type's problem: more axes than kMaxRank, or an axis size outside 0 to 2^40.
std::optional<std::string> typeProblem(const onnx::TypeProto& type, int depth = 0)
{
    if (depth > 8)
        return "nests sequence, optional and map types more than 8 deep";
    if (type.has_sequence_type())
        return typeProblem(type.sequence_type().elem_type(), depth + 1);
    if (type.has_optional_type())
        return typeProblem(type.optional_type().elem_type(), depth + 1);
    if (type.has_map_type())
        return typeProblem(type.map_type().value_type(), depth + 1);
    if (type.has_sparse_tensor_type())
        return "is a sparse tensor, which Headroom does not read";
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return std::nullopt;
    const auto& shape = type.tensor_type().shape();
    if (static_cast<std::size_t>(shape.dim_size()) > kMaxRank)
        return "has " + std::to_string(shape.dim_size()) + " axes; tensors have at most "
            + std::to_string(kMaxRank) + " (PyTorch's limit)";
    for (int k = 0; k < shape.dim_size(); ++k) {
        const auto& d = shape.dim(k);
        if (d.has_dim_value() && (d.dim_value() < 0 || d.dim_value() > kMaxDimension))
            return "axis " + std::to_string(k) + " has size " + std::to_string(d.dim_value())
                + "; sizes must be 0 to 2^40";
    }
    return std::nullopt;
}

std::optional<Error> checkDeclaredTypes(const onnx::GraphProto& graph)
{
    const auto check = [](const auto& list, const char* what) -> std::optional<Error> {
        for (const auto& v : list) {
            if (auto problem = typeProblem(v.type()))
                return Error { std::string(what) + " " + quoted(v.name()) + " " + *problem, v.name() };
        }
        return std::nullopt;
    };
    if (auto e = check(graph.input(), "input"))
        return e;
    if (auto e = check(graph.output(), "output"))
        return e;
    return check(graph.value_info(), "the value_info of tensor");
}

/// Attributes whose integers may be anything (sentinels, constants) or whose lists may be long.
bool unboundedIntegers(const onnx::NodeProto& node, const onnx::AttributeProto& a)
{
    return (node.op_type() == "Slice" && (a.name() == "starts" || a.name() == "ends"))
        || (node.op_type() == "Constant" && a.name().rfind("value", 0) == 0);
}

bool longListAllowed(const onnx::NodeProto& node, const onnx::AttributeProto& a)
{
    return (node.op_type() == "Constant" && a.name().rfind("value", 0) == 0)
        || (node.op_type() == "Split" && a.name() == "split");
}

std::optional<std::string> attributeProblem(const onnx::NodeProto& node, const onnx::AttributeProto& a)
{
    static const std::set<std::string> kSizes { "strides", "dilations", "kernel_shape", "group", "blocksize",
        "size" };
    const std::size_t listSize
        = std::max({ a.ints_size(), a.floats_size(), a.strings_size(), a.tensors_size() });
    if (listSize > kMaxAttributeList && !longListAllowed(node, a))
        return "lists " + std::to_string(listSize) + " values; at most " + std::to_string(kMaxAttributeList);
    std::vector<std::int64_t> ints(a.ints().begin(), a.ints().end());
    if (a.type() == onnx::AttributeProto::INT)
        ints.push_back(a.i());
    if (kSizes.count(a.name()) > 0) {
        if (std::any_of(
                ints.begin(), ints.end(), [](std::int64_t v) { return v < 1 || v > kMaxSizeAttribute; }))
            return std::string("is ")
                + (a.type() == onnx::AttributeProto::INT ? std::to_string(a.i()) : joinDims(ints))
                + "; sizes must be 1 to 2^20";
        return std::nullopt;
    }
    if (!unboundedIntegers(node, a) && std::any_of(ints.begin(), ints.end(), [](std::int64_t v) {
            return v < -kMaxIntAttribute || v > kMaxIntAttribute;
        }))
        return std::string("is ")
            + (a.type() == onnx::AttributeProto::INT ? std::to_string(a.i()) : joinDims(ints))
            + "; integer attributes must be from -2^40 to 2^40";
    if (a.has_sparse_tensor() || a.sparse_tensors_size() > 0)
        return "holds a sparse tensor, which Headroom does not read";
    return std::nullopt;
}

std::optional<Error> checkNodes(
    const onnx::GraphProto& graph, const std::unordered_set<std::string>& initializers)
{
    std::unordered_map<std::string, int> writer;
    for (int i = 0; i < graph.node_size(); ++i) {
        const auto& node = graph.node(i);
        const std::string label
            = "node " + cleanText(nodeLabel(node)) + " (" + cleanText(node.op_type()) + ")";
        for (const auto& out : node.output()) {
            if (!out.empty() && initializers.count(out) > 0)
                return Error { label + " writes tensor " + quoted(out) + ", which is also an initializer",
                    node.name() };
        }
        const bool standard = node.domain().empty() || node.domain() == "ai.onnx";
        for (const auto& a : node.attribute()) {
            const std::string where = label + " attribute " + quoted(a.name());
            if (standard) {
                if (auto problem = attributeProblem(node, a))
                    return Error { where + " " + *problem, node.name() };
            }
            if (a.has_t()) {
                if (auto problem = tensorProblem(a.t()))
                    return Error { where + ": its tensor " + *problem, node.name() };
            }
            for (const auto& t : a.tensors()) {
                if (auto problem = tensorProblem(t))
                    return Error { where + ": a tensor in it " + *problem, node.name() };
            }
        }
    }
    return std::nullopt;
}

template <typename Visit> void forEachStoredTensor(onnx::GraphProto& graph, Visit visit)
{
    for (auto& t : *graph.mutable_initializer())
        visit(t);
    for (auto& node : *graph.mutable_node()) {
        for (auto& a : *node.mutable_attribute()) {
            if (a.has_t())
                visit(*a.mutable_t());
            for (auto& t : *a.mutable_tensors())
                visit(t);
        }
    }
}

} // namespace

std::optional<std::string> tensorProblem(const TensorProto& t)
{
    if (!onnx::TensorProto_DataType_IsValid(t.data_type()) || t.data_type() == TensorProto::UNDEFINED)
        return t.data_type() == TensorProto::UNDEFINED
            ? std::string("has no element type")
            : "has the unknown element type " + std::to_string(t.data_type());
    if (t.data_type() == TensorProto::STRING)
        return std::string("holds strings (element type STRING); Headroom reads numeric tensors only");
    if (t.has_segment())
        return std::string("is stored in segments, which Headroom does not read");
    std::uint64_t count = 0;
    if (auto problem = countProblem(t, count))
        return problem;
    if (t.data_location() == TensorProto::EXTERNAL)
        return std::nullopt; // its data is in another file: only its dims are read
    return dataProblem(t, count);
}

std::optional<Error> validateModel(const onnx::ModelProto& model)
{
    const auto& graph = model.graph();
    if (graph.sparse_initializer_size() > 0)
        return Error { "has a sparse initializer (" + quoted(graph.sparse_initializer(0).values().name())
                + "); Headroom does not read sparse tensors",
            graph.sparse_initializer(0).values().name() };
    std::unordered_set<std::string> initializers;
    for (const auto& t : graph.initializer()) {
        if (!initializers.insert(t.name()).second)
            return Error { "initializer " + quoted(t.name())
                    + " is given twice; an ONNX graph defines each tensor once",
                t.name() };
        if (auto problem = tensorProblem(t))
            return Error { "initializer " + quoted(t.name()) + " " + *problem, t.name() };
    }
    std::unordered_set<std::string> outputs;
    for (const auto& out : graph.output()) {
        if (!outputs.insert(out.name()).second)
            return Error { "lists " + quoted(out.name())
                    + " as a graph output twice; each output is one tensor",
                out.name() };
    }
    if (auto e = checkDeclaredTypes(graph))
        return e;
    return checkNodes(graph, initializers);
}

void markMissingDataExternal(onnx::ModelProto& model)
{
    forEachStoredTensor(*model.mutable_graph(), [](TensorProto& t) {
        const bool empty
            = std::any_of(t.dims().begin(), t.dims().end(), [](std::int64_t d) { return d == 0; });
        if (!empty && holdsNoData(t) && t.data_location() != TensorProto::EXTERNAL)
            t.set_data_location(TensorProto::EXTERNAL);
    });
}

} // namespace headroom::onnximport
