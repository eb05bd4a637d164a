// OnnxGraph's constant folding: the values of shape tensors ONNX 1.12's data propagation leaves open
// (shapeTensor), and small integer tensors computed from constants only (foldIntegers).
#include "OnnxGraph.h"

#include <algorithm>
#include <cmath>

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
    return std::nullopt;
}

} // namespace

std::optional<std::vector<Dim>> OnnxGraph::shapeTensor(const std::string& value) const
{
    return shapeTensor(value, 0);
}

std::optional<std::vector<Dim>> OnnxGraph::shapeTensor(const std::string& value, int depth) const
{
    if (auto dims = propagatedShapeTensor(value))
        return dims;
    // What ONNX 1.12's data propagation leaves open (Gather of a Shape, size arithmetic): the sizes a
    // traced x.size() computes, followed back through the small vector operators torch writes.
    const int p = producer(value);
    if (p < 0 || depth > 32)
        return std::nullopt;
    const auto& n = m_graph->node(p);
    const std::string& op = n.op_type();
    if (op == "Shape" && n.input_size() == 1) {
        const auto* t = type(n.input(0));
        if (t == nullptr || !t->hasShape)
            return std::nullopt;
        const auto r = static_cast<std::int64_t>(t->dims.size());
        auto start = intAttribute(n, "start").value_or(0);
        auto end = intAttribute(n, "end").value_or(r);
        start = std::clamp<std::int64_t>(start < 0 ? start + r : start, 0, r);
        end = std::clamp<std::int64_t>(end < 0 ? end + r : end, 0, r);
        return std::vector<Dim>(t->dims.begin() + start, t->dims.begin() + std::max(start, end));
    }
    if ((op == "Unsqueeze" || op == "Squeeze" || op == "Cast" || op == "Identity") && n.input_size() >= 1)
        return shapeTensor(n.input(0), depth + 1); // on size vectors of at most one axis
    if (op == "Gather" && n.input_size() == 2 && intAttribute(n, "axis").value_or(0) == 0) {
        const auto data = shapeTensor(n.input(0), depth + 1);
        const auto indices = constantNumbers(n.input(1), 64);
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
    if (op == "Concat") {
        std::vector<Dim> out;
        for (const auto& in : n.input()) {
            const auto part = shapeTensor(in, depth + 1);
            if (!part)
                return std::nullopt;
            out.insert(out.end(), part->begin(), part->end());
        }
        return out;
    }
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && n.input_size() == 2) {
        const auto a = shapeTensor(n.input(0), depth + 1);
        const auto b = shapeTensor(n.input(1), depth + 1);
        if (!a || !b || a->empty() || b->empty()
            || (a->size() != b->size() && a->size() != 1 && b->size() != 1))
            return std::nullopt;
        std::vector<Dim> out;
        for (std::size_t k = 0; k < std::max(a->size(), b->size()); ++k) {
            const Dim& x = (*a)[a->size() == 1 ? 0 : k];
            const Dim& y = (*b)[b->size() == 1 ? 0 : k];
            Dim d;
            if (x.known() && y.known())
                d.value = combine(op, *x.value, *y.value);
            else if (op == "Mul" && y.known() && *y.value == 1)
                d = x; // the batch size times 1
            out.push_back(d);
        }
        return out;
    }
    return std::nullopt;
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
    // Every step below indexes `data` by `shape`: a result whose shape does not hold exactly its values (a
    // declared type that contradicts the constant, a Reshape to another size) is no result.
    auto folded = foldIntegersUnchecked(value, depth);
    std::int64_t count = 1;
    for (const auto d : folded ? folded->shape : std::vector<std::int64_t> {}) {
        if (d < 0 || __builtin_mul_overflow(count, d, &count))
            return std::nullopt;
    }
    if (folded && static_cast<std::uint64_t>(count) != folded->data.size())
        return std::nullopt;
    return folded;
}

std::optional<SmallIntTensor> OnnxGraph::foldIntegersUnchecked(const std::string& value, int depth) const
{
    constexpr std::size_t kMaxElements = 64;
    if (depth > 32)
        return std::nullopt;
    const int p = producer(value);
    const auto* t = type(value);
    if (p < 0 || m_graph->node(p).op_type() == "Constant") {
        const auto numbers = constantNumbers(value, kMaxElements);
        if (!numbers)
            return std::nullopt;
        SmallIntTensor out;
        if (t != nullptr && t->hasShape && t->perSample()) {
            for (const auto& d : t->dims)
                out.shape.push_back(*d.value);
        } else if (numbers->size() != 1) {
            out.shape.push_back(static_cast<std::int64_t>(numbers->size()));
        }
        for (const double x : *numbers) {
            if (std::isnan(x))
                return std::nullopt;
            // INT64_MIN / INT64_MAX (a Slice "to the end") kept as far-out values that cannot overflow.
            out.data.push_back(
                static_cast<std::int64_t>(std::clamp(x, -kLargestExactInteger, kLargestExactInteger)));
        }
        return out;
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
        if (!x)
            return std::nullopt;
        return SmallIntTensor { { static_cast<std::int64_t>(x->shape.size()) }, x->shape };
    }
    if (op == "ConstantOfShape") {
        const auto shape = in(0);
        if (!shape || shape->data.size() > 4)
            return std::nullopt;
        std::int64_t count = 1;
        for (const auto d : shape->data) {
            if (d < 0 || __builtin_mul_overflow(count, d, &count))
                return std::nullopt;
        }
        if (count > static_cast<std::int64_t>(kMaxElements))
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
        return SmallIntTensor { shape->data,
            std::vector<std::int64_t>(static_cast<std::size_t>(count), fill) };
    }
    if (op == "Add" || op == "Sub" || op == "Mul") {
        const auto a = in(0);
        const auto b = in(1);
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
    if (op == "Gather" && intAttribute(n, "axis").value_or(0) == 0) {
        const auto data = in(0);
        const auto indices = in(1);
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
    if (op == "Reshape" || op == "Unsqueeze" || op == "Squeeze") {
        auto x = in(0);
        if (!x)
            return std::nullopt;
        if (op != "Reshape")
            return SmallIntTensor { { static_cast<std::int64_t>(x->data.size()) }, x->data };
        const auto target = in(1);
        if (!target)
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
    if (op == "Transpose") {
        const auto x = in(0);
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
    if (op == "Slice") {
        // Along the first axis only (torch's flip of the [-1, 2] pad pairs), any step.
        const auto x = in(0);
        const auto starts = in(1);
        const auto ends = in(2);
        const auto axes = in(3);
        const auto steps = in(4);
        if (!x || x->shape.empty() || !starts || !ends || starts->data.size() != 1 || ends->data.size() != 1
            || (axes && (axes->data.size() != 1 || axes->data[0] != 0)) || (steps && steps->data.size() != 1))
            return std::nullopt;
        const std::int64_t rows = x->shape[0];
        const std::int64_t step = steps ? steps->data[0] : 1;
        if (step == 0 || rows == 0)
            return std::nullopt;
        const std::int64_t rowSize = static_cast<std::int64_t>(x->data.size()) / rows;
        // Python's slice rules (ONNX Slice): negative counts from the end, then clamped.
        const auto bound = [&](std::int64_t i) {
            if (i < 0)
                i += rows;
            return step > 0 ? std::clamp<std::int64_t>(i, 0, rows)
                            : std::clamp<std::int64_t>(i, -1, rows - 1);
        };
        const std::int64_t start = bound(starts->data[0]);
        const std::int64_t end = bound(ends->data[0]);
        SmallIntTensor out { x->shape, {} };
        std::int64_t taken = 0;
        for (std::int64_t r = start; step > 0 ? r < end : r > end; r += step, ++taken)
            out.data.insert(
                out.data.end(), x->data.begin() + r * rowSize, x->data.begin() + (r + 1) * rowSize);
        out.shape[0] = taken;
        return out;
    }
    return std::nullopt;
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
