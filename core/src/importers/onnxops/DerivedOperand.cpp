// An operand computed from stored tensors and sizes but not itself stored: Swin's relative-position bias
// (a table gathered by a stored index, viewed and permuted), Swin V2's (a small MLP on stored coordinates,
// then 16 * sigmoid), Swin V2's logit scale (clamp, exp) and the shifted-window attention mask (built from
// the padded size). None depends on the input's values, so it is the same tensor for every sample: what
// autograd keeps for it does not grow with the batch, and what trains are the stored floating-point
// tensors it is computed from.
#include "Families.h"

#include <unordered_map>
#include <unordered_set>

namespace headroom::onnximport::ops {

namespace {

constexpr std::size_t kMaxOperandNodes = 4096;

/// Whether a stored tensor of `elements` values, read as input `k` of node `n`, is not a weight the operator
/// applies: the data of a product of two stored tensors (its first operand: Swin V2's coordinate table, a
/// buffer, times the MLP's weight), a Gather's indices, and a number in arithmetic (one element, as
/// Arithmetic.cpp reads a stored operand of one element: the dynamo exporter stores `16 * sigmoid`'s 16).
bool readAsData(const onnx::NodeProto& n, int k, std::int64_t elements)
{
    const std::string& op = n.op_type();
    const bool arithmetic = op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow";
    return ((op == "MatMul" || op == "Gemm") && k == 0) || (op == "Gather" && k == 1)
        || (arithmetic && elements == 1);
}

/// The number of values of `dims`; nullopt on overflow.
std::optional<std::int64_t> elementsOf(const std::vector<std::int64_t>& dims)
{
    std::int64_t elements = 1;
    for (const auto d : dims) {
        if (d < 0 || __builtin_mul_overflow(elements, d, &elements))
            return std::nullopt;
    }
    return elements;
}

/// A comparison or a selection by one: the operand is a mask (masked_fill: Where(x != 0, -100, x)), whose
/// values do not train whatever stored tensors it starts from (the dynamo exporter stores the shifted-window
/// mask's template as a float tensor).
bool selects(const std::string& op)
{
    return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual"
        || op == "Not" || op == "Where";
}

bool isFloat(std::int32_t elementType)
{
    return elementType == onnx::TensorProto::FLOAT || elementType == onnx::TensorProto::FLOAT16
        || elementType == onnx::TensorProto::BFLOAT16 || elementType == onnx::TensorProto::DOUBLE;
}

} // namespace

std::optional<DerivedOperand> derivedOperand(const OnnxGraph& g, const std::string& value)
{
    if (g.carriesData(value) || g.isInitializer(value) || g.producer(value) < 0)
        return std::nullopt;
    if (g.graph().node(g.producer(value)).op_type() == "Constant")
        return std::nullopt;
    const auto* t = g.type(value);
    auto dims = t != nullptr && t->hasShape ? t->knownDims() : std::nullopt;
    if (!dims)
        return std::nullopt;
    DerivedOperand out { std::move(*dims), 0 };
    std::unordered_set<std::string> seen { value };
    std::unordered_map<std::string, std::int64_t> trained; ///< the stored tensors that train, and their sizes
    std::vector<std::string> todo { value };
    bool mask = false;
    while (!todo.empty()) {
        if (seen.size() > kMaxOperandNodes)
            return std::nullopt;
        const int p = g.producer(todo.back());
        todo.pop_back();
        if (p < 0)
            continue;
        const auto& n = g.graph().node(p);
        if (n.op_type() == "Shape" || n.op_type() == "Size")
            continue; // sizes only
        mask = mask || selects(n.op_type());
        for (int k = 0; k < n.input_size(); ++k) {
            const std::string& in = n.input(k);
            if (in.empty() || !seen.insert(in).second)
                continue;
            if (g.carriesData(in))
                return std::nullopt;
            if (g.isInitializer(in)) {
                const auto* it = g.type(in);
                const auto stored = it != nullptr ? it->knownDims() : std::nullopt;
                const auto elements = stored ? elementsOf(*stored) : std::nullopt;
                if (!elements)
                    return std::nullopt;
                if (isFloat(it->elementType) && !readAsData(n, k, *elements))
                    trained[in] = *elements;
                continue;
            }
            todo.push_back(in);
        }
    }
    if (mask)
        trained.clear();
    for (const auto& [name, elements] : trained) {
        if (__builtin_add_overflow(out.trainedElements, elements, &out.trainedElements))
            return std::nullopt;
    }
    return out;
}

} // namespace headroom::onnximport::ops
