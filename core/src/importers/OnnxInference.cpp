#include "OnnxInference.h"

#include "OnnxGraph.h"
#include "OnnxValidation.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom::onnximport {

namespace {

/// Each node carries its index in this attribute while ONNX infers, so the guard knows which node an
/// inference call is for (ONNX's context does not say). No ONNX operator has an attribute of this name.
constexpr const char* kNodeIndex = "headroom.node_index";
/// The most values of a constant the inference functions are given: they read constants only as shapes,
/// axes, pads, scales or split sizes, none near this long.
constexpr std::int64_t kMaxConstantValues = 4096;
/// The most values data propagation keeps for one tensor (a shape, or pads: two per axis).
constexpr int kMaxShapeValues = 2 * static_cast<int>(kMaxRank);

struct NodeInfo
{
    std::string label;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
};

/// Elements of a tensor type with every axis known, or -1.
std::int64_t knownElements(const onnx::TypeProto* type)
{
    if (type == nullptr || !type->has_tensor_type() || !type->tensor_type().has_shape())
        return -1;
    std::int64_t n = 1;
    for (const auto& d : type->tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0 || d.dim_value() > kMaxDimension)
            return -1;
        n = d.dim_value() != 0 && n > kMaxDimension / d.dim_value() ? kMaxDimension : n * d.dim_value();
    }
    return n;
}

/// An output type Headroom refuses: more than kMaxRank axes, or an axis outside 0 to 2^40.
std::optional<std::string> outputProblem(const onnx::TypeProto& type, int depth = 0)
{
    if (depth > 8)
        return std::nullopt;
    if (type.has_sequence_type())
        return outputProblem(type.sequence_type().elem_type(), depth + 1);
    if (type.has_optional_type())
        return outputProblem(type.optional_type().elem_type(), depth + 1);
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return std::nullopt;
    const auto& shape = type.tensor_type().shape();
    if (static_cast<std::size_t>(shape.dim_size()) > kMaxRank)
        return std::to_string(shape.dim_size()) + " axes; tensors have at most " + std::to_string(kMaxRank)
            + " (PyTorch's limit)";
    for (const auto& d : shape.dim()) {
        if (d.has_dim_value() && (d.dim_value() < 0 || d.dim_value() > kMaxDimension))
            return "an axis of size " + std::to_string(d.dim_value()) + "; sizes must be 0 to 2^40";
    }
    return std::nullopt;
}

/// ONNX's inference context with three changes. Large constants are hidden: what an operator reads as
/// a shape, axes, pads or scales is never that long, and ParseData would copy it whole. A 1-D integer
/// input whose every value data propagation knows is given as a constant, so that Slice, Pad, Tile and
/// the axes inputs (which ONNX 1.12 reads only from constants) use what propagation found in the same
/// pass. And a Reshape target that names the input's symbolic axis (the batch, [N, -1, H, W] after a
/// channel shuffle) says "copy that axis" (0), which lets ONNX work out the -1.
class GuardedContext final : public onnx::InferenceContext
{
public:
    GuardedContext(onnx::InferenceContext& inner, const std::string& op)
        : m_inner { inner }
        , m_op { op }
    {
    }

    const onnx::AttributeProto* getAttribute(const std::string& name) const override
    {
        return m_inner.getAttribute(name);
    }
    size_t getNumInputs() const override { return m_inner.getNumInputs(); }
    const onnx::TypeProto* getInputType(size_t index) const override { return m_inner.getInputType(index); }
    const onnx::TensorProto* getInputData(size_t index) const override
    {
        if (const auto* data = m_inner.getInputData(index)) {
            std::int64_t n = 1;
            for (const auto d : data->dims())
                n = d > kMaxConstantValues || n * d > kMaxConstantValues ? kMaxConstantValues + 1 : n * d;
            return n > kMaxConstantValues ? nullptr : data;
        }
        return propagatedConstant(index);
    }
    size_t getNumOutputs() const override { return m_inner.getNumOutputs(); }
    onnx::TypeProto* getOutputType(size_t index) override { return m_inner.getOutputType(index); }
    onnx::GraphInferencer* getGraphAttributeInferencer(const std::string& name) override
    {
        return m_inner.getGraphAttributeInferencer(name);
    }
    const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
    const onnx::TensorShapeProto* getSymbolicInput(size_t index) const override
    {
        const auto* data = m_inner.getSymbolicInput(index);
        if (data == nullptr || data->dim_size() > kMaxShapeValues)
            return nullptr;
        if (m_op != "Reshape" || index != 1)
            return data;
        const auto* allowZero = m_inner.getAttribute("allowzero");
        const auto* in = m_inner.getInputType(0);
        if ((allowZero != nullptr && allowZero->i() != 0) || in == nullptr || !in->tensor_type().has_shape())
            return data;
        m_target = *data;
        const auto& dims = in->tensor_type().shape();
        for (int i = 0; i < m_target.dim_size() && i < dims.dim_size(); ++i) {
            auto* d = m_target.mutable_dim(i);
            if (d->has_dim_param() && dims.dim(i).has_dim_param()
                && d->dim_param() == dims.dim(i).dim_param())
                d->set_dim_value(0);
        }
        return &m_target;
    }

private:
    const onnx::TensorProto* propagatedConstant(size_t index) const
    {
        const auto* data = m_inner.getSymbolicInput(index);
        const auto* type = m_inner.getInputType(index);
        if (data == nullptr || type == nullptr || !type->has_tensor_type() || !type->tensor_type().has_shape()
            || data->dim_size() == 0 || data->dim_size() > kMaxShapeValues)
            return nullptr;
        const auto elementType = type->tensor_type().elem_type();
        const int rank = type->tensor_type().shape().dim_size();
        if ((elementType != onnx::TensorProto::INT64 && elementType != onnx::TensorProto::INT32) || rank > 1
            || (rank == 0 && data->dim_size() != 1))
            return nullptr;
        auto& t = m_constants[index];
        t.Clear();
        t.set_data_type(elementType);
        if (rank == 1)
            t.add_dims(data->dim_size());
        for (const auto& d : data->dim()) {
            if (!d.has_dim_value()
                || (elementType == onnx::TensorProto::INT32
                    && (d.dim_value() < INT32_MIN || d.dim_value() > INT32_MAX)))
                return nullptr;
            if (elementType == onnx::TensorProto::INT64)
                t.add_int64_data(d.dim_value());
            else
                t.add_int32_data(static_cast<std::int32_t>(d.dim_value()));
        }
        return &t;
    }

    onnx::InferenceContext& m_inner;
    const std::string& m_op;
    mutable std::map<std::size_t, onnx::TensorProto> m_constants;
    mutable onnx::TensorShapeProto m_target;
};

/// ONNX's data propagation context, passing on only short, non-empty shape vectors: an empty one is read
/// at index 0 by ONNX 1.12's Add/Sub/Mul propagation, and a long one (a table of token ids) is no shape.
class GuardedPropagation final : public onnx::DataPropagationContext
{
public:
    explicit GuardedPropagation(onnx::DataPropagationContext& inner)
        : m_inner { inner }
    {
    }

    const onnx::AttributeProto* getAttribute(const std::string& name) const override
    {
        return m_inner.getAttribute(name);
    }
    size_t getNumInputs() const override { return m_inner.getNumInputs(); }
    const onnx::TypeProto* getInputType(size_t index) const override { return m_inner.getInputType(index); }
    size_t getNumOutputs() const override { return m_inner.getNumOutputs(); }
    const onnx::TypeProto* getOutputType(size_t index) const override { return m_inner.getOutputType(index); }
    const onnx::TensorShapeProto* getInputData(size_t index) override
    {
        const auto* type = index < m_inner.getNumInputs() ? m_inner.getInputType(index) : nullptr;
        if (type != nullptr && type->has_tensor_type() && type->tensor_type().has_shape()
            && (type->tensor_type().shape().dim_size() > 1 || knownElements(type) > kMaxShapeValues))
            return nullptr; // not a shape vector: never converted
        const auto* data = m_inner.getInputData(index);
        return data != nullptr && data->dim_size() > 0 && data->dim_size() <= kMaxShapeValues ? data
                                                                                              : nullptr;
    }
    void addOutputData(size_t index, onnx::TensorShapeProto&& data) override
    {
        if (data.dim_size() <= kMaxShapeValues)
            m_inner.addOutputData(index, std::move(data));
    }

private:
    onnx::DataPropagationContext& m_inner;
};

/// Why a step of size arithmetic cannot be propagated: the message for a refusal naming the node.
using PropagationProblem = std::optional<std::string>;

/// A size in a shape vector: a number, or a multiple of one symbol ("N", or "8*N" where attention folds
/// heads into the batch), named as OnnxGraph's batchMultiple reads it back.
struct SymbolicSize
{
    std::int64_t multiple = 1;
    std::string symbol; ///< empty for a number
};

/// The largest multiple of a symbol written (batchMultiple's limit).
constexpr std::int64_t kLargestSymbolMultiple = std::int64_t { 1 } << 40;

/// A dimension as a SymbolicSize: a number, "S" or "m*S"; nullopt when unknown (ONNX's made-up "unk__").
std::optional<SymbolicSize> readSymbolicSize(const onnx::TensorShapeProto::Dimension& d)
{
    if (d.has_dim_value())
        return SymbolicSize { d.dim_value(), {} };
    const std::string& p = d.has_dim_param() ? d.dim_param() : std::string();
    if (p.empty() || p.rfind("unk__", 0) == 0)
        return std::nullopt;
    const auto star = p.find('*');
    if (star == std::string::npos)
        return SymbolicSize { 1, p };
    if (star == 0 || star > 12 || star + 1 >= p.size())
        return std::nullopt;
    std::int64_t m = 0;
    for (std::size_t k = 0; k < star; ++k) {
        if (p[k] < '0' || p[k] > '9')
            return std::nullopt;
        m = m * 10 + (p[k] - '0');
    }
    if (m < 1 || m > kLargestSymbolMultiple)
        return std::nullopt;
    return SymbolicSize { m, p.substr(star + 1) };
}

void writeSymbolicSize(const SymbolicSize& s, onnx::TensorShapeProto::Dimension& d)
{
    if (s.symbol.empty())
        d.set_dim_value(s.multiple);
    else
        d.set_dim_param(s.multiple == 1 ? s.symbol : std::to_string(s.multiple) + "*" + s.symbol);
}

/// A symbol's multiple times or divided by a number (torch's `B * heads`, `T * B`, `B * heads // heads`):
/// the multiple of the same symbol, or nullopt for anything else (B + 1, B / 2, B * B).
std::optional<SymbolicSize> scaledSymbol(const std::string& op, const onnx::TensorShapeProto::Dimension& x,
    const onnx::TensorShapeProto::Dimension& y)
{
    const auto a = readSymbolicSize(x);
    const auto b = readSymbolicSize(y);
    if (!a || !b || a->symbol.empty() == b->symbol.empty())
        return std::nullopt;
    std::int64_t m = 0;
    if (op == "Mul") {
        const auto& s = a->symbol.empty() ? *b : *a;
        const std::int64_t k = a->symbol.empty() ? a->multiple : b->multiple;
        if (k < 1 || __builtin_mul_overflow(s.multiple, k, &m) || m > kLargestSymbolMultiple)
            return std::nullopt;
        return SymbolicSize { m, s.symbol };
    }
    if (op == "Div" && !a->symbol.empty() && b->multiple >= 1 && a->multiple % b->multiple == 0)
        return SymbolicSize { a->multiple / b->multiple, a->symbol };
    return std::nullopt;
}

/// Data propagation for Add, Sub, Mul and Div on 64-bit sizes. ONNX 1.12's own (Add, Sub, Mul) computes in
/// int: INT64_MIN read as 0, 2^31 and more wrapped. Div it lacks: torch writes `size // k` as Div on int64
/// sizes (torchvision's channel_shuffle, ViT's patch count), and without it every Reshape after a channel
/// shuffle would wait for another inference pass; sizes are non-negative, so ONNX's truncating integer Div
/// is Python's floor division here, and anything else stays unknown. Broadcasting as ONNX's: one vector
/// of length 1, or equal lengths. A result that does not fit 64 bits is a problem (the file's sizes
/// overflow).
PropagationProblem propagateArithmetic(onnx::DataPropagationContext& ctx, const std::string& op)
{
    const auto* a = ctx.getInputData(0);
    const auto* b = ctx.getInputData(1);
    const auto* type = ctx.getInputType(0);
    if (a == nullptr || b == nullptr || type == nullptr || !type->has_tensor_type()
        || (type->tensor_type().elem_type() != onnx::TensorProto::INT64
            && type->tensor_type().elem_type() != onnx::TensorProto::INT32)
        || (a->dim_size() != b->dim_size() && a->dim_size() != 1 && b->dim_size() != 1))
        return std::nullopt;
    onnx::TensorShapeProto result;
    for (int i = 0; i < std::max(a->dim_size(), b->dim_size()); ++i) {
        const auto& x = a->dim(a->dim_size() == 1 ? 0 : i);
        const auto& y = b->dim(b->dim_size() == 1 ? 0 : i);
        auto* d = result.add_dim();
        if (!x.has_dim_value() || !y.has_dim_value()) {
            if (const auto scaled = scaledSymbol(op, x, y))
                writeSymbolicSize(*scaled, *d);
            continue;
        }
        const std::int64_t p = x.dim_value();
        const std::int64_t q = y.dim_value();
        std::int64_t r = 0;
        bool overflow = false;
        if (op == "Add")
            overflow = __builtin_add_overflow(p, q, &r);
        else if (op == "Sub")
            overflow = __builtin_sub_overflow(p, q, &r);
        else if (op == "Mul")
            overflow = __builtin_mul_overflow(p, q, &r);
        else if (p >= 0 && q > 0)
            r = p / q;
        else
            continue;
        if (overflow) {
            const char* sign = op == "Add" ? " + " : op == "Sub" ? " - " : " * ";
            return "computes " + std::to_string(p) + sign + std::to_string(q)
                + " on sizes, which overflows 64 bits";
        }
        d->set_dim_value(r);
    }
    ctx.addOutputData(0, std::move(result));
    return std::nullopt;
}

/// Gather along axis 0 of a size vector (ONNX 1.12's propagation reads each index as an int, so 2^62 and
/// INT64_MIN read size 0): an index outside the vector is a problem.
PropagationProblem propagateGather(onnx::DataPropagationContext& ctx)
{
    if (const auto* axis = ctx.getAttribute("axis"); axis != nullptr && axis->i() != 0)
        return std::nullopt;
    const auto* data = ctx.getInputData(0);
    const auto* indices = ctx.getNumInputs() > 1 ? ctx.getInputData(1) : nullptr;
    if (data == nullptr || indices == nullptr)
        return std::nullopt;
    const std::int64_t size = data->dim_size();
    onnx::TensorShapeProto result;
    for (const auto& d : indices->dim()) {
        if (!d.has_dim_value())
            return std::nullopt;
        const std::int64_t k = d.dim_value();
        if (k < -size || k >= size)
            return "reads index " + std::to_string(k) + " of " + std::to_string(size) + " sizes (indices are "
                + std::to_string(-size) + " to " + std::to_string(size - 1) + ")";
        *result.add_dim() = data->dim(static_cast<int>(k < 0 ? k + size : k));
    }
    if (result.dim_size() > 0)
        ctx.addOutputData(0, std::move(result));
    return std::nullopt;
}

/// Slice along axis 0 of a size vector, as ONNX defines it (Python's rules: negative bounds count from the
/// end, then are clamped). ONNX 1.12's propagation steps an int by the int64 step: a step of 2^63 - 1 read
/// outside the vector, 2^62, 2^32 or INT64_MIN looped while allocating gigabytes.
void propagateSlice(onnx::DataPropagationContext& ctx)
{
    const auto input = [&](std::size_t k) { return ctx.getNumInputs() > k ? ctx.getInputData(k) : nullptr; };
    const auto* data = input(0);
    const auto* starts = input(1);
    const auto* ends = input(2);
    const auto* axes = input(3);
    const auto* steps = input(4);
    const auto single
        = [](const onnx::TensorShapeProto* v) { return v->dim_size() == 1 && v->dim(0).has_dim_value(); };
    if (data == nullptr || starts == nullptr || ends == nullptr || !single(starts) || !single(ends)
        || (axes != nullptr && (!single(axes) || axes->dim(0).dim_value() != 0))
        || (steps != nullptr && (!single(steps) || steps->dim(0).dim_value() == 0)))
        return;
    const std::int64_t size = data->dim_size();
    const std::int64_t step = steps == nullptr ? 1 : steps->dim(0).dim_value();
    const auto bound = [&](std::int64_t i) {
        if (i < 0)
            i = i < -size ? -1 : i + size;
        return step > 0 ? std::clamp<std::int64_t>(i, 0, size) : std::clamp<std::int64_t>(i, -1, size - 1);
    };
    const std::int64_t start = bound(starts->dim(0).dim_value());
    const std::int64_t end = bound(ends->dim(0).dim_value());
    // A step past the vector's length takes the start alone, as the step itself would.
    const std::int64_t stride
        = std::clamp<std::int64_t>(step, -std::max<std::int64_t>(size, 1), std::max<std::int64_t>(size, 1));
    onnx::TensorShapeProto result;
    for (std::int64_t i = start; stride > 0 ? i < end : i > end; i += stride)
        *result.add_dim() = data->dim(static_cast<int>(i));
    if (result.dim_size() > 0)
        ctx.addOutputData(0, std::move(result));
}

/// A Reshape's output from its target as data propagation knows it, where ONNX 1.12 left it open: its
/// Reshape before opset 14 reads only a stored target, and no version works out a -1 beside a symbolic
/// size. Each size is a number or a multiple of one symbol; 0 copies the input's axis (allowzero 0), and
/// -1 takes what is left of the input's sizes: numbers, or a multiple of the input's one symbol (the
/// channel shuffle's [N, -1, H, W], attention's [T * N, E]). Worked out in the same inference pass, a
/// chain of such reshapes (one per block of a ShuffleNet or a ViT) needs no pinning pass per link.
void sizeReshape(onnx::InferenceContext& ctx)
{
    auto* out = ctx.getNumOutputs() > 0 ? ctx.getOutputType(0) : nullptr;
    const auto* in = ctx.getInputType(0);
    const auto* allowZero = ctx.getAttribute("allowzero");
    if (out == nullptr || in == nullptr || ctx.getNumInputs() < 2 || !in->has_tensor_type()
        || !in->tensor_type().has_shape() || (allowZero != nullptr && allowZero->i() != 0))
        return;
    if (out->tensor_type().has_shape()
        && std::all_of(out->tensor_type().shape().dim().begin(), out->tensor_type().shape().dim().end(),
            [](const auto& d) { return d.has_dim_value() || d.has_dim_param(); }))
        return; // sized by ONNX
    const auto* target = ctx.getSymbolicInput(1);
    if (target == nullptr || target->dim_size() == 0)
        return;
    // Numbers multiplied, and at most one symbol: the values of the input and of the target's known sizes.
    struct Volume
    {
        std::int64_t number = 1;
        std::string symbol;
        bool add(const SymbolicSize& s)
        {
            if (s.multiple < 1 || __builtin_mul_overflow(number, s.multiple, &number))
                return false;
            if (s.symbol.empty())
                return true;
            if (!symbol.empty())
                return false;
            symbol = s.symbol;
            return true;
        }
    };
    const auto& inDims = in->tensor_type().shape();
    Volume input;
    for (const auto& d : inDims.dim()) {
        const auto s = readSymbolicSize(d);
        if (!s || !input.add(*s))
            return;
    }
    Volume known;
    std::vector<SymbolicSize> sizes;
    std::optional<std::size_t> inferred;
    for (int k = 0; k < target->dim_size(); ++k) {
        const auto& d = target->dim(k);
        if (d.has_dim_value() && d.dim_value() == -1 && !inferred) {
            inferred = sizes.size();
            sizes.emplace_back();
            continue;
        }
        const bool copies = d.has_dim_value() && d.dim_value() == 0;
        const auto s = copies ? (k < inDims.dim_size() ? readSymbolicSize(inDims.dim(k)) : std::nullopt)
                              : readSymbolicSize(d);
        if (!s || !known.add(*s))
            return;
        sizes.push_back(*s);
    }
    if (inferred) {
        if (input.number % known.number != 0 || (!known.symbol.empty() && known.symbol != input.symbol))
            return;
        sizes[*inferred]
            = SymbolicSize { input.number / known.number, known.symbol.empty() ? input.symbol : "" };
        if (!sizes[*inferred].symbol.empty() && sizes[*inferred].multiple > kLargestSymbolMultiple)
            return;
    } else if (known.number != input.number || known.symbol != input.symbol)
        return; // ONNX reports the mismatch, or it is not Headroom's to settle
    auto* tensor = out->mutable_tensor_type();
    if (tensor->elem_type() == 0)
        tensor->set_elem_type(in->tensor_type().elem_type());
    auto* shape = tensor->mutable_shape();
    shape->clear_dim();
    for (const auto& s : sizes)
        writeSymbolicSize(s, *shape->add_dim());
}

/// Resize (and Upsample) with a batch scale of 1 keeps the batch axis, which ONNX 1.12's inference
/// loses (a symbolic size times 1.0 becomes an unknown): the output gets the input's symbol back, so that
/// what follows knows the batch axis.
void keepBatchAxis(onnx::InferenceContext& ctx)
{
    const std::size_t scalesInput = ctx.getNumInputs() > 2 ? 2 : 1;
    const auto* scales = ctx.getNumInputs() > scalesInput ? ctx.getInputData(scalesInput) : nullptr;
    const auto* in = ctx.getInputType(0);
    auto* out = ctx.getNumOutputs() > 0 ? ctx.getOutputType(0) : nullptr;
    if (scales == nullptr || scales->data_type() != onnx::TensorProto::FLOAT || in == nullptr
        || out == nullptr || !in->tensor_type().has_shape() || in->tensor_type().shape().dim_size() == 0
        || !out->tensor_type().has_shape() || out->tensor_type().shape().dim_size() == 0)
        return;
    const auto& batch = in->tensor_type().shape().dim(0);
    auto* result = out->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
    const auto first = tensorNumbers(*scales, 64);
    if (first && !first->empty() && first->front() == 1.0 && batch.has_dim_param() && !result->has_dim_value()
        && !result->has_dim_param())
        result->set_dim_param(batch.dim_param());
}

/// A tensor type as a message shows it: "FLOAT [N, 4]", "INT64 of unknown shape".
std::string typeText(const onnx::TypeProto& type)
{
    const auto& t = type.tensor_type();
    std::string s
        = t.elem_type() == 0 ? std::string("of unknown element type") : elementTypeName(t.elem_type());
    if (!t.has_shape())
        return s + " of unknown shape";
    s += " [";
    for (int k = 0; k < t.shape().dim_size(); ++k) {
        const auto& d = t.shape().dim(k);
        s += (k > 0 ? ", " : "")
            + (d.has_dim_value()        ? std::to_string(d.dim_value())
                    : d.has_dim_param() ? d.dim_param()
                                        : "?");
    }
    return s + "]";
}

/// Where an inferred type contradicts a declared one: another element type, another rank, or another
/// size where both give one. Symbols are names, not sizes, and are never compared.
bool contradicts(const onnx::TypeProto& inferred, const onnx::TypeProto& declared)
{
    if (!inferred.has_tensor_type() || !declared.has_tensor_type())
        return false;
    const auto& a = inferred.tensor_type();
    const auto& b = declared.tensor_type();
    if (a.elem_type() != 0 && b.elem_type() != 0 && a.elem_type() != b.elem_type())
        return true;
    if (!a.has_shape() || !b.has_shape())
        return false;
    if (a.shape().dim_size() != b.shape().dim_size())
        return true;
    for (int k = 0; k < a.shape().dim_size(); ++k) {
        const auto& x = a.shape().dim(k);
        const auto& y = b.shape().dim(k);
        if (x.has_dim_value() && y.has_dim_value() && x.dim_value() != y.dim_value())
            return true;
    }
    return false;
}

/// Unsqueeze's and Squeeze's axes (the attribute before opset 13, a constant input since) outside the
/// output's or the input's axes: ONNX 1.12's inference refuses them, but the size vector they relabel
/// would still be folded as if they were valid (an Unsqueeze axis of 2^62 of a size).
std::optional<std::string> axesProblem(const onnx::InferenceContext& ctx, const std::string& op)
{
    if ((op != "Unsqueeze" && op != "Squeeze") || ctx.getNumInputs() < 1)
        return std::nullopt;
    const auto* in = ctx.getInputType(0);
    if (in == nullptr || !in->has_tensor_type() || !in->tensor_type().has_shape())
        return std::nullopt;
    std::vector<std::int64_t> axes;
    if (const auto* a = ctx.getAttribute("axes"))
        axes.assign(a->ints().begin(), a->ints().end());
    else if (const auto* data = ctx.getNumInputs() > 1 ? ctx.getInputData(1) : nullptr) {
        const auto numbers = tensorNumbers(*data, kMaxRank + 1);
        if (!numbers)
            return std::nullopt;
        for (const double x : *numbers)
            axes.push_back(saturatedInteger(x).value_or(0));
    }
    const std::int64_t rank = in->tensor_type().shape().dim_size()
        + (op == "Unsqueeze" ? static_cast<std::int64_t>(axes.size()) : 0);
    for (const auto axis : axes) {
        if (axis < -rank || axis >= rank)
            return "has axis " + std::to_string(axis) + ", outside -" + std::to_string(rank) + " to "
                + std::to_string(rank - 1) + " for its " + (op == "Unsqueeze" ? "output" : "input")
                + " of rank " + std::to_string(rank);
    }
    return std::nullopt;
}

/// A schema registry handing out ONNX's schemas with guarded inference and propagation functions.
class GuardedSchemas final : public onnx::ISchemaRegistry
{
public:
    GuardedSchemas(std::vector<NodeInfo> nodes, const DeclaredTypes& declared)
        : m_nodes { std::move(nodes) }
        , m_declared { declared }
    {
    }

    const onnx::OpSchema* GetSchema(
        const std::string& key, const int maxInclusiveVersion, const std::string& domain) const override
    {
        const auto* schema = onnx::OpSchemaRegistry::Schema(key, maxInclusiveVersion, domain);
        if (schema == nullptr)
            return nullptr;
        auto& wrapped = m_wrapped[schema];
        if (!wrapped)
            wrapped = wrap(*schema);
        return wrapped.get();
    }

    [[nodiscard]] const std::optional<Error>& problem() const noexcept { return m_problem; }

private:
    std::unique_ptr<onnx::OpSchema> wrap(const onnx::OpSchema& schema) const
    {
        auto copy = std::make_unique<onnx::OpSchema>(schema);
        const std::string op = schema.Name();
        if (schema.has_type_and_shape_inference_function()) {
            auto original = schema.GetTypeAndShapeInferenceFunction();
            copy->TypeAndShapeInferenceFunction(
                [this, original, op](onnx::InferenceContext& ctx) { infer(original, op, ctx); });
        }
        const bool standard = schema.domain() == onnx::ONNX_DOMAIN;
        if (standard && (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Gather"))
            copy->PartialDataPropagationFunction([this, op](onnx::DataPropagationContext& ctx) {
                if (m_problem)
                    return;
                GuardedPropagation guarded(ctx);
                if (auto why = op == "Gather" ? propagateGather(guarded) : propagateArithmetic(guarded, op))
                    refuse(nodeOf(ctx), *why);
            });
        else if (standard && op == "Slice")
            copy->PartialDataPropagationFunction([this](onnx::DataPropagationContext& ctx) {
                if (m_problem)
                    return;
                GuardedPropagation guarded(ctx);
                propagateSlice(guarded);
            });
        else if (schema.has_data_propagation_function()) {
            auto original = schema.GetDataPropagationFunction();
            copy->PartialDataPropagationFunction([this, original](onnx::DataPropagationContext& ctx) {
                if (m_problem)
                    return;
                GuardedPropagation guarded(ctx);
                original(guarded);
            });
        }
        return copy;
    }

    template <typename Context> const NodeInfo* nodeOf(const Context& ctx) const
    {
        const auto* a = ctx.getAttribute(kNodeIndex);
        if (a == nullptr || a->i() < 0 || static_cast<std::size_t>(a->i()) >= m_nodes.size())
            return nullptr; // a node inside an operator's function body
        return &m_nodes[static_cast<std::size_t>(a->i())];
    }

    void refuse(const NodeInfo* node, const std::string& what) const
    {
        if (!m_problem)
            m_problem = Error {
                (node ? node->label : std::string("a node inside an operator's function body")) + " " + what,
                node ? node->outputs.front() : std::string()
            };
    }

    /// Why ONNX 1.12 may not run the node's inference function, or nullopt: a named input without a type
    /// (its functions dereference input types unchecked), or a shape input it would loop over that is
    /// too long (a fatal problem, recorded).
    std::optional<std::string> mayNotInfer(
        const onnx::InferenceContext& ctx, const std::string& op, const NodeInfo* node) const
    {
        for (std::size_t i = 0; i < ctx.getNumInputs(); ++i) {
            const bool named = node == nullptr || (i < node->inputs.size() && !node->inputs[i].empty());
            if (named && ctx.getInputType(i) == nullptr)
                return "input " + std::to_string(i)
                    + (node ? " ('" + cleanText(node->inputs[i]) + "')" : std::string()) + " has no type";
        }
        // Expand and ConstantOfShape add one output axis per entry of their shape input, also when only
        // its length is known (getShapeInput's "rank inference").
        const std::size_t shapeInput = op == "Expand" ? 1 : 0;
        if ((op == "Expand" || op == "ConstantOfShape") && shapeInput < ctx.getNumInputs()) {
            const auto length = knownElements(ctx.getInputType(shapeInput));
            if (length > static_cast<std::int64_t>(kMaxRank)) {
                refuse(node,
                    "reads a shape of " + std::to_string(length) + " sizes; tensors have at most "
                        + std::to_string(kMaxRank) + " axes (PyTorch's limit)");
                return "its shape input is too long";
            }
        }
        if (auto why = axesProblem(ctx, op)) {
            refuse(node, *why);
            return "its axes are out of range";
        }
        // SplitToSequence divides the axis by a scalar split size (ONNX 1.12's inference: splitDimValue %
        // splitSizes[0]), so a size of 0 would divide by zero.
        const auto* split = op == "SplitToSequence" && ctx.getNumInputs() > 1 ? ctx.getInputData(1) : nullptr;
        if (split != nullptr && split->dims_size() == 0) {
            const auto size = tensorNumbers(*split, 1);
            if (size && size->size() == 1 && !(size->front() > 0)) {
                const auto whole = saturatedInteger(size->front());
                refuse(node,
                    "splits into pieces of size " + (whole ? std::to_string(*whole) : std::string("NaN"))
                        + "; split sizes must be positive");
                return "its split size is not positive";
            }
        }
        return std::nullopt;
    }

    void infer(
        const onnx::InferenceFunction& original, const std::string& op, onnx::InferenceContext& ctx) const
    {
        if (m_problem)
            return; // the import fails anyway: no more work
        const NodeInfo* node = nodeOf(ctx);
        // Thrown as ONNX's own inference errors are: ONNX then leaves the outputs unknown, skips the
        // node's data propagation, and the message explains a missing shape later.
        if (auto why = mayNotInfer(ctx, op, node))
            fail_shape_inference("Headroom did not run the inference of ", op, ": ", *why);
        GuardedContext guarded(ctx, op);
        original(guarded);
        if (op == "Resize" || op == "Upsample")
            keepBatchAxis(guarded);
        else if (op == "Reshape")
            sizeReshape(guarded);
        for (std::size_t i = 0; i < ctx.getNumOutputs(); ++i) {
            const std::string name = node && i < node->outputs.size() ? node->outputs[i] : std::string();
            if (auto what = outputProblem(*ctx.getOutputType(i))) {
                refuse(node, "gives tensor '" + cleanText(name) + "' " + *what);
                return;
            }
            // A graph output the file declares otherwise: the file contradicts itself.
            const auto declared = name.empty() ? m_declared.end() : m_declared.find(name);
            if (declared != m_declared.end() && contradicts(*ctx.getOutputType(i), declared->second)) {
                refuse(node,
                    "gives tensor '" + cleanText(name) + "' " + typeText(*ctx.getOutputType(i))
                        + ", but the graph declares it " + typeText(declared->second) + " as its output");
                return;
            }
        }
    }

    std::vector<NodeInfo> m_nodes;
    const DeclaredTypes& m_declared;
    mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> m_wrapped;
    mutable std::optional<Error> m_problem;
};

/// Tags every node with its index (kNodeIndex) and returns what messages need about each.
std::vector<NodeInfo> tagNodes(onnx::GraphProto& graph)
{
    std::vector<NodeInfo> nodes;
    nodes.reserve(static_cast<std::size_t>(graph.node_size()));
    for (int i = 0; i < graph.node_size(); ++i) {
        auto& n = *graph.mutable_node(i);
        NodeInfo info { "node " + cleanText(nodeLabel(n)) + " (" + cleanText(n.op_type()) + ")",
            { n.input().begin(), n.input().end() }, { n.output().begin(), n.output().end() } };
        if (info.outputs.empty())
            info.outputs.emplace_back();
        nodes.push_back(std::move(info));
        auto* a = n.add_attribute();
        a->set_name(kNodeIndex);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(i);
    }
    return nodes;
}

void untagNodes(onnx::GraphProto& graph)
{
    for (auto& n : *graph.mutable_node()) {
        auto* attributes = n.mutable_attribute();
        if (!attributes->empty() && attributes->rbegin()->name() == kNodeIndex)
            attributes->RemoveLast();
    }
}

/// One InferShapes call; false with the message when ONNX threw.
bool tryInfer(onnx::ModelProto& model, const GuardedSchemas& schemas, int errorMode, ShapeData& shapeData,
    std::string& error)
{
    shapeData.clear();
    try {
        onnx::shape_inference::InferShapes(
            model, &schemas, onnx::ShapeInferenceOptions { false, errorMode, true }, &shapeData);
        return true;
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
}

} // namespace

DeclaredTypes declaredOutputTypes(const onnx::GraphProto& graph)
{
    DeclaredTypes declared;
    for (const auto& out : graph.output()) {
        if (out.has_type())
            declared.emplace(out.name(), out.type());
    }
    return declared;
}

Result<ShapeData> inferShapes(
    onnx::ModelProto& model, const DeclaredTypes& declared, std::string& inferenceError)
{
    // ONNX gives initializers a type only from IR version 4 on (before, they had to be graph inputs too):
    // an older version would leave them untyped.
    if (model.ir_version() < 4)
        model.set_ir_version(4);
    const GuardedSchemas schemas(tagNodes(*model.mutable_graph()), declared);
    // Inference writes into the model; a failed pass starts again from the model as it was. Kept as its
    // bytes, which a successful pass (nearly every file) never reads: a deep copy of a 2,000-node graph,
    // and its destruction, took an eighth of a Swin import.
    std::string original;
    if (!model.SerializeToString(&original)) // over protobuf's 2 GiB: never once large weights are dropped
        return Error { "the model is too large for ONNX's shape inference (over 2 GiB without its weights)",
            {} };
    const auto restore = [&] {
        if (!model.ParseFromString(original))
            throw std::runtime_error("the model could not be restored after shape inference");
    };
    ShapeData shapeData;
    std::string lenient;
    if (!tryInfer(model, schemas, 1, shapeData, inferenceError)) {
        restore();
        // Even lenient inference may give up (a declared type contradicts an inferred one): then the
        // shapes the file declares are all there is; a tensor that lacks one is reported with ONNX's message.
        if (!tryInfer(model, schemas, 0, shapeData, lenient)) {
            restore();
            shapeData.clear();
        }
    }
    untagNodes(*model.mutable_graph());
    if (schemas.problem())
        return *schemas.problem();
    return shapeData;
}

} // namespace headroom::onnximport
