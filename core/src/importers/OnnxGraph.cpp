#include "OnnxGraph.h"

#include "headroom/support/Format.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace headroom::onnximport {

namespace {

using onnx::TensorProto;

ValueType typeOf(const onnx::TypeProto& t)
{
    ValueType v;
    if (!t.has_tensor_type())
        return v;
    const auto& tensor = t.tensor_type();
    v.elementType = tensor.elem_type();
    if (!tensor.has_shape())
        return v;
    v.hasShape = true;
    for (const auto& d : tensor.shape().dim()) {
        Dim dim;
        if (d.has_dim_value())
            dim.value = d.dim_value();
        else if (d.has_dim_param())
            dim.symbol = d.dim_param();
        v.dims.push_back(dim);
    }
    return v;
}

ValueType typeOf(const TensorProto& t)
{
    ValueType v;
    v.elementType = t.data_type();
    v.hasShape = true;
    for (const auto d : t.dims())
        v.dims.push_back(Dim { d, {} });
    return v;
}

template <typename T> std::optional<std::vector<double>> rawNumbers(const std::string& raw, std::size_t count)
{
    if (raw.size() != count * sizeof(T))
        return std::nullopt;
    std::vector<double> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        T x {};
        std::memcpy(&x, raw.data() + i * sizeof(T), sizeof(T));
        out.push_back(static_cast<double>(x));
    }
    return out;
}

template <typename Field>
std::optional<std::vector<double>> fieldNumbers(const Field& field, std::size_t count)
{
    if (static_cast<std::size_t>(field.size()) != count)
        return std::nullopt;
    std::vector<double> out;
    out.reserve(count);
    for (const auto x : field)
        out.push_back(static_cast<double>(x));
    return out;
}

const std::vector<int> kNoConsumers;

/// The largest number of values of each sample a batch axis may merge with (ONNX symbols are text).
constexpr std::int64_t kLargestMerge = std::int64_t { 1 } << 40;

} // namespace

std::optional<std::int64_t> saturatedInteger(double x)
{
    if (std::isnan(x))
        return std::nullopt;
    if (x >= 9.2e18)
        return std::numeric_limits<std::int64_t>::max();
    if (x <= -9.2e18)
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(x);
}

std::optional<std::int64_t> intAttribute(const onnx::NodeProto& node, const char* name)
{
    for (const auto& a : node.attribute()) {
        if (a.name() == name && a.type() == onnx::AttributeProto::INT)
            return a.i();
    }
    return std::nullopt;
}

std::optional<std::vector<double>> tensorNumbers(const onnx::TensorProto& t, std::size_t maxElements)
{
    std::size_t count = 1;
    for (const auto d : t.dims()) {
        if (d < 0 || static_cast<std::uint64_t>(d) > maxElements)
            return std::nullopt;
        count *= static_cast<std::size_t>(d);
        if (count > maxElements)
            return std::nullopt;
    }
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
        return std::nullopt;
    const bool raw = t.has_raw_data();
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
        return raw ? rawNumbers<float>(t.raw_data(), count) : fieldNumbers(t.float_data(), count);
    case onnx::TensorProto::DOUBLE:
        return raw ? rawNumbers<double>(t.raw_data(), count) : fieldNumbers(t.double_data(), count);
    case onnx::TensorProto::INT64:
        return raw ? rawNumbers<std::int64_t>(t.raw_data(), count) : fieldNumbers(t.int64_data(), count);
    case onnx::TensorProto::INT32:
        return raw ? rawNumbers<std::int32_t>(t.raw_data(), count) : fieldNumbers(t.int32_data(), count);
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::UINT8:
        return raw ? rawNumbers<std::uint8_t>(t.raw_data(), count) : fieldNumbers(t.int32_data(), count);
    default:
        return std::nullopt;
    }
}

std::optional<std::vector<std::int64_t>> ValueType::knownDims() const
{
    if (!hasShape)
        return std::nullopt;
    std::vector<std::int64_t> out;
    for (const auto& d : dims) {
        if (!d.known())
            return std::nullopt;
        out.push_back(*d.value);
    }
    return out;
}

std::optional<std::vector<std::int64_t>> ValueType::perSample() const
{
    if (!hasShape || dims.empty())
        return std::nullopt;
    std::vector<std::int64_t> out;
    for (std::size_t i = 1; i < dims.size(); ++i) {
        if (!dims[i].known())
            return std::nullopt;
        out.push_back(*dims[i].value);
    }
    return out;
}

std::optional<std::int64_t> batchMultiple(const Dim& d, const std::string& batch)
{
    if (batch.empty() || d.known())
        return std::nullopt;
    if (d.symbol == batch)
        return 1;
    const auto star = d.symbol.find('*');
    if (star == std::string::npos || star == 0 || star > 12
        || d.symbol.compare(star + 1, std::string::npos, batch) != 0)
        return std::nullopt;
    std::int64_t m = 0;
    for (std::size_t k = 0; k < star; ++k) {
        if (d.symbol[k] < '0' || d.symbol[k] > '9')
            return std::nullopt;
        m = m * 10 + (d.symbol[k] - '0');
    }
    return m >= 1 && m <= kLargestMerge ? std::optional<std::int64_t> { m } : std::nullopt;
}

Dim batchDim(std::int64_t multiple, const std::string& batch)
{
    return Dim { {}, multiple == 1 ? batch : std::to_string(multiple) + "*" + batch };
}

const std::string& OnnxGraph::batchSymbol() const
{
    static const std::string none;
    const auto* in = type(m_input);
    return in == nullptr || !in->hasShape || in->dims.empty() ? none : in->dims.front().symbol;
}

std::size_t OnnxGraph::batchAxisOf(const std::string& value) const
{
    const auto* t = type(value);
    if (t == nullptr || !t->hasShape)
        return 0;
    std::size_t found = 0;
    std::size_t count = 0;
    for (std::size_t k = 0; k < t->dims.size(); ++k) {
        if (batchMultiple(t->dims[k], batchSymbol())) {
            found = k;
            ++count;
        }
    }
    return count == 1 ? found : 0;
}

BatchMerge OnnxGraph::batchMergeOf(const std::string& value) const
{
    if (const auto it = m_merges.find(value); it != m_merges.end())
        return it->second;
    const auto* t = type(value);
    const std::size_t axis = batchAxisOf(value);
    if (t == nullptr || !t->hasShape || axis >= t->dims.size())
        return {};
    return BatchMerge { 1, batchMultiple(t->dims[axis], batchSymbol()).value_or(1) };
}

std::size_t OnnxGraph::wholeBatchAxisOf(const std::string& value) const
{
    return batchAxisOf(value) + (batchMergeOf(value).outer > 1 ? 1 : 0);
}

std::optional<std::vector<std::int64_t>> OnnxGraph::perSampleOf(const std::string& value) const
{
    const auto* t = type(value);
    if (t == nullptr || !t->hasShape || t->dims.empty())
        return std::nullopt;
    const std::size_t batch = batchAxisOf(value);
    const BatchMerge merge = batchMergeOf(value);
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < t->dims.size(); ++i) {
        if (i == batch) {
            if (merge.outer > 1)
                out.push_back(merge.outer);
            if (merge.inner > 1)
                out.push_back(merge.inner);
            continue;
        }
        if (!t->dims[i].known())
            return std::nullopt;
        out.push_back(*t->dims[i].value);
    }
    return out;
}

std::string cleanText(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t length = 0;
        std::uint32_t code = 0;
        if (c < 0x80) {
            out += c < 0x20 || c == 0x7F ? ' ' : static_cast<char>(c);
            ++i;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
            code = c & 0x1Fu;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            code = c & 0x0Fu;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            code = c & 0x07u;
        }
        bool ok = length > 0 && i + length <= s.size();
        for (std::size_t k = 1; ok && k < length; ++k) {
            const auto next = static_cast<unsigned char>(s[i + k]);
            ok = (next & 0xC0u) == 0x80u;
            code = (code << 6) | (next & 0x3Fu);
        }
        ok = ok && !(length == 3 && code < 0x800) && !(length == 4 && (code < 0x10000 || code > 0x10FFFF))
            && !(code >= 0xD800 && code <= 0xDFFF);
        if (ok) {
            out.append(s.substr(i, length));
            i += length;
        } else {
            out += '?';
            ++i;
        }
    }
    return out;
}

std::string cleanLine(std::string_view s, std::size_t maxBytes)
{
    std::string out = cleanText(s);
    if (out.size() <= maxBytes)
        return out;
    std::size_t cut = maxBytes - 3;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0u) == 0x80u)
        --cut; // not inside a UTF-8 sequence
    return out.substr(0, cut) + "...";
}

std::string shortText(std::string_view s, std::size_t maxCharacters)
{
    std::string quoted = quoteForMessage(s, maxCharacters);
    const auto close = quoted.rfind("\" (");
    if (close == std::string::npos || quoted.back() == '"')
        return std::string(s); // not cut (and `s` has nothing quoteForMessage would escape: cleanText)
    return quoted.substr(1, close - 1) + quoted.substr(close + 1);
}

namespace {

bool opensQuote(std::string_view s, std::size_t i)
{
    return s[i] == '\'' && (i == 0 || std::string_view(" ([{,:=").find(s[i - 1]) != std::string_view::npos);
}

bool closesQuote(std::string_view s, std::size_t i)
{
    return s[i] == '\''
        && (i + 1 == s.size() || std::string_view(" )]},;:.").find(s[i + 1]) != std::string_view::npos);
}

} // namespace

std::string shortNames(std::string_view message, std::string_view prefix)
{
    if (message.substr(0, prefix.size()) != prefix)
        prefix = {};
    std::string out(prefix);
    const std::string_view text = message.substr(prefix.size());
    for (std::size_t i = 0; i < text.size();) {
        if (opensQuote(text, i)) {
            std::size_t close = i + 1;
            while (close < text.size() && !closesQuote(text, close))
                ++close;
            if (close < text.size()) { // a quoted name: cut inside the quotes
                const std::string_view name = text.substr(i + 1, close - i - 1);
                const std::string shown = shortText(name);
                const auto count = shown.size() == name.size() ? std::string::npos : shown.rfind(" (");
                // Cut: 'nnnn…' (200,000 characters), the count after the quote as quoteForMessage writes it.
                out += count == std::string::npos ? "'" + shown + "'"
                                                  : "'" + shown.substr(0, count) + "'" + shown.substr(count);
                i = close + 1;
                continue;
            }
        }
        const std::size_t end = std::min(text.find(' ', i), text.size());
        if (end == i) {
            out += text[i++];
            continue;
        }
        // An unquoted name: cut, with the punctuation after it ("(at name, Op)") kept.
        std::size_t name = end;
        while (name > i + 1 && std::string_view(",;:)]}").find(text[name - 1]) != std::string_view::npos)
            --name;
        out += shortText(text.substr(i, name - i));
        out += text.substr(name, end - name);
        i = end;
    }
    return out;
}

std::string describe(const ValueType* type)
{
    return type == nullptr ? std::string("unknown") : describe(*type);
}

std::string describe(const ValueType& type)
{
    if (!type.hasShape)
        return "unknown";
    std::string s = "[";
    for (std::size_t i = 0; i < type.dims.size(); ++i) {
        if (i > 0)
            s += ", ";
        const auto& d = type.dims[i];
        s += d.known() ? std::to_string(*d.value) : (d.symbol.empty() ? std::string("?") : d.symbol);
    }
    return s + "]";
}

std::string joinDims(const std::vector<std::int64_t>& dims)
{
    std::string s = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        s += (i > 0 ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

std::string elementTypeName(std::int32_t type)
{
    if (onnx::TensorProto_DataType_IsValid(type))
        return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(type));
    return "type " + std::to_string(type);
}

std::string nodeLabel(const onnx::NodeProto& node)
{
    if (!node.name().empty())
        return node.name();
    return "the unnamed " + node.op_type()
        + (node.output_size() > 0 ? " producing '" + node.output(0) + "'" : "");
}

Result<OnnxGraph> OnnxGraph::index(
    const onnx::GraphProto& graph, std::unordered_map<std::string, onnx::TensorShapeProto> shapeData)
{
    OnnxGraph g;
    g.m_graph = &graph;
    g.m_shapeData = std::move(shapeData);
    std::unordered_set<std::string> defined;
    if (auto error = g.indexInputs(defined))
        return *error;
    for (const auto& v : graph.value_info())
        g.m_types.try_emplace(v.name(), typeOf(v.type()));
    for (const auto& v : graph.output()) {
        g.m_types.try_emplace(v.name(), typeOf(v.type()));
        g.m_outputs.insert(v.name());
    }
    for (int i = 0; i < graph.node_size(); ++i) {
        if (auto error = g.indexNode(i, defined))
            return *error;
    }
    for (const auto& out : graph.output()) {
        if (defined.count(out.name()) == 0)
            return Error { "the graph output '" + out.name() + "' is not produced by any node",
                "graph.output" };
    }
    g.followBatchMerges();
    return g;
}

std::optional<Error> OnnxGraph::indexInputs(std::unordered_set<std::string>& defined)
{
    for (const auto& t : m_graph->initializer()) {
        m_initializers.emplace(t.name(), &t);
        m_types[t.name()] = typeOf(t);
        defined.insert(t.name());
    }
    std::vector<std::string> inputs;
    for (const auto& in : m_graph->input()) {
        defined.insert(in.name());
        if (m_initializers.count(in.name()) == 0) { // old exporters list the weights as inputs too
            inputs.push_back(in.name());
            m_types[in.name()] = typeOf(in.type());
        }
    }
    if (inputs.empty())
        return Error { "the graph has no input (every graph input is an initializer)", "graph.input" };
    if (inputs.size() > 1) {
        std::string names;
        for (const auto& n : inputs)
            names += (names.empty() ? "'" : ", '") + n + "'";
        return Error { "the graph has " + std::to_string(inputs.size()) + " inputs (" + names
                + "); a Headroom network has exactly one",
            "graph.input" };
    }
    m_input = inputs.front();
    m_dynamic.insert(m_input);
    m_data.insert(m_input);
    return std::nullopt;
}

std::optional<Error> OnnxGraph::indexNode(int i, std::unordered_set<std::string>& defined)
{
    const auto& node = m_graph->node(i);
    bool dynamic = false;
    bool data = false;
    for (const auto& in : node.input()) {
        if (in.empty())
            continue; // an omitted optional input
        if (defined.count(in) == 0)
            return Error { "node " + nodeLabel(node) + " (" + node.op_type() + ") reads tensor '" + in
                    + "' before any node produces it (the graph is not in topological order or the "
                      "tensor does not exist)",
                node.name() };
        m_consumers[in].push_back(i);
        dynamic = dynamic || m_dynamic.count(in) > 0;
        data = data || m_data.count(in) > 0;
    }
    const bool readsSizesOnly
        = node.domain().empty() && (node.op_type() == "Shape" || node.op_type() == "Size");
    for (const auto& out : node.output()) {
        if (out.empty())
            continue;
        if (defined.count(out) > 0) {
            const auto earlier = m_producers.find(out);
            return Error { "node " + nodeLabel(node) + " (" + node.op_type() + ") writes tensor '" + out
                    + "', which "
                    + (earlier != m_producers.end()
                            ? "node " + nodeLabel(m_graph->node(earlier->second)) + " writes too"
                            : std::string("is a graph input or initializer"))
                    + "; an ONNX graph defines each tensor once",
                node.name() };
        }
        m_producers[out] = i;
        defined.insert(out);
        if (dynamic)
            m_dynamic.insert(out);
        if (data && !readsSizesOnly)
            m_data.insert(out);
    }
    if (node.op_type() == "Constant" && node.domain().empty() && node.output_size() == 1) {
        for (const auto& a : node.attribute()) {
            if (a.name() == "value" && a.has_t())
                m_constantNodes.emplace(node.output(0), &a.t());
        }
    }
    return std::nullopt;
}

namespace {

/// The product of `t`'s axes before `axis`, when they are known; nullopt otherwise.
std::optional<std::int64_t> sizeBefore(const ValueType& t, std::size_t axis)
{
    std::int64_t product = 1;
    for (std::size_t k = 0; k < axis && k < t.dims.size(); ++k) {
        if (!t.dims[k].known() || *t.dims[k].value < 1
            || __builtin_mul_overflow(product, *t.dims[k].value, &product))
            return std::nullopt;
    }
    return product;
}

} // namespace

void OnnxGraph::followBatchMerges()
{
    for (const auto& n : m_graph->node()) {
        for (const auto& out : n.output()) {
            const auto* t = out.empty() ? nullptr : type(out);
            if (t == nullptr || !t->hasShape || batchSymbol().empty())
                continue;
            const std::size_t axis = batchAxisOf(out);
            const auto multiple
                = axis < t->dims.size() ? batchMultiple(t->dims[axis], batchSymbol()) : std::nullopt;
            if (multiple && *multiple > 1)
                m_merges[out] = mergeAfter(n, out, *multiple);
        }
    }
}

BatchMerge OnnxGraph::mergeAfter(
    const onnx::NodeProto& n, const std::string& out, std::int64_t multiple) const
{
    if (n.op_type() == "Reshape" && n.input_size() >= 1) {
        // Row-major order: the output's axes before the merged one take the first `before` of the input's
        // values that precede the batch index; the rest of those are the merged axis's outer part.
        const auto* in = type(n.input(0));
        const auto inBefore = in ? sizeBefore(*in, batchAxisOf(n.input(0))) : std::nullopt;
        const auto* result = type(out);
        const auto outBefore = result ? sizeBefore(*result, batchAxisOf(out)) : std::nullopt;
        const std::int64_t inOuter = batchMergeOf(n.input(0)).outer;
        std::int64_t values = 0;
        if (inBefore && outBefore && !__builtin_mul_overflow(*inBefore, inOuter, &values)
            && values % *outBefore == 0 && multiple % (values / *outBefore) == 0)
            return BatchMerge { values / *outBefore, multiple / (values / *outBefore) };
        return BatchMerge { 1, multiple };
    }
    // Operators that keep the axis as it is (element-wise, Transpose, MatMul, Gemm): an input's layout.
    for (const auto& in : n.input()) {
        const auto* t = in.empty() ? nullptr : type(in);
        const std::size_t axis = batchAxisOf(in);
        if (t != nullptr && t->hasShape && axis < t->dims.size()
            && batchMultiple(t->dims[axis], batchSymbol()) == multiple)
            return batchMergeOf(in);
    }
    return BatchMerge { 1, multiple };
}

const ValueType* OnnxGraph::type(const std::string& value) const
{
    const auto it = m_types.find(value);
    return it == m_types.end() ? nullptr : &it->second;
}

int OnnxGraph::producer(const std::string& value) const
{
    const auto it = m_producers.find(value);
    return it == m_producers.end() ? -1 : it->second;
}

const std::vector<int>& OnnxGraph::consumers(const std::string& value) const
{
    const auto it = m_consumers.find(value);
    return it == m_consumers.end() ? kNoConsumers : it->second;
}

std::optional<std::vector<double>> OnnxGraph::constantNumbers(
    const std::string& value, std::size_t maxElements) const
{
    if (const auto it = m_initializers.find(value); it != m_initializers.end())
        return tensorNumbers(*it->second, maxElements);
    if (const auto it = m_constantNodes.find(value); it != m_constantNodes.end())
        return tensorNumbers(*it->second, maxElements);
    // Constant nodes may also hold a single number or a list in value_float(s)/value_int(s).
    const int p = producer(value);
    if (p < 0)
        return std::nullopt;
    const auto& node = m_graph->node(p);
    // A constant through a Cast (torch 1.13 casts clamp's bounds): its numbers, truncated for an integer
    // type.
    if (node.op_type() == "Cast" && node.domain().empty() && node.input_size() == 1) {
        auto numbers = constantNumbers(node.input(0), maxElements);
        const auto to = intAttribute(node, "to").value_or(onnx::TensorProto::FLOAT);
        const bool integer = to != onnx::TensorProto::FLOAT && to != onnx::TensorProto::DOUBLE
            && to != onnx::TensorProto::FLOAT16 && to != onnx::TensorProto::BFLOAT16;
        if (numbers && integer) {
            for (auto& x : *numbers)
                x = std::trunc(x);
        }
        return numbers;
    }
    if (node.op_type() != "Constant" || !node.domain().empty())
        return std::nullopt;
    for (const auto& a : node.attribute()) {
        if (a.name() == "value_float")
            return std::vector<double> { static_cast<double>(a.f()) };
        if (a.name() == "value_int")
            return std::vector<double> { static_cast<double>(a.i()) };
        if (a.name() == "value_floats" && static_cast<std::size_t>(a.floats_size()) <= maxElements)
            return std::vector<double>(a.floats().begin(), a.floats().end());
        if (a.name() == "value_ints" && static_cast<std::size_t>(a.ints_size()) <= maxElements) {
            std::vector<double> out;
            for (const auto x : a.ints())
                out.push_back(static_cast<double>(x));
            return out;
        }
    }
    return std::nullopt;
}

} // namespace headroom::onnximport
