// OnnxGraph's constant folding: the values of shape tensors ONNX 1.12's data propagation leaves open
// (shapeTensor), and small integer tensors computed from constants only (foldIntegers).
#include "OnnxGraph.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace headroom::onnximport {

namespace {

constexpr double kLargestExactInteger = 9007199254740992.0; // 2^53

/// One element-wise step of shape arithmetic (torch writes `h // patch` as Div on int64 sizes); nullopt
/// when the result does not fit 64 bits.
std::optional<std::int64_t> combine(const std::string& op, std::int64_t a, std::int64_t b)
{
    std::int64_t result = 0;
    if (op == "Add")
        return __builtin_add_overflow(a, b, &result) ? std::optional<std::int64_t> {} : result;
    if (op == "Sub")
        return __builtin_sub_overflow(a, b, &result) ? std::optional<std::int64_t> {} : result;
    if (op == "Mul")
        return __builtin_mul_overflow(a, b, &result) ? std::optional<std::int64_t> {} : result;
    if (op == "Div" && b != 0)
        return a >= 0 && b > 0 ? a / b : std::optional<std::int64_t> {};
    if (op == "Mod" && b > 0) { // ONNX's integer Mod (fmod 0) takes the divisor's sign, as Python's %
        const std::int64_t r = a % b;
        return r < 0 ? r + b : r; // never (a % b) + b, which overflows for b above 2^62
    }
    return std::nullopt;
}

/// One step of shape arithmetic on sizes that may be multiples of the batch size B (a*B): a*B times c,
/// c times a*B, a*B / c when c divides a (torch's `B * heads`, `B * heads // heads`). A multiple of B
/// combined any other way (B + 1, B * B) stays unknown.
Dim combineDims(const std::string& op, const Dim& x, const Dim& y, const std::string& batch)
{
    Dim d;
    if (x.known() && y.known()) {
        d.value = combine(op, *x.value, *y.value);
        return d;
    }
    const auto a = batchMultiple(x, batch);
    const auto b = batchMultiple(y, batch);
    std::optional<std::int64_t> multiple;
    if (op == "Mul" && a && y.known())
        multiple = combine(op, *a, *y.value);
    else if (op == "Mul" && b && x.known())
        multiple = combine(op, *b, *x.value);
    else if (op == "Div" && a && y.known() && *y.value > 0 && *a % *y.value == 0)
        multiple = *a / *y.value;
    if (multiple && *multiple >= 1)
        return batchDim(*multiple, batch);
    if (op == "Mul" && y.known() && *y.value == 1)
        return x; // another symbol times 1
    return d;
}

} // namespace

std::optional<std::vector<Dim>> OnnxGraph::shapeTensor(const std::string& value) const
{
    return shapeTensor(value, 0);
}

namespace {

using DimsOf = std::function<std::optional<std::vector<Dim>>(const std::string&)>;

/// Shape(x) with its start and end (opset 15).
std::optional<std::vector<Dim>> shapeDims(const onnx::NodeProto& n, const ValueType* t)
{
    if (t == nullptr || !t->hasShape)
        return std::nullopt;
    const auto r = static_cast<std::int64_t>(t->dims.size());
    auto start = intAttribute(n, "start").value_or(0);
    auto end = intAttribute(n, "end").value_or(r);
    start = std::clamp<std::int64_t>(start < 0 ? start + r : start, 0, r);
    end = std::clamp<std::int64_t>(end < 0 ? end + r : end, 0, r);
    return std::vector<Dim>(t->dims.begin() + start, t->dims.begin() + std::max(start, end));
}

/// Gather along axis 0 of a size vector, with stored indices.
std::optional<std::vector<Dim>> gatherDims(
    const std::optional<std::vector<Dim>>& data, const std::optional<std::vector<double>>& indices)
{
    if (!data || !indices)
        return std::nullopt;
    std::vector<Dim> out;
    const auto r = static_cast<std::int64_t>(data->size());
    for (const double x : *indices) {
        if (!(x >= -static_cast<double>(r) && x < static_cast<double>(r)))
            return std::nullopt; // also NaN: never cast a double that does not fit
        auto k = static_cast<std::int64_t>(x);
        if (k < 0)
            k += r;
        if (k < 0 || k >= r)
            return std::nullopt;
        out.push_back((*data)[static_cast<std::size_t>(k)]);
    }
    return out;
}

/// Slice of a size vector with stored starts and ends, step 1 (the dynamo exporter's `shape[:2]`).
std::optional<std::vector<Dim>> sliceDims(const onnx::NodeProto& n,
    const std::optional<std::vector<Dim>>& data,
    const std::function<std::optional<std::vector<double>>(int)>& stored)
{
    if (!data || n.input_size() < 3)
        return std::nullopt;
    const auto starts = stored(1);
    const auto ends = stored(2);
    const auto axes = n.input_size() > 3 && !n.input(3).empty() ? stored(3) : std::vector<double> { 0 };
    const auto steps = n.input_size() > 4 && !n.input(4).empty() ? stored(4) : std::vector<double> { 1 };
    if (!starts || !ends || !axes || !steps || starts->size() != 1 || ends->size() != 1
        || *axes != std::vector<double> { 0 } || *steps != std::vector<double> { 1 })
        return std::nullopt;
    const auto r = static_cast<std::int64_t>(data->size());
    const auto bound = [r](double x) {
        const auto i = saturatedInteger(x).value_or(0);
        return std::clamp<std::int64_t>(i < 0 ? (i < -r ? 0 : i + r) : i, 0, r);
    };
    const std::int64_t start = bound((*starts)[0]);
    const std::int64_t end = std::max(start, bound((*ends)[0]));
    return std::vector<Dim>(data->begin() + start, data->begin() + end);
}

/// A size vector reshaped to one axis of its own length ([-1] or [n]): the same sizes.
std::optional<std::vector<Dim>> vectorReshaped(
    const std::optional<std::vector<Dim>>& data, const std::optional<SmallIntTensor>& target)
{
    if (!data || !target || target->data.size() != 1)
        return std::nullopt;
    const std::int64_t length = target->data.front();
    if (length != -1 && length != static_cast<std::int64_t>(data->size()))
        return std::nullopt;
    return data;
}

/// ConstantOfShape of a known length: that many copies of its value (0 by default).
std::optional<std::vector<Dim>> filledDims(
    const onnx::NodeProto& n, const std::optional<std::vector<Dim>>& shape)
{
    if (!shape || shape->size() != 1 || !shape->front().known() || *shape->front().value < 0
        || *shape->front().value > 64)
        return std::nullopt;
    std::int64_t fill = 0;
    for (const auto& a : n.attribute()) {
        if (a.name() != "value" || !a.has_t())
            continue;
        const auto v = tensorNumbers(a.t(), 1);
        if (!v || v->size() != 1 || !(std::abs(v->front()) <= kLargestExactInteger))
            return std::nullopt;
        fill = static_cast<std::int64_t>(v->front());
    }
    return std::vector<Dim>(static_cast<std::size_t>(*shape->front().value), Dim { fill, {} });
}

/// Whether two sizes are equal: two numbers compared; a multiple of the batch size (at least 1) is never
/// a number below 1 (torch compares the sizes with -1); anything else unknown.
std::optional<bool> sameDim(const Dim& a, const Dim& b, const std::string& batch)
{
    if (a.known() && b.known())
        return *a.value == *b.value;
    if (batchMultiple(a, batch) && b.known() && *b.value < 1)
        return false;
    if (batchMultiple(b, batch) && a.known() && *a.value < 1)
        return false;
    return std::nullopt;
}

/// Where of size vectors with a condition known for every element (one of them may be a single size).
std::optional<std::vector<Dim>> whereDims(const std::optional<std::vector<std::optional<bool>>>& condition,
    const std::optional<std::vector<Dim>>& a, const std::optional<std::vector<Dim>>& b)
{
    if (!condition || !a || !b || a->empty() || b->empty())
        return std::nullopt;
    const std::size_t size = condition->size();
    if ((a->size() != size && a->size() != 1) || (b->size() != size && b->size() != 1))
        return std::nullopt;
    std::vector<Dim> out;
    for (std::size_t k = 0; k < size; ++k) {
        if (!(*condition)[k])
            return std::nullopt;
        out.push_back(*(*condition)[k] ? (*a)[a->size() == 1 ? 0 : k] : (*b)[b->size() == 1 ? 0 : k]);
    }
    return out;
}

/// Add, Sub, Mul, Div of size vectors (one of them may be a single size, broadcast).
std::optional<std::vector<Dim>> arithmeticDims(const std::string& op,
    const std::optional<std::vector<Dim>>& a, const std::optional<std::vector<Dim>>& b,
    const std::string& batch)
{
    if (!a || !b || a->empty() || b->empty() || (a->size() != b->size() && a->size() != 1 && b->size() != 1))
        return std::nullopt;
    std::vector<Dim> out;
    for (std::size_t k = 0; k < std::max(a->size(), b->size()); ++k)
        out.push_back(combineDims(op, (*a)[a->size() == 1 ? 0 : k], (*b)[b->size() == 1 ? 0 : k], batch));
    return out;
}

} // namespace

std::optional<std::vector<Dim>> OnnxGraph::shapeTensor(const std::string& value, int depth) const
{
    // Memoised per value and depth (the depth bound is part of the answer): a size computation reads each
    // value from every node after it, which without this doubled the work per node (v + v, issue 38).
    FoldKey key { value, depth };
    if (const auto it = m_shapeTensors.find(key); it != m_shapeTensors.end())
        return it->second;
    auto result = shapeTensorUncached(value, depth);
    m_shapeTensors.emplace(std::move(key), result);
    return result;
}

std::optional<std::vector<Dim>> OnnxGraph::shapeTensorUncached(const std::string& value, int depth) const
{
    // ONNX's data propagation may know a vector only in part (a size times a symbolic batch is unknown
    // to it): then the importer's own folding below, when it knows more.
    auto propagated = propagatedShapeTensor(value);
    const auto open = [](const std::vector<Dim>& dims) {
        return std::any_of(
            dims.begin(), dims.end(), [](const Dim& d) { return !d.known() && d.symbol.empty(); });
    };
    if (propagated && !open(*propagated))
        return propagated;
    auto folded = foldShapeTensor(value, depth);
    return folded && (!propagated || !open(*folded)) ? folded : propagated;
}

std::optional<std::vector<Dim>> OnnxGraph::foldShapeTensor(const std::string& value, int depth) const
{
    // What ONNX 1.12's data propagation leaves open (Gather of a Shape, size arithmetic): the sizes a
    // traced x.size() computes, followed back through the small vector operators torch writes.
    const int p = producer(value);
    if (p < 0 || depth > 32)
        return std::nullopt;
    const auto& n = m_graph->node(p);
    const std::string& op = n.op_type();
    const auto input
        = [&](int k) { return n.input_size() > k ? shapeTensor(n.input(k), depth + 1) : std::nullopt; };
    if (op == "Shape" && n.input_size() == 1)
        return shapeDims(n, type(n.input(0)));
    if ((op == "Unsqueeze" || op == "Squeeze" || op == "Cast" || op == "Identity") && n.input_size() >= 1)
        return input(0); // on size vectors of at most one axis
    if (op == "Gather" && n.input_size() == 2 && intAttribute(n, "axis").value_or(0) == 0)
        return gatherDims(input(0), constantNumbers(n.input(1), 64));
    if (op == "Slice") // bounds torch computes from the rank (unflatten's `dim % rank`) folded too
        return sliceDims(n, input(0), [&](int k) -> std::optional<std::vector<double>> {
            const auto folded = foldIntegers(n.input(k), depth + 1);
            return folded ? std::optional { std::vector<double>(folded->data.begin(), folded->data.end()) }
                          : std::nullopt;
        });
    if (op == "Concat") {
        std::vector<Dim> out;
        for (int k = 0; k < n.input_size(); ++k) {
            const auto part = input(k);
            if (!part)
                return std::nullopt;
            out.insert(out.end(), part->begin(), part->end());
        }
        return out;
    }
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div"
            || (op == "Mod" && intAttribute(n, "fmod").value_or(0) == 0))
        && n.input_size() == 2) // Mod: the window partition's `(window - W % window) % window`
        return arithmeticDims(op, input(0), input(1), batchSymbol());
    if (op == "Reshape" && n.input_size() == 2) // a size vector kept 1-D: the dynamo exporter's `view(-1)`
        return vectorReshaped(input(0), foldIntegers(n.input(1), depth + 1));
    if (op == "ConstantOfShape" && n.input_size() == 1)
        return filledDims(n, input(0));
    if (op == "Where" && n.input_size() == 3) // torch's expand(n, -1, -1): -1 sizes replaced by 1
        return whereDims(equalDims(producer(n.input(0)), depth), input(1), input(2));
    return std::nullopt;
}

std::optional<std::vector<std::optional<bool>>> OnnxGraph::equalDims(int node, int depth) const
{
    if (node < 0 || m_graph->node(node).op_type() != "Equal" || m_graph->node(node).input_size() != 2)
        return std::nullopt;
    const auto& n = m_graph->node(node);
    const auto a = shapeTensor(n.input(0), depth + 1);
    const auto b = shapeTensor(n.input(1), depth + 1);
    if (!a || !b || a->size() != b->size())
        return std::nullopt;
    std::vector<std::optional<bool>> out;
    for (std::size_t k = 0; k < a->size(); ++k)
        out.push_back(sameDim((*a)[k], (*b)[k], batchSymbol()));
    return out;
}

namespace {

std::optional<std::vector<std::int64_t>> intsAttribute(const onnx::NodeProto& node, const char* name)
{
    for (const auto& a : node.attribute()) {
        if (a.name() == name && a.type() == onnx::AttributeProto::INTS)
            return std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
    }
    return std::nullopt;
}

} // namespace

std::optional<SmallIntTensor> OnnxGraph::foldIntegers(const std::string& value, int depth) const
{
    FoldKey key { value, depth }; // memoised as shapeTensor is
    if (const auto it = m_foldedIntegers.find(key); it != m_foldedIntegers.end())
        return it->second;
    auto result = foldIntegersChecked(value, depth);
    m_foldedIntegers.emplace(std::move(key), result);
    return result;
}

std::optional<SmallIntTensor> OnnxGraph::foldIntegersChecked(const std::string& value, int depth) const
{
    // Every step below indexes `data` by `shape`: a result whose shape does not hold exactly its values (a
    // declared type that contradicts the constant, a Reshape to another size) is no result.
    auto folded = foldIntegersUnchecked(value, depth);
    if (!folded)
        folded = knownSizes(value, depth);
    std::int64_t count = 1;
    for (const auto d : folded ? folded->shape : std::vector<std::int64_t> {}) {
        if (d < 0 || __builtin_mul_overflow(count, d, &count))
            return std::nullopt;
    }
    if (folded && static_cast<std::uint64_t>(count) != folded->data.size())
        return std::nullopt;
    return folded;
}

namespace {

constexpr std::size_t kMaxFoldedElements = 64;
using Folded = std::optional<SmallIntTensor>;

/// A stored constant's values, shaped by its type when that is known.
Folded foldConstant(const std::vector<double>& numbers, const ValueType* t)
{
    SmallIntTensor out;
    if (t != nullptr && t->hasShape && t->perSample()) {
        for (const auto& d : t->dims)
            out.shape.push_back(*d.value);
    } else if (numbers.size() != 1) {
        out.shape.push_back(static_cast<std::int64_t>(numbers.size()));
    }
    for (const double x : numbers) {
        if (std::isnan(x))
            return std::nullopt;
        // INT64_MIN / INT64_MAX (a Slice "to the end") kept as far-out values that cannot overflow.
        out.data.push_back(
            static_cast<std::int64_t>(std::clamp(x, -kLargestExactInteger, kLargestExactInteger)));
    }
    return out;
}

Folded foldConstantOfShape(const onnx::NodeProto& n, const Folded& shape)
{
    if (!shape || shape->data.size() > 4)
        return std::nullopt;
    std::int64_t count = 1;
    for (const auto d : shape->data) {
        if (d < 0 || __builtin_mul_overflow(count, d, &count))
            return std::nullopt;
    }
    if (count > static_cast<std::int64_t>(kMaxFoldedElements))
        return std::nullopt;
    std::int64_t fill = 0;
    for (const auto& a : n.attribute()) {
        if (a.name() == "value" && a.has_t()) {
            const auto v = tensorNumbers(a.t(), 1);
            if (!v || v->size() != 1)
                return std::nullopt;
            fill = static_cast<std::int64_t>(v->front());
        }
    }
    return SmallIntTensor { shape->data, std::vector<std::int64_t>(static_cast<std::size_t>(count), fill) };
}

Folded foldArithmetic(const std::string& op, const Folded& a, const Folded& b)
{
    if (!a || !b || a->data.empty() || b->data.empty()
        || (a->data.size() != b->data.size() && a->data.size() != 1 && b->data.size() != 1))
        return std::nullopt;
    SmallIntTensor out { a->data.size() >= b->data.size() ? a->shape : b->shape, {} };
    for (std::size_t k = 0; k < std::max(a->data.size(), b->data.size()); ++k) {
        const auto value
            = combine(op, a->data[a->data.size() == 1 ? 0 : k], b->data[b->data.size() == 1 ? 0 : k]);
        if (!value)
            return std::nullopt;
        out.data.push_back(*value);
    }
    return out;
}

Folded foldGather(const Folded& data, const Folded& indices)
{
    if (!data || !indices || data->shape.size() != 1)
        return std::nullopt;
    SmallIntTensor out { indices->shape, {} };
    for (auto k : indices->data) {
        if (k < 0)
            k += data->shape[0];
        if (k < 0 || k >= data->shape[0])
            return std::nullopt;
        out.data.push_back(data->data[static_cast<std::size_t>(k)]);
    }
    return out;
}

Folded foldReshape(Folded x, const Folded& target)
{
    if (!x || !target)
        return std::nullopt;
    std::vector<std::int64_t> shape = target->data;
    std::int64_t known = 1;
    for (const auto d : shape) {
        if (d < -1 || __builtin_mul_overflow(known, d == -1 ? 1 : d, &known))
            return std::nullopt;
    }
    for (auto& d : shape) {
        if (d == -1 && known > 0)
            d = static_cast<std::int64_t>(x->data.size()) / known;
    }
    x->shape = shape;
    return x;
}

Folded foldTranspose(const onnx::NodeProto& n, const Folded& x)
{
    if (!x || x->shape.size() != 2
        || intsAttribute(n, "perm").value_or(std::vector<std::int64_t> { 1, 0 })
            != std::vector<std::int64_t> { 1, 0 })
        return std::nullopt;
    SmallIntTensor out { { x->shape[1], x->shape[0] }, {} };
    for (std::int64_t c = 0; c < x->shape[1]; ++c)
        for (std::int64_t r = 0; r < x->shape[0]; ++r)
            out.data.push_back(x->data[static_cast<std::size_t>(r * x->shape[1] + c)]);
    return out;
}

/// Slice along the first axis only (torch's flip of the [-1, 2] pad pairs), any step.
Folded foldSlice(
    const Folded& x, const Folded& starts, const Folded& ends, const Folded& axes, const Folded& steps)
{
    if (!x || x->shape.empty() || !starts || !ends || starts->data.size() != 1 || ends->data.size() != 1
        || (axes && (axes->data.size() != 1 || axes->data[0] != 0)) || (steps && steps->data.size() != 1))
        return std::nullopt;
    const std::int64_t rows = x->shape[0];
    if ((steps && steps->data[0] == 0) || rows == 0)
        return std::nullopt;
    // A step past the rows takes the start alone, as the step itself would (and `r += step` cannot overflow).
    const std::int64_t step = steps ? std::clamp<std::int64_t>(steps->data[0], -rows, rows) : 1;
    const std::int64_t rowSize = static_cast<std::int64_t>(x->data.size()) / rows;
    // Python's slice rules (ONNX Slice): negative counts from the end, then clamped.
    const auto bound = [&](std::int64_t i) {
        if (i < 0)
            i += rows;
        return step > 0 ? std::clamp<std::int64_t>(i, 0, rows) : std::clamp<std::int64_t>(i, -1, rows - 1);
    };
    const std::int64_t start = bound(starts->data[0]);
    const std::int64_t end = bound(ends->data[0]);
    SmallIntTensor out { x->shape, {} };
    std::int64_t taken = 0;
    for (std::int64_t r = start; step > 0 ? r < end : r > end; r += step, ++taken)
        out.data.insert(out.data.end(), x->data.begin() + r * rowSize, x->data.begin() + (r + 1) * rowSize);
    out.shape[0] = taken;
    return out;
}

} // namespace

std::optional<SmallIntTensor> OnnxGraph::foldIntegersUnchecked(const std::string& value, int depth) const
{
    if (depth > 32)
        return std::nullopt;
    const int p = producer(value);
    if (p < 0 || m_graph->node(p).op_type() == "Constant") {
        const auto numbers = constantNumbers(value, kMaxFoldedElements);
        return numbers ? foldConstant(*numbers, type(value)) : std::nullopt;
    }
    const auto& n = m_graph->node(p);
    const std::string& op = n.op_type();
    const auto in = [&](int k) {
        return n.input_size() > k && !n.input(k).empty() ? foldIntegers(n.input(k), depth + 1) : std::nullopt;
    };
    if (op == "Cast" || op == "Identity")
        return in(0);
    if (op == "Shape") {
        const auto x = in(0);
        return x ? Folded { SmallIntTensor { { static_cast<std::int64_t>(x->shape.size()) }, x->shape } }
                 : std::nullopt;
    }
    if (op == "ConstantOfShape")
        return foldConstantOfShape(n, in(0));
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div"
        || (op == "Mod" && intAttribute(n, "fmod").value_or(0) == 0))
        return foldArithmetic(op, in(0), in(1));
    if (op == "Gather" && intAttribute(n, "axis").value_or(0) == 0)
        return foldGather(in(0), in(1));
    if (op == "Concat" && intAttribute(n, "axis").value_or(0) == 0) {
        SmallIntTensor out { { 0 }, {} };
        for (int k = 0; k < n.input_size(); ++k) {
            const auto part = in(k);
            if (!part || part->shape.size() > 1)
                return std::nullopt;
            out.data.insert(out.data.end(), part->data.begin(), part->data.end());
        }
        out.shape[0] = static_cast<std::int64_t>(out.data.size());
        return out;
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
        const auto x = in(0);
        return x ? Folded { SmallIntTensor { { static_cast<std::int64_t>(x->data.size()) }, x->data } }
                 : std::nullopt;
    }
    if (op == "Reshape")
        return foldReshape(in(0), in(1));
    if (op == "Transpose")
        return foldTranspose(n, in(0));
    if (op == "Slice")
        return foldSlice(in(0), in(1), in(2), in(3), in(4));
    return std::nullopt;
}

std::optional<SmallIntTensor> OnnxGraph::knownSizes(const std::string& value, int depth) const
{
    // Sizes of a computed tensor read through Shape: F.pad's amounts from `(window - W % window) % window`,
    // W = x.shape[2]; foldIntegers alone stops at the Shape of a tensor with a batch axis.
    const int p = producer(value);
    const auto* t = type(value);
    if (p < 0 || depth > 32 || t == nullptr || !t->hasShape || t->rank() > 1)
        return std::nullopt;
    const std::string& op = m_graph->node(p).op_type();
    static const std::unordered_set<std::string> sizeOperators { "Shape", "Gather", "Slice", "Unsqueeze",
        "Squeeze", "Cast", "Identity", "Concat", "Add", "Sub", "Mul", "Div", "Mod" };
    if (sizeOperators.count(op) == 0)
        return std::nullopt;
    if (const auto it = m_knownSizes.find(value); it != m_knownSizes.end())
        return it->second;
    m_knownSizes.emplace(value, std::nullopt); // nothing while it is worked out: a cycle ends here
    const auto dims = shapeTensor(value, depth + 1);
    if (!dims || dims->empty() || (t->rank() == 0 && dims->size() != 1)
        || !std::all_of(dims->begin(), dims->end(), [](const Dim& d) { return d.known(); }))
        return std::nullopt;
    SmallIntTensor out;
    if (t->rank() == 1)
        out.shape.push_back(static_cast<std::int64_t>(dims->size()));
    for (const auto& d : *dims)
        out.data.push_back(*d.value);
    m_knownSizes[value] = out;
    return out;
}

std::optional<std::vector<Dim>> OnnxGraph::propagatedShapeTensor(const std::string& value) const
{
    if (const auto it = m_shapeData.find(value); it != m_shapeData.end()) {
        std::vector<Dim> dims;
        for (const auto& d : it->second.dim()) {
            Dim dim;
            if (d.has_dim_value())
                dim.value = d.dim_value();
            else if (d.has_dim_param())
                dim.symbol = d.dim_param();
            dims.push_back(dim);
        }
        return dims;
    }
    const auto numbers = constantNumbers(value, 64);
    if (!numbers)
        return std::nullopt;
    std::vector<Dim> dims;
    for (const double x : *numbers) {
        if (!(x >= -kLargestExactInteger && x <= kLargestExactInteger)) // also refuses NaN
            return std::nullopt;
        dims.push_back(Dim { static_cast<std::int64_t>(x), {} });
    }
    return dims;
}

} // namespace headroom::onnximport
