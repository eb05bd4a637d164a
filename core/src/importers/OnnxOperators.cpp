#include "OnnxOperators.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>
#include <variant>

namespace headroom::onnximport {

namespace {

using nlohmann::json;
using onnx::NodeProto;

constexpr std::int64_t kMaxDimension = 1LL << 40; // as the model file (docs/model-format.md)

/// The shortest decimal that reads back as `f` (ONNX stores float32 attributes): 1e-05, not 9.99999974e-06.
double decimal(float f)
{
    if (!std::isfinite(f))
        return static_cast<double>(f);
    char buffer[64];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, f);
    double d = static_cast<double>(f);
    std::from_chars(buffer, written.ptr, d);
    return d;
}

/// A number as a message shows it: JSON's shortest form ("0.5", "1e-05"), and NaN or inf where JSON has
/// no number (nlohmann writes those as "null").
std::string numberText(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    return json(value).dump();
}

bool near(double value, double expected)
{
    return std::abs(value - expected) <= 1e-3 * std::abs(expected);
}

const onnx::AttributeProto* findAttr(const NodeProto& node, const std::string& name)
{
    for (const auto& a : node.attribute()) {
        if (a.name() == name)
            return &a;
    }
    return nullptr;
}

std::optional<std::int64_t> attrInt(const NodeProto& node, const std::string& name)
{
    const auto* a = findAttr(node, name);
    if (a == nullptr || a->type() != onnx::AttributeProto::INT)
        return std::nullopt;
    return a->i();
}

std::optional<double> attrFloat(const NodeProto& node, const std::string& name)
{
    const auto* a = findAttr(node, name);
    if (a == nullptr || a->type() != onnx::AttributeProto::FLOAT)
        return std::nullopt;
    return decimal(a->f());
}

std::optional<std::vector<std::int64_t>> attrInts(const NodeProto& node, const std::string& name)
{
    const auto* a = findAttr(node, name);
    if (a == nullptr || a->type() != onnx::AttributeProto::INTS)
        return std::nullopt;
    return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::string attrString(const NodeProto& node, const std::string& name, const std::string& fallback)
{
    const auto* a = findAttr(node, name);
    if (a == nullptr || a->type() != onnx::AttributeProto::STRING)
        return fallback;
    return a->s();
}

/// A tuple attribute as the model file writes it: one number when all are equal.
json tupleJson(const std::vector<std::int64_t>& v)
{
    if (!v.empty() && std::all_of(v.begin(), v.end(), [&](auto x) { return x == v.front(); }))
        return v.front();
    return v;
}

bool allEqual(const std::vector<std::int64_t>& v, std::int64_t x)
{
    return std::all_of(v.begin(), v.end(), [x](auto y) { return y == x; });
}

/// Inputs that carry tensor data; the others (Reshape's target shape, Resize's scales, Dropout's
/// ratio...) only steer the operator, so the nodes computing them need no layer.
bool isDataInput(const std::string& op, int index)
{
    static const std::set<std::string> kFirstOnly{"Reshape", "Expand", "Tile", "Slice", "Pad", "Resize",
        "Upsample", "Squeeze", "Unsqueeze", "Dropout", "Clip", "TopK", "ReduceMean", "ReduceSum", "ReduceMax",
        "ReduceMin", "ReduceProd", "Split", "OneHot", "CumSum", "Trilu"};
    if (op == "ConstantOfShape" || op == "Range" || op == "EyeLike")
        return false;
    return index == 0 || kFirstOnly.count(op) == 0;
}

/// Padding as PyTorch can express it: per-axis symmetric amounts, or "same" (stride 1).
using Padding = std::variant<std::vector<std::int64_t>, std::string>;

class Mapper {
public:
    Mapper(const OnnxGraph& graph, int opset) : m_g{graph}, m_opset{opset} {}

    OperatorMapping run()
    {
        const auto& nodes = m_g.graph().node();
        m_needed.assign(static_cast<std::size_t>(nodes.size()), false);
        m_absorbed.assign(static_cast<std::size_t>(nodes.size()), false);
        markNeeded();
        foldTrailingLogSoftmax();
        findPatterns();
        for (int i = 0; i < nodes.size(); ++i) {
            const auto u = static_cast<std::size_t>(i);
            if (!m_needed[u] || m_absorbed[u])
                continue;
            if (const auto it = m_fused.find(i); it != m_fused.end()) {
                m_out.layers.push_back(it->second);
                continue;
            }
            mapNode(i);
        }
        return std::move(m_out);
    }

private:
    const NodeProto& node(int i) const { return m_g.graph().node(i); }

    // ---- which nodes matter --------------------------------------------------------------------

    void markNeeded()
    {
        std::vector<std::string> work;
        for (const auto& out : m_g.graph().output()) {
            if (m_g.isDynamic(out.name()))
                work.push_back(out.name());
        }
        std::set<std::string> seen(work.begin(), work.end());
        while (!work.empty()) {
            const std::string value = work.back();
            work.pop_back();
            const int p = m_g.producer(value);
            if (p < 0 || m_needed[static_cast<std::size_t>(p)])
                continue;
            m_needed[static_cast<std::size_t>(p)] = true;
            const auto& n = node(p);
            for (int k = 0; k < n.input_size(); ++k) {
                const auto& in = n.input(k);
                if (!in.empty() && m_g.isDynamic(in) && isDataInput(n.op_type(), k) && seen.insert(in).second)
                    work.push_back(in);
            }
        }
    }

    [[nodiscard]] bool isOp(int i, const char* op) const
    {
        return i >= 0 && node(i).op_type() == op
            && (node(i).domain().empty() || node(i).domain() == "ai.onnx");
    }

    /// The single node reading `value`, if exactly one does and `value` is not a graph output.
    [[nodiscard]] int soleConsumer(const std::string& value) const
    {
        const auto& c = m_g.consumers(value);
        if (c.size() != 1 || m_g.isGraphOutput(value))
            return -1;
        return c.front();
    }

    [[nodiscard]] bool isConstant(const std::string& value, double expected) const
    {
        const auto v = m_g.constantNumbers(value, 1);
        return v && v->size() == 1 && near(v->front(), expected);
    }

    /// For a binary node, the operand that is not `known`; empty when `known` is not an operand.
    [[nodiscard]] static std::string otherOperand(const NodeProto& n, const std::string& known)
    {
        if (n.input_size() != 2)
            return {};
        if (n.input(0) == known)
            return n.input(1);
        if (n.input(1) == known)
            return n.input(0);
        return {};
    }

    // ---- patterns spanning several nodes --------------------------------------------------------

    void foldTrailingLogSoftmax()
    {
        if (m_g.graph().output_size() == 0)
            return;
        const std::string& out = m_g.graph().output(0).name();
        const int p = m_g.producer(out);
        if (!isOp(p, "LogSoftmax") || !m_g.consumers(out).empty())
            return;
        const auto& n = node(p);
        if (n.input_size() != 1 || !m_g.isDynamic(n.input(0)))
            return;
        const auto* t = m_g.type(n.input(0));
        if (t == nullptr || !t->hasShape)
            return;
        const auto rank = static_cast<std::int64_t>(t->rank());
        std::int64_t axis = attrInt(n, "axis").value_or(m_opset < 13 ? 1 : -1);
        if (axis < 0)
            axis += rank;
        if (axis != rank - 1 || rank < 2)
            return;
        m_absorbed[static_cast<std::size_t>(p)] = true;
        m_out.aliases.emplace_back(out, n.input(0));
        m_out.notes.push_back("The graph's final LogSoftmax (" + nodeLabel(n)
            + ") is left out: the cross-entropy loss computes and keeps it.");
    }

    void findPatterns()
    {
        const auto& nodes = m_g.graph().node();
        for (int i = 0; i < nodes.size(); ++i) {
            if (!m_needed[static_cast<std::size_t>(i)] || m_absorbed[static_cast<std::size_t>(i)]
                || m_fused.count(i) > 0)
                continue;
            if (isOp(i, "Erf"))
                tryGelu(i);
            else if (isOp(i, "Mul"))
                trySilu(i);
            else if (isOp(i, "MatMul"))
                tryLinearBias(i);
        }
    }

    void fuse(const std::vector<int>& parts, PendingLayer layer)
    {
        for (const int p : parts) {
            if (m_absorbed[static_cast<std::size_t>(p)] || m_fused.count(p) > 0)
                return; // already part of another pattern
        }
        for (const int p : parts)
            m_absorbed[static_cast<std::size_t>(p)] = true;
        m_absorbed[static_cast<std::size_t>(layer.node)] = false;
        m_fused.emplace(layer.node, std::move(layer));
    }

    /// torch's GELU export: x * (erf(x / sqrt(2)) + 1) * 0.5, also with x * 0.5 multiplied first.
    void tryGelu(int erf)
    {
        const auto& e = node(erf);
        if (e.input_size() != 1 || e.output_size() != 1)
            return;
        const int scale = m_g.producer(e.input(0));
        std::string x;
        if (isOp(scale, "Div") && node(scale).input_size() == 2
            && isConstant(node(scale).input(1), std::sqrt(2.0)))
            x = node(scale).input(0);
        else if (isOp(scale, "Mul") && node(scale).input_size() == 2) {
            for (int k = 0; k < 2 && x.empty(); ++k) {
                if (isConstant(node(scale).input(k), std::sqrt(0.5)))
                    x = node(scale).input(1 - k);
            }
        }
        if (x.empty() || !m_g.isDynamic(x) || soleConsumer(e.input(0)) != erf)
            return;
        const int plusOne = soleConsumer(e.output(0));
        if (!isOp(plusOne, "Add") || !isConstant(otherOperand(node(plusOne), e.output(0)), 1.0))
            return;
        const std::string& sum = node(plusOne).output(0);
        const int times = soleConsumer(sum);
        if (!isOp(times, "Mul"))
            return;
        const std::string factor = otherOperand(node(times), sum);
        std::vector<int> parts{scale, erf, plusOne, times};
        int last = -1;
        if (factor == x) {
            last = soleConsumer(node(times).output(0));
            if (!isOp(last, "Mul") || !isConstant(otherOperand(node(last), node(times).output(0)), 0.5))
                return;
        } else {
            const int half = m_g.producer(factor);
            if (!isOp(half, "Mul") || soleConsumer(factor) != times
                || !isConstant(otherOperand(node(half), x), 0.5))
                return;
            parts.push_back(half);
            last = times;
        }
        parts.push_back(last);
        PendingLayer l{"GELU", json::object(), {x}, node(last).output(0), last};
        fuse(parts, std::move(l));
    }

    /// SiLU as torch exports it: x * sigmoid(x).
    void trySilu(int mul)
    {
        const auto& m = node(mul);
        if (m.input_size() != 2)
            return;
        for (int k = 0; k < 2; ++k) {
            const std::string& s = m.input(k);
            const std::string& x = m.input(1 - k);
            const int sig = m_g.producer(s);
            if (isOp(sig, "Sigmoid") && node(sig).input_size() == 1 && node(sig).input(0) == x
                && soleConsumer(s) == mul && m_g.isDynamic(x)) {
                fuse({sig, mul}, PendingLayer{"SiLU", json::object(), {x}, m.output(0), mul});
                return;
            }
        }
    }

    /// MatMul with a weight matrix, plus the bias Add that follows it: a Linear layer.
    void tryLinearBias(int matmul)
    {
        const auto& m = node(matmul);
        if (m.input_size() != 2 || m.output_size() != 1 || m_g.isDynamic(m.input(1)))
            return;
        const auto* w = m_g.type(m.input(1));
        const auto wd = w ? w->knownDims() : std::nullopt;
        if (!wd || wd->size() != 2)
            return;
        const int add = soleConsumer(m.output(0));
        if (!isOp(add, "Add"))
            return;
        const std::string bias = otherOperand(node(add), m.output(0));
        if (bias.empty() || m_g.isDynamic(bias))
            return;
        const auto* b = m_g.type(bias);
        const auto bd = b ? b->knownDims() : std::nullopt;
        if (!bd || bd->empty() || bd->back() != (*wd)[1])
            return;
        for (std::size_t k = 0; k + 1 < bd->size(); ++k) {
            if ((*bd)[k] != 1)
                return;
        }
        auto layer = linearFrom(matmul, m.input(0), (*wd)[0], (*wd)[1], true, true);
        if (!layer)
            return;
        layer->node = add;
        layer->outputValue = node(add).output(0);
        fuse({matmul, add}, std::move(*layer));
    }

    // ---- helpers for single nodes ---------------------------------------------------------------

    void refuse(int i, std::string reason = {}) { m_out.refusals.push_back(Refusal{i, std::move(reason)}); }

    void missing(int i, const std::string& value)
    {
        if (m_out.missingShape)
            return;
        const auto* t = m_g.type(value);
        m_out.missingShape = Error{"the shape of tensor '" + value + "' (at " + nodeLabel(node(i)) + ", "
                + node(i).op_type() + ") is "
                + (t && t->hasShape ? "only partly known (" + describe(*t) + ")" : "unknown")
                + " after ONNX shape inference; Headroom needs it to map the operator "
                  "(export with a concrete example input, or check the model with "
                  "onnx.shape_inference)",
            value};
    }

    /// A weight's dims (a tensor that does not depend on the input), checked to be sane.
    std::optional<std::vector<std::int64_t>> weightDims(int i, const std::string& value, const char* what)
    {
        if (m_g.isDynamic(value)) {
            refuse(i, std::string("its ") + what + " is computed from the input, not a stored weight");
            return std::nullopt;
        }
        const auto* t = m_g.type(value);
        auto dims = t ? t->knownDims() : std::nullopt;
        if (!dims) {
            missing(i, value);
            return std::nullopt;
        }
        for (const auto d : *dims) {
            if (d < 1 || d > kMaxDimension) {
                refuse(i,
                    std::string("its ") + what + " '" + value + "' has the impossible size "
                        + joinDims(*dims));
                return std::nullopt;
            }
        }
        return dims;
    }

    /// The rank (with the batch axis) of a data input, or nullopt after recording a missing shape.
    std::optional<std::size_t> rankOf(int i, const std::string& value)
    {
        const auto* t = m_g.type(value);
        if (t == nullptr || !t->hasShape) {
            missing(i, value);
            return std::nullopt;
        }
        return t->rank();
    }

    std::optional<std::vector<std::int64_t>> perSampleOf(int i, const std::string& value)
    {
        const auto* t = m_g.type(value);
        auto dims = t ? t->perSample() : std::nullopt;
        if (!dims)
            missing(i, value);
        return dims;
    }

    void emit(int i, std::string type, json attributes = json::object())
    {
        const auto& n = node(i);
        m_out.layers.push_back(
            PendingLayer{std::move(type), std::move(attributes), {n.input(0)}, n.output(0), i});
    }

    /// Reads pads/auto_pad for `spatial` axes; PyTorch needs the same amount on both sides of an axis.
    std::optional<Padding> padding(int i, std::size_t spatial, const std::vector<std::int64_t>& kernel,
        const std::vector<std::int64_t>& stride, const std::vector<std::int64_t>& dilation, bool sameAllowed)
    {
        const auto& n = node(i);
        const std::string autoPad = attrString(n, "auto_pad", "NOTSET");
        std::vector<std::int64_t> begin(spatial, 0), end(spatial, 0);
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            if (sameAllowed && allEqual(stride, 1))
                return Padding{std::string("same")};
            const auto in = perSampleOf(i, n.input(0));
            if (!in)
                return std::nullopt;
            for (std::size_t d = 0; d < spatial; ++d) {
                const std::int64_t size = (*in)[d + 1];
                const std::int64_t out = (size + stride[d] - 1) / stride[d];
                const std::int64_t total = std::max<std::int64_t>(
                    0, (out - 1) * stride[d] + (kernel[d] - 1) * dilation[d] + 1 - size);
                begin[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
                end[d] = total - begin[d];
            }
        } else if (autoPad == "NOTSET") {
            if (const auto pads = attrInts(n, "pads")) {
                if (pads->size() != 2 * spatial) {
                    refuse(i, "its pads " + joinDims(*pads) + " do not list 2 values per axis");
                    return std::nullopt;
                }
                begin.assign(pads->begin(), pads->begin() + static_cast<std::ptrdiff_t>(spatial));
                end.assign(pads->begin() + static_cast<std::ptrdiff_t>(spatial), pads->end());
            }
        } else if (autoPad != "VALID") {
            refuse(i, "auto_pad \"" + autoPad + "\" is not an ONNX padding mode");
            return std::nullopt;
        }
        if (begin != end) {
            refuse(i,
                "asymmetric padding (begin " + joinDims(begin) + ", end " + joinDims(end)
                    + "): PyTorch's layers pad both sides of an axis equally");
            return std::nullopt;
        }
        if (std::any_of(begin.begin(), begin.end(), [](auto p) { return p < 0 || p > kMaxDimension; })) {
            refuse(i, "its padding " + joinDims(begin) + " is negative or absurd");
            return std::nullopt;
        }
        return Padding{begin};
    }

    /// kernel_shape/strides/dilations of a sliding-window operator, each `spatial` positive numbers.
    std::optional<std::vector<std::int64_t>> window(
        int i, const char* name, std::size_t spatial, std::optional<std::vector<std::int64_t>> fallback)
    {
        auto v = attrInts(node(i), name);
        if (!v)
            v = std::move(fallback);
        if (!v) {
            refuse(i, std::string("it has no ") + name);
            return std::nullopt;
        }
        if (v->size() != spatial
            || std::any_of(v->begin(), v->end(), [](auto x) { return x < 1 || x > kMaxDimension; })) {
            refuse(i,
                std::string("its ") + name + " " + joinDims(*v) + " are not " + std::to_string(spatial)
                    + " positive sizes");
            return std::nullopt;
        }
        return v;
    }

    /// A Linear from a weight matrix's sizes; `quiet` tries without refusing (for a pattern).
    std::optional<PendingLayer> linearFrom(
        int i, const std::string& input, std::int64_t in, std::int64_t out, bool bias, bool quiet = false)
    {
        if (in < 1 || out < 1 || in > kMaxDimension || out > kMaxDimension) {
            if (quiet)
                return std::nullopt;
            refuse(i,
                "its weight has the impossible size [" + std::to_string(in) + ", " + std::to_string(out)
                    + "]");
            return std::nullopt;
        }
        const auto* t = m_g.type(input);
        if (t && t->hasShape && !t->dims.empty() && t->dims.back().known() && *t->dims.back().value != in) {
            if (quiet)
                return std::nullopt;
            refuse(i,
                "its weight expects " + std::to_string(in) + " input features but the input is "
                    + describe(*t));
            return std::nullopt;
        }
        json a{{"out_features", out}};
        if (!bias)
            a["bias"] = false;
        return PendingLayer{"Linear", a, {input}, node(i).output(0), i};
    }

    // ---- single nodes ---------------------------------------------------------------------------

    void mapNode(int i)
    {
        const auto& n = node(i);
        if (!n.domain().empty() && n.domain() != "ai.onnx") {
            refuse(i);
            return;
        }
        static const std::unordered_map<std::string, void (Mapper::*)(int)> kHandlers{
            {"Conv", &Mapper::conv},
            {"ConvTranspose", &Mapper::convTranspose},
            {"Gemm", &Mapper::gemm},
            {"MatMul", &Mapper::matmul},
            {"BatchNormalization", &Mapper::batchNorm},
            {"LayerNormalization", &Mapper::layerNorm},
            {"Relu", &Mapper::relu},
            {"LeakyRelu", &Mapper::leakyRelu},
            {"Sigmoid", &Mapper::sigmoid},
            {"Tanh", &Mapper::tanh},
            {"Clip", &Mapper::clip},
            {"Softmax", &Mapper::softmax},
            {"Identity", &Mapper::identity},
            {"MaxPool", &Mapper::maxPool},
            {"AveragePool", &Mapper::averagePool},
            {"GlobalAveragePool", &Mapper::globalAveragePool},
            {"Flatten", &Mapper::flatten},
            {"Reshape", &Mapper::reshape},
            {"Squeeze", &Mapper::reshape},
            {"Unsqueeze", &Mapper::reshape},
            {"Dropout", &Mapper::dropout},
            {"Add", &Mapper::add},
            {"Sum", &Mapper::add},
            {"Concat", &Mapper::concat},
            {"Gather", &Mapper::gather},
            {"LogSoftmax", &Mapper::logSoftmax},
        };
        if (n.input_size() < 1 || n.output_size() < 1 || n.input(0).empty()) {
            refuse(i, n.op_type() == "Constant" ? "" : "it has no input");
            return;
        }
        const auto it = kHandlers.find(n.op_type());
        if (it == kHandlers.end()) {
            refuse(i);
            return;
        }
        (this->*(it->second))(i);
    }

    void conv(int i)
    {
        const auto& n = node(i);
        if (n.input_size() < 2) {
            refuse(i, "it has no weight input");
            return;
        }
        const auto w = weightDims(i, n.input(1), "weight");
        const auto rank = rankOf(i, n.input(0));
        if (!w || !rank)
            return;
        if (w->size() != *rank || (*rank != 3 && *rank != 4)) {
            refuse(i,
                *rank == 5 ? "3-D convolution has no Headroom layer"
                           : "its weight " + joinDims(*w) + " does not fit an input of rank "
                        + std::to_string(*rank));
            return;
        }
        const std::size_t spatial = *rank - 2;
        const std::vector<std::int64_t> weightKernel(w->begin() + 2, w->end());
        const auto kernel = window(i, "kernel_shape", spatial, weightKernel);
        const auto stride = window(i, "strides", spatial, std::vector<std::int64_t>(spatial, 1));
        const auto dilation = window(i, "dilations", spatial, std::vector<std::int64_t>(spatial, 1));
        if (!kernel || !stride || !dilation)
            return;
        if (*kernel != weightKernel) {
            refuse(i, "its kernel_shape " + joinDims(*kernel) + " disagrees with its weight " + joinDims(*w));
            return;
        }
        const std::int64_t groups = attrInt(n, "group").value_or(1);
        if (groups < 1 || groups > kMaxDimension) {
            refuse(i, "its group " + std::to_string(groups) + " is not a positive count");
            return;
        }
        const auto* in = m_g.type(n.input(0));
        if (in && in->rank() > 1 && in->dims[1].known() && *in->dims[1].value != (*w)[1] * groups) {
            refuse(i,
                "its weight " + joinDims(*w) + " with group " + std::to_string(groups) + " does not fit "
                    + std::to_string(*in->dims[1].value) + " input channels");
            return;
        }
        const auto pad = padding(i, spatial, *kernel, *stride, *dilation, true);
        if (!pad)
            return;
        json a{{"out_channels", (*w)[0]}, {"kernel_size", tupleJson(*kernel)}};
        if (!allEqual(*stride, 1))
            a["stride"] = tupleJson(*stride);
        if (const auto* same = std::get_if<std::string>(&*pad))
            a["padding"] = *same;
        else if (const auto& p = std::get<std::vector<std::int64_t>>(*pad); !allEqual(p, 0))
            a["padding"] = tupleJson(p);
        if (!allEqual(*dilation, 1))
            a["dilation"] = tupleJson(*dilation);
        if (groups != 1)
            a["groups"] = groups;
        const bool bias = n.input_size() > 2 && !n.input(2).empty();
        if (bias && !weightDims(i, n.input(2), "bias"))
            return;
        if (!bias)
            a["bias"] = false;
        emit(i, spatial == 1 ? "Conv1d" : "Conv2d", a);
    }

    void convTranspose(int i)
    {
        const auto& n = node(i);
        if (n.input_size() < 2) {
            refuse(i, "it has no weight input");
            return;
        }
        const auto w = weightDims(i, n.input(1), "weight");
        const auto rank = rankOf(i, n.input(0));
        if (!w || !rank)
            return;
        if (*rank != 4 || w->size() != 4) {
            refuse(i, "only 2-D transposed convolution has a Headroom layer (ConvTranspose2d)");
            return;
        }
        if (findAttr(n, "output_shape") != nullptr) {
            refuse(i, "output_shape is not supported; export with explicit pads and output_padding");
            return;
        }
        const std::string autoPad = attrString(n, "auto_pad", "NOTSET");
        if (autoPad != "NOTSET" && autoPad != "VALID") {
            refuse(i, "auto_pad \"" + autoPad + "\" has no PyTorch equivalent for ConvTranspose2d");
            return;
        }
        const std::vector<std::int64_t> weightKernel(w->begin() + 2, w->end());
        const auto kernel = window(i, "kernel_shape", 2, weightKernel);
        const auto stride = window(i, "strides", 2, std::vector<std::int64_t>(2, 1));
        const auto dilation = window(i, "dilations", 2, std::vector<std::int64_t>(2, 1));
        if (!kernel || !stride || !dilation)
            return;
        if (*kernel != weightKernel) {
            refuse(i, "its kernel_shape " + joinDims(*kernel) + " disagrees with its weight " + joinDims(*w));
            return;
        }
        const auto pad = padding(i, 2, *kernel, *stride, *dilation, false);
        if (!pad)
            return;
        const auto outputPadding = attrInts(n, "output_padding").value_or(std::vector<std::int64_t>{0, 0});
        if (outputPadding.size() != 2 || std::any_of(outputPadding.begin(), outputPadding.end(), [](auto p) {
                return p < 0 || p > kMaxDimension;
            })) {
            refuse(i, "its output_padding " + joinDims(outputPadding) + " is not two sizes");
            return;
        }
        const std::int64_t groups = attrInt(n, "group").value_or(1);
        if (groups < 1 || groups > kMaxDimension) {
            refuse(i, "its group " + std::to_string(groups) + " is not a positive count");
            return;
        }
        json a{{"out_channels", (*w)[1] * groups}, {"kernel_size", tupleJson(*kernel)}};
        if (!allEqual(*stride, 1))
            a["stride"] = tupleJson(*stride);
        if (const auto& p = std::get<std::vector<std::int64_t>>(*pad); !allEqual(p, 0))
            a["padding"] = tupleJson(p);
        if (!allEqual(outputPadding, 0))
            a["output_padding"] = tupleJson(outputPadding);
        if (!allEqual(*dilation, 1))
            a["dilation"] = tupleJson(*dilation);
        if (groups != 1)
            a["groups"] = groups;
        const bool bias = n.input_size() > 2 && !n.input(2).empty();
        if (bias && !weightDims(i, n.input(2), "bias"))
            return;
        if (!bias)
            a["bias"] = false;
        emit(i, "ConvTranspose2d", a);
    }

    void gemm(int i)
    {
        const auto& n = node(i);
        if (n.input_size() < 2) {
            refuse(i, "it has no weight input");
            return;
        }
        if (attrInt(n, "transA").value_or(0) != 0) {
            refuse(i, "transA = 1 (a transposed input) has no Linear equivalent");
            return;
        }
        const auto w = weightDims(i, n.input(1), "weight");
        if (!w)
            return;
        if (w->size() != 2) {
            refuse(i, "its weight " + joinDims(*w) + " is not a matrix");
            return;
        }
        const bool transB = attrInt(n, "transB").value_or(0) != 0;
        const std::int64_t in = transB ? (*w)[1] : (*w)[0];
        const std::int64_t out = transB ? (*w)[0] : (*w)[1];
        const bool bias = n.input_size() > 2 && !n.input(2).empty();
        if (bias) {
            const auto b = weightDims(i, n.input(2), "bias");
            if (!b)
                return;
            std::int64_t elements = 1;
            for (const auto d : *b)
                elements *= d;
            if (elements != out) {
                refuse(i,
                    "its bias " + joinDims(*b) + " does not have one value per output (" + std::to_string(out)
                        + ")");
                return;
            }
        }
        if (auto l = linearFrom(i, n.input(0), in, out, bias))
            m_out.layers.push_back(std::move(*l));
    }

    void matmul(int i)
    {
        const auto& n = node(i);
        if (n.input_size() != 2 || m_g.isDynamic(n.input(1))) {
            refuse(i, "a product of two computed tensors (as in attention) has no Headroom layer");
            return;
        }
        const auto w = weightDims(i, n.input(1), "weight");
        if (!w)
            return;
        if (w->size() != 2) {
            refuse(i, "its weight " + joinDims(*w) + " is not a matrix");
            return;
        }
        if (auto l = linearFrom(i, n.input(0), (*w)[0], (*w)[1], false))
            m_out.layers.push_back(std::move(*l));
    }

    void batchNorm(int i)
    {
        const auto& n = node(i);
        if (n.input_size() < 5) {
            refuse(i, "it lacks scale, bias, mean or variance inputs");
            return;
        }
        const auto rank = rankOf(i, n.input(0));
        if (!rank)
            return;
        if (*rank < 2 || *rank > 4) {
            refuse(i, "only inputs of rank 2 to 4 have a BatchNorm layer (BatchNorm1d, BatchNorm2d)");
            return;
        }
        for (int k = 1; k < 5; ++k) {
            if (!weightDims(i, n.input(k), k == 1 ? "scale" : k == 2 ? "bias" : k == 3 ? "mean" : "variance"))
                return;
        }
        json a = json::object();
        if (const auto eps = attrFloat(n, "epsilon"); eps && !near(*eps, 1e-5))
            a["eps"] = *eps;
        // ONNX's momentum weighs the old running value; PyTorch's weighs the new batch statistic.
        if (const auto m = attrFloat(n, "momentum")) {
            const double torchMomentum = std::round((1.0 - *m) * 1e9) / 1e9;
            if (!near(torchMomentum, 0.1))
                a["momentum"] = torchMomentum;
        }
        if (attrInt(n, "training_mode").value_or(0) == 0 && !m_notedInferenceBatchNorm) {
            m_notedInferenceBatchNorm = true;
            m_out.notes.push_back(
                "Its BatchNormalization nodes were exported for inference; Headroom models them "
                "as they run while training.");
        }
        emit(i, *rank == 4 ? "BatchNorm2d" : "BatchNorm1d", a);
    }

    void layerNorm(int i)
    {
        const auto& n = node(i);
        if (n.input_size() < 2) {
            refuse(i, "it has no scale input");
            return;
        }
        const auto in = perSampleOf(i, n.input(0));
        if (!in || !weightDims(i, n.input(1), "scale"))
            return;
        const bool bias = n.input_size() > 2 && !n.input(2).empty();
        if (bias && !weightDims(i, n.input(2), "bias"))
            return;
        const auto rank = static_cast<std::int64_t>(in->size()) + 1;
        std::int64_t axis = attrInt(n, "axis").value_or(-1);
        if (axis < 0)
            axis += rank;
        if (axis < 1 || axis >= rank) {
            refuse(i,
                "its axis " + std::to_string(attrInt(n, "axis").value_or(-1))
                    + " is not a feature axis (the batch axis cannot be normalised per sample)");
            return;
        }
        json a = json::object();
        if (axis != rank - 1)
            a["normalized_shape"] = std::vector<std::int64_t>(in->begin() + (axis - 1), in->end());
        if (const auto eps = attrFloat(n, "epsilon"); eps && !near(*eps, 1e-5))
            a["eps"] = *eps;
        if (!bias)
            a["bias"] = false;
        emit(i, "LayerNorm", a);
    }

    void relu(int i) { emit(i, "ReLU"); }
    void sigmoid(int i) { emit(i, "Sigmoid"); }
    void tanh(int i) { emit(i, "Tanh"); }
    void identity(int i) { emit(i, "Identity"); }

    void leakyRelu(int i)
    {
        json a = json::object();
        if (const auto alpha = attrFloat(node(i), "alpha"); alpha && !near(*alpha, 0.01))
            a["negative_slope"] = *alpha;
        emit(i, "LeakyReLU", a);
    }

    void clip(int i)
    {
        const auto& n = node(i);
        std::optional<double> low, high;
        if (m_opset < 11) {
            low = attrFloat(n, "min");
            high = attrFloat(n, "max");
        } else {
            for (int k = 1; k <= 2; ++k) {
                if (n.input_size() <= k || n.input(k).empty())
                    continue;
                const auto v = m_g.constantNumbers(n.input(k), 1);
                if (!v || v->size() != 1) {
                    refuse(i, "its bounds are computed at run time");
                    return;
                }
                (k == 1 ? low : high) = v->front();
            }
        }
        const double lowest = -std::numeric_limits<float>::max();
        const double highest = std::numeric_limits<float>::max();
        if (low && *low == 0.0 && high && *high == 6.0)
            emit(i, "ReLU6");
        else if (low && *low == 0.0 && (!high || *high >= highest))
            emit(i, "ReLU");
        else if ((!low || *low <= lowest) && (!high || *high >= highest))
            emit(i, "Identity");
        else
            refuse(i,
                "clipping to [" + (low ? numberText(*low) : std::string("-inf")) + ", "
                    + (high ? numberText(*high) : std::string("inf"))
                    + "] has no Headroom layer (only [0, 6] as ReLU6 and [0, inf] as ReLU)");
    }

    void softmax(int i)
    {
        const auto& n = node(i);
        const auto rank = rankOf(i, n.input(0));
        if (!rank)
            return;
        const auto r = static_cast<std::int64_t>(*rank);
        std::int64_t axis = attrInt(n, "axis").value_or(m_opset < 13 ? 1 : -1);
        if (axis < 0)
            axis += r;
        if (axis < 1 || axis >= r) {
            refuse(i, "its axis is not a feature axis (the batch axis cannot be normalised per sample)");
            return;
        }
        if (m_opset < 13 && axis != r - 1) {
            refuse(i,
                "before opset 13 Softmax normalises all axes from " + std::to_string(axis)
                    + " on together, which has no Headroom layer");
            return;
        }
        json a = json::object();
        if (axis != r - 1)
            a["dim"] = axis;
        emit(i, "Softmax", a);
    }

    void logSoftmax(int i)
    {
        refuse(i, "only as the graph's last operator, where it becomes part of the cross-entropy loss");
    }

    void pool(int i, bool isMax)
    {
        const auto& n = node(i);
        const auto rank = rankOf(i, n.input(0));
        if (!rank)
            return;
        if (*rank != 4) {
            refuse(i, "only 2-D pooling has a Headroom layer");
            return;
        }
        if (isMax && n.output_size() > 1 && !n.output(1).empty() && !m_g.consumers(n.output(1)).empty()) {
            refuse(i, "its indices output is used, which no Headroom layer models");
            return;
        }
        const auto kernel = window(i, "kernel_shape", 2, std::nullopt);
        const auto stride = window(i, "strides", 2, std::vector<std::int64_t>(2, 1));
        const auto dilation = isMax
            ? window(i, "dilations", 2, std::vector<std::int64_t>(2, 1))
            : std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>(2, 1));
        if (!kernel || !stride || !dilation)
            return;
        const auto pad = padding(i, 2, *kernel, *stride, *dilation, false);
        if (!pad)
            return;
        json a{{"kernel_size", tupleJson(*kernel)}, {"stride", tupleJson(*stride)}};
        if (const auto& p = std::get<std::vector<std::int64_t>>(*pad); !allEqual(p, 0))
            a["padding"] = tupleJson(p);
        if (!allEqual(*dilation, 1))
            a["dilation"] = tupleJson(*dilation);
        if (attrInt(n, "ceil_mode").value_or(0) != 0)
            a["ceil_mode"] = true;
        if (!isMax && attrInt(n, "count_include_pad").value_or(0) == 0)
            a["count_include_pad"] = false;
        emit(i, isMax ? "MaxPool2d" : "AvgPool2d", a);
    }

    void maxPool(int i) { pool(i, true); }
    void averagePool(int i) { pool(i, false); }

    void globalAveragePool(int i)
    {
        const auto rank = rankOf(i, node(i).input(0));
        if (!rank)
            return;
        if (*rank != 4) {
            refuse(i, "only 2-D global pooling has a Headroom layer (AdaptiveAvgPool2d)");
            return;
        }
        emit(i, "AdaptiveAvgPool2d", json{{"output_size", 1}});
    }

    void flatten(int i)
    {
        const auto& n = node(i);
        const std::int64_t given = attrInt(n, "axis").value_or(1);
        std::int64_t axis = given;
        if (axis < 0 || axis > 1) {
            const auto rank = rankOf(i, n.input(0));
            if (!rank)
                return;
            // ONNX: axis in [-r, r]; a negative one counts from the end.
            const auto r = static_cast<std::int64_t>(*rank);
            if (given < -r || given > r) {
                refuse(i, "its axis " + std::to_string(given) + " is out of range for a rank-" + std::to_string(r)
                              + " input (from -" + std::to_string(r) + " to " + std::to_string(r) + ")");
                return;
            }
            if (axis < 0)
                axis += r;
        }
        if (axis != 1) {
            refuse(i,
                axis == 0 ? "axis " + std::to_string(given) + " merges the batch axis into the features"
                          : "axis " + std::to_string(given) + " folds feature axes into the batch axis");
            return;
        }
        emit(i, "Flatten");
    }

    /// What a Reshape produces per sample, worked out from its target shape when shape inference left
    /// it open (a symbolic batch times -1 has no number).
    std::optional<std::vector<std::int64_t>> reshapeTarget(int i, const std::vector<std::int64_t>& in)
    {
        const auto& n = node(i);
        if (n.input_size() < 2)
            return std::nullopt;
        const auto target = m_g.shapeTensor(n.input(1));
        const auto* inType = m_g.type(n.input(0));
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

    /// Reshape, Squeeze and Unsqueeze keep the batch axis and, to have a Headroom layer, merge one run of
    /// adjacent axes (Flatten) or change nothing (Identity).
    void reshape(int i)
    {
        const auto& n = node(i);
        const auto in = perSampleOf(i, n.input(0));
        if (!in)
            return;
        const auto* outType = m_g.type(n.output(0));
        auto out = outType ? outType->perSample() : std::nullopt;
        if (!out && n.op_type() == "Reshape")
            out = reshapeTarget(i, *in);
        if (!out) {
            missing(i, n.output(0));
            return;
        }
        const auto elements = [](const std::vector<std::int64_t>& v) {
            std::int64_t e = 1;
            for (const auto d : v) {
                if (d < 0 || (d > 0 && e > std::numeric_limits<std::int64_t>::max() / d))
                    return std::int64_t{-1};
                e *= d;
            }
            return e;
        };
        if (out->empty()) {
            refuse(i,
                "it merges the batch axis and the " + joinDims(*in)
                    + " of each sample into one axis; Headroom keeps the batch axis first and separate");
            return;
        }
        if (elements(*in) < 0 || elements(*in) != elements(*out)) {
            refuse(i,
                "it turns " + joinDims(*in) + " per sample into " + joinDims(*out)
                    + ", changing the batch axis, which Headroom keeps first and separate");
            return;
        }
        if (*in == *out) {
            emit(i, "Identity");
            return;
        }
        // Flatten(start_dim = s + 1, end_dim = e + 1) over per-sample axes s..e.
        for (std::size_t s = 0; s < in->size(); ++s) {
            for (std::size_t e = in->size(); e-- > s;) {
                std::vector<std::int64_t> merged(in->begin(), in->begin() + static_cast<std::ptrdiff_t>(s));
                std::int64_t m = 1;
                for (std::size_t k = s; k <= e; ++k)
                    m *= (*in)[k];
                merged.push_back(m);
                merged.insert(merged.end(), in->begin() + static_cast<std::ptrdiff_t>(e + 1), in->end());
                if (merged != *out)
                    continue;
                json a = json::object();
                if (s != 0)
                    a["start_dim"] = static_cast<std::int64_t>(s + 1);
                if (e + 1 != in->size())
                    a["end_dim"] = static_cast<std::int64_t>(e + 1);
                emit(i, "Flatten", a);
                return;
            }
        }
        refuse(i,
            "it reshapes " + joinDims(*in) + " into " + joinDims(*out)
                + " per sample; only merging adjacent axes (Flatten) has a Headroom layer");
    }

    void dropout(int i)
    {
        const auto& n = node(i);
        double ratio = 0.5;
        if (m_opset < 12) {
            if (const auto r = attrFloat(n, "ratio"))
                ratio = *r;
        } else if (n.input_size() > 1 && !n.input(1).empty()) {
            const auto r = m_g.constantNumbers(n.input(1), 1);
            if (!r || r->size() != 1) {
                refuse(i, "its ratio is computed at run time");
                return;
            }
            ratio = decimal(static_cast<float>(r->front()));
        }
        if (!(ratio >= 0.0 && ratio <= 1.0)) {
            refuse(i, "its ratio " + numberText(ratio) + " is not a probability");
            return;
        }
        emit(i, "Dropout", json{{"p", ratio}});
    }

    void add(int i)
    {
        const auto& n = node(i);
        std::vector<std::string> inputs;
        for (const auto& in : n.input()) {
            if (in.empty())
                continue;
            if (!m_g.isDynamic(in)) {
                refuse(i,
                    "it adds the stored tensor '" + in
                        + "' (a bias or a learned table), which no Headroom "
                          "layer holds");
                return;
            }
            inputs.push_back(in);
        }
        if (inputs.size() == 1) {
            emit(i, "Identity");
            return;
        }
        m_out.layers.push_back(PendingLayer{"Add", json::object(), inputs, n.output(0), i});
    }

    void concat(int i)
    {
        const auto& n = node(i);
        std::vector<std::string> inputs;
        for (const auto& in : n.input()) {
            if (in.empty())
                continue;
            if (!m_g.isDynamic(in)) {
                refuse(i, "it concatenates the stored tensor '" + in + "', which no Headroom layer holds");
                return;
            }
            inputs.push_back(in);
        }
        const auto rank = rankOf(i, n.input(0));
        if (!rank)
            return;
        const auto r = static_cast<std::int64_t>(*rank);
        std::int64_t axis = attrInt(n, "axis").value_or(1);
        if (axis < 0)
            axis += r;
        if (axis < 1 || axis >= r) {
            refuse(i, "it concatenates along the batch axis");
            return;
        }
        if (inputs.size() == 1) {
            emit(i, "Identity");
            return;
        }
        json a = json::object();
        if (axis != 1)
            a["dim"] = axis;
        m_out.layers.push_back(PendingLayer{"Concat", a, inputs, n.output(0), i});
    }

    /// Gather from a stored [rows, dim] table by computed ids: nn.Embedding.
    void gather(int i)
    {
        const auto& n = node(i);
        if (n.input_size() != 2 || m_g.isDynamic(n.input(0)) || !m_g.isDynamic(n.input(1))
            || attrInt(n, "axis").value_or(0) != 0) {
            refuse(i, "only a lookup of computed ids in a stored table (an Embedding) has a Headroom layer");
            return;
        }
        const auto table = weightDims(i, n.input(0), "table");
        if (!table)
            return;
        if (table->size() != 2) {
            refuse(i, "its table " + joinDims(*table) + " is not a matrix");
            return;
        }
        m_out.layers.push_back(
            PendingLayer{"Embedding", json{{"num_embeddings", (*table)[0]}, {"embedding_dim", (*table)[1]}},
                {n.input(1)}, n.output(0), i});
    }

    const OnnxGraph& m_g;
    int m_opset;
    std::vector<bool> m_needed;
    std::vector<bool> m_absorbed;
    std::unordered_map<int, PendingLayer> m_fused;
    bool m_notedInferenceBatchNorm = false;
    OperatorMapping m_out;
};

} // namespace

OperatorMapping mapOperators(const OnnxGraph& graph, int opset)
{
    return Mapper(graph, opset).run();
}

} // namespace headroom::onnximport
