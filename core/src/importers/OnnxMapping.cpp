#include "OnnxMapping.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace headroom::onnximport {

using nlohmann::json;
using onnx::NodeProto;

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

namespace {

/// Inputs that carry tensor data; the others (Reshape's target shape, Resize's scales, Dropout's
/// ratio...) only steer the operator, so the nodes computing them need no layer.
bool isDataInput(const std::string& op, int index)
{
    static const std::set<std::string> kFirstOnly { "Reshape", "Expand", "Tile", "Slice", "Pad", "Resize",
        "Upsample", "Squeeze", "Unsqueeze", "Dropout", "Clip", "TopK", "ReduceMean", "ReduceSum", "ReduceMax",
        "ReduceMin", "ReduceProd", "Split", "OneHot", "CumSum", "Trilu" };
    if (op == "ConstantOfShape" || op == "Range" || op == "EyeLike")
        return false;
    return index == 0 || kFirstOnly.count(op) == 0;
}

} // namespace

MappingContext::MappingContext(const OnnxGraph& graph, int opset)
    : m_g { graph }
    , m_opset { opset }
    , m_needed(static_cast<std::size_t>(graph.graph().node_size()), false)
    , m_absorbed(static_cast<std::size_t>(graph.graph().node_size()), false)
{
}

void MappingContext::markNeeded()
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
            if (!in.empty() && m_g.carriesData(in) && isDataInput(n.op_type(), k) && seen.insert(in).second)
                work.push_back(in);
        }
    }
}

const PendingLayer* MappingContext::fusedAt(int i) const
{
    const auto it = m_fused.find(i);
    return it == m_fused.end() ? nullptr : &it->second;
}

bool MappingContext::isOp(int i, const char* op) const
{
    return i >= 0 && node(i).op_type() == op && (node(i).domain().empty() || node(i).domain() == "ai.onnx");
}

int MappingContext::soleConsumer(const std::string& value) const
{
    const auto& c = m_g.consumers(value);
    if (c.size() != 1 || m_g.isGraphOutput(value))
        return -1;
    return c.front();
}

bool MappingContext::isConstant(const std::string& value, double expected) const
{
    const auto v = m_g.constantNumbers(value, 1);
    return v && v->size() == 1 && near(v->front(), expected);
}

std::string MappingContext::otherOperand(const NodeProto& n, const std::string& known)
{
    if (n.input_size() != 2)
        return {};
    if (n.input(0) == known)
        return n.input(1);
    if (n.input(1) == known)
        return n.input(0);
    return {};
}

bool MappingContext::fuse(const std::vector<int>& parts, PendingLayer layer)
{
    for (const int p : parts) {
        if (m_absorbed[static_cast<std::size_t>(p)] || m_fused.count(p) > 0)
            return false; // already part of another pattern
    }
    for (const int p : parts)
        m_absorbed[static_cast<std::size_t>(p)] = true;
    m_absorbed[static_cast<std::size_t>(layer.node)] = false;
    m_fused.emplace(layer.node, std::move(layer));
    return true;
}

void MappingContext::absorb(int i, const std::string& value, const std::string& standsFor)
{
    m_absorbed[static_cast<std::size_t>(i)] = true;
    m_out.aliases.emplace_back(value, standsFor);
}

void MappingContext::refuse(int i, std::string reason)
{
    m_out.refusals.push_back(Refusal { i, std::move(reason), false });
}

void MappingContext::reject(int i, std::string reason)
{
    m_out.refusals.push_back(Refusal { i, std::move(reason), true });
}

void MappingContext::missing(int i, const std::string& value)
{
    if (m_out.missingShape)
        return;
    const auto* t = m_g.type(value);
    m_out.missingShape
        = Error { "the shape of tensor '" + value + "' (at " + nodeLabel(node(i)) + ", " + node(i).op_type()
                  + ") is " + (t && t->hasShape ? "only partly known (" + describe(*t) + ")" : "unknown")
                  + " after ONNX shape inference; Headroom needs it to map the operator "
                    "(export with a concrete example input, or check the model with "
                    "onnx.shape_inference)",
              value };
}

void MappingContext::emit(int i, std::string type, json attributes)
{
    const auto& n = node(i);
    m_out.layers.push_back(
        PendingLayer { std::move(type), std::move(attributes), { n.input(0) }, n.output(0), i });
}

void MappingContext::note(std::string sentence, const std::string& key)
{
    if (!key.empty() && !m_noteKeys.insert(key).second)
        return;
    m_out.notes.push_back(std::move(sentence));
}

std::optional<std::vector<std::int64_t>> MappingContext::weightDims(
    int i, const std::string& value, const char* what)
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
            reject(i,
                std::string("its ") + what + " '" + value + "' has the impossible size " + joinDims(*dims));
            return std::nullopt;
        }
    }
    return dims;
}

bool MappingContext::parameterShaped(int i, const std::string& value, const char* what,
    const std::vector<std::int64_t>& expected, const char* meaning)
{
    const auto dims = weightDims(i, value, what);
    if (!dims)
        return false;
    if (*dims != expected) {
        reject(i,
            std::string("its ") + what + " '" + value + "' is " + joinDims(*dims) + ", not "
                + joinDims(expected) + " (" + meaning + ")");
        return false;
    }
    return true;
}

std::optional<std::size_t> MappingContext::rankOf(int i, const std::string& value)
{
    const auto* t = m_g.type(value);
    if (t == nullptr || !t->hasShape) {
        missing(i, value);
        return std::nullopt;
    }
    return t->rank();
}

std::optional<std::vector<std::int64_t>> MappingContext::perSampleOf(int i, const std::string& value)
{
    auto dims = m_g.perSampleOf(value);
    if (!dims)
        missing(i, value);
    return dims;
}

std::optional<Padding> MappingContext::padding(int i, std::size_t spatial,
    const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
    const std::vector<std::int64_t>& dilation, bool sameAllowed)
{
    const auto& n = node(i);
    const std::string autoPad = attrString(n, "auto_pad", "NOTSET");
    std::vector<std::int64_t> begin(spatial, 0), end(spatial, 0);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        if (sameAllowed && allEqual(stride, 1))
            return Padding { std::string("same") };
        const auto in = perSampleOf(i, n.input(0));
        if (!in)
            return std::nullopt;
        for (std::size_t d = 0; d < spatial; ++d) {
            const std::int64_t size = (*in)[d + 1];
            const std::int64_t out = (size + stride[d] - 1) / stride[d];
            const std::int64_t total
                = std::max<std::int64_t>(0, (out - 1) * stride[d] + (kernel[d] - 1) * dilation[d] + 1 - size);
            begin[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            end[d] = total - begin[d];
        }
    } else if (autoPad == "NOTSET") {
        if (const auto pads = attrInts(n, "pads")) {
            if (pads->size() != 2 * spatial) {
                reject(i, "its pads " + joinDims(*pads) + " do not list 2 values per axis");
                return std::nullopt;
            }
            begin.assign(pads->begin(), pads->begin() + static_cast<std::ptrdiff_t>(spatial));
            end.assign(pads->begin() + static_cast<std::ptrdiff_t>(spatial), pads->end());
        }
    } else if (autoPad != "VALID") {
        reject(i, "auto_pad \"" + autoPad + "\" is not an ONNX padding mode");
        return std::nullopt;
    }
    if (begin != end) {
        refuse(i,
            "asymmetric padding (begin " + joinDims(begin) + ", end " + joinDims(end)
                + "): PyTorch's layers pad both sides of an axis equally");
        return std::nullopt;
    }
    if (std::any_of(begin.begin(), begin.end(), [](auto p) { return p < 0 || p > kMaxDimension; })) {
        reject(i, "its padding " + joinDims(begin) + " is negative or absurd");
        return std::nullopt;
    }
    return Padding { begin };
}

std::optional<std::vector<std::int64_t>> MappingContext::window(
    int i, const char* name, std::size_t spatial, std::optional<std::vector<std::int64_t>> fallback)
{
    auto v = attrInts(node(i), name);
    if (!v)
        v = std::move(fallback);
    if (!v) {
        reject(i, std::string("it has no ") + name);
        return std::nullopt;
    }
    if (v->size() != spatial
        || std::any_of(v->begin(), v->end(), [](auto x) { return x < 1 || x > kMaxDimension; })) {
        reject(i,
            std::string("its ") + name + " " + joinDims(*v) + " are not " + std::to_string(spatial)
                + " positive sizes");
        return std::nullopt;
    }
    return v;
}

std::optional<PendingLayer> MappingContext::linearFrom(
    int i, const std::string& input, std::int64_t in, std::int64_t out, bool bias, bool quiet)
{
    if (in < 1 || out < 1 || in > kMaxDimension || out > kMaxDimension) {
        if (quiet)
            return std::nullopt;
        reject(i,
            "its weight has the impossible size [" + std::to_string(in) + ", " + std::to_string(out) + "]");
        return std::nullopt;
    }
    const auto* t = m_g.type(input);
    if (t && t->hasShape && !t->dims.empty() && t->dims.back().known() && *t->dims.back().value != in) {
        if (quiet)
            return std::nullopt;
        reject(i,
            "its weight expects " + std::to_string(in) + " input features but the input is " + describe(*t));
        return std::nullopt;
    }
    json a { { "out_features", out } };
    if (!bias)
        a["bias"] = false;
    return PendingLayer { "Linear", a, { input }, node(i).output(0), i };
}

} // namespace headroom::onnximport
