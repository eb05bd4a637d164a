// The mapping driver: which nodes matter, the pattern recognisers, then one mapper per remaining node;
// a node no layer fits becomes a GenericOp. The operators and patterns themselves live under onnxops/,
// one file per family (OnnxRegistry.cpp).
#include "headroom/model/AttributeSpec.h"
#include "onnxops/Families.h"

#include <algorithm>
#include <unordered_set>

namespace headroom::onnximport {

namespace {

using nlohmann::json;

/// Operators that follow a batch axis merged with values of each sample ([T, 12*batch, d], read as
/// T x B x 12 x d): element-wise ones, Softmax, MatMul, reductions and Expand over the other axes
/// (F.normalize on Swin V2's q and k), and the views that can split it back (Transpose, Reshape). Any other
/// is refused by name rather than given the merged axis's layout.
bool followsMergedBatch(const std::string& op)
{
    static const std::unordered_set<std::string> ops { "Add", "Sub", "Mul", "Div", "MatMul", "Softmax",
        "Transpose", "Reshape", "Squeeze", "Unsqueeze", "Gather", "Gemm", "Dropout", "Identity", "Relu",
        "Sigmoid", "Tanh", "Gelu", "Erf", "Sqrt", "Exp", "Neg", "Cast", "Clip", "Expand", "ReduceMean",
        "ReduceSum", "ReduceMax", "ReduceL2" };
    return ops.count(op) > 0;
}

/// Refuses a node that reads a merged batch axis (OnnxGraph::batchMergeOf) it cannot follow.
bool readsUnfollowedMerge(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (followsMergedBatch(n.op_type()))
        return false;
    for (const auto& in : n.input()) {
        const BatchMerge m = in.empty() ? BatchMerge {} : ctx.graph().batchMergeOf(in);
        if (m.merged()) {
            ctx.reject(i,
                "its input '" + in + "' " + describe(ctx.graph().type(in)) + " merges the batch axis with "
                    + std::to_string(m.outer * m.inner) + " values of each sample into one axis, which "
                    + n.op_type()
                    + " cannot follow (only element-wise operators, Softmax, MatMul, Gemm, Transpose, Gather "
                      "of one index, reductions and Expand over the other axes, and reshapes can)");
            return true;
        }
    }
    return false;
}

void mapNode(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() < 1 || n.output_size() < 1 || n.input(0).empty()) {
        ctx.reject(i, "it reads no data input");
        return;
    }
    if (readsUnfollowedMerge(ctx, i))
        return;
    const bool standard = n.domain().empty() || n.domain() == "ai.onnx";
    const OperatorMapper map = standard ? findOperator(n.op_type()) : nullptr;
    if (map == nullptr) {
        ctx.refuse(i);
        return;
    }
    map(ctx, i);
}

/// The initializer a value is, possibly behind the Identity nodes torch writes for shared weights.
std::string storedTensor(const OnnxGraph& g, std::string value)
{
    for (int hops = 0; hops < 8; ++hops) {
        if (g.isInitializer(value))
            return value;
        const int p = g.producer(value);
        if (p < 0 || g.graph().node(p).op_type() != "Identity" || g.graph().node(p).input_size() != 1)
            return {};
        value = g.graph().node(p).input(0);
    }
    return {};
}

bool isFloat(std::int32_t onnxType)
{
    return onnxType == onnx::TensorProto::FLOAT || onnxType == onnx::TensorProto::FLOAT16
        || onnxType == onnx::TensorProto::BFLOAT16 || onnxType == onnx::TensorProto::DOUBLE;
}

std::string dtypeChoice(std::int32_t onnxType)
{
    switch (onnxType) {
    case onnx::TensorProto::INT64:
        return "int64";
    case onnx::TensorProto::INT32:
        return "int32";
    case onnx::TensorProto::UINT8:
        return "uint8";
    case onnx::TensorProto::BOOL:
        return "bool";
    default:
        return "float"; // follows the precision, as the network's other activations
    }
}

/// Turns the nodes refused without being fatal into GenericOp layers (one per output that carries
/// data on), in graph order among the mapped layers.
class GenericOps
{
public:
    explicit GenericOps(MappingContext& ctx)
        : m_ctx { ctx }
    {
        for (const auto& r : ctx.refusals()) {
            if (!r.fatal)
                m_reasons.emplace(r.node, r.reason);
        }
    }

    [[nodiscard]] bool isGeneric(int node) const { return m_reasons.count(node) > 0; }

    /// Appends the GenericOp layers of `node`, or records why it cannot be followed.
    void add(int node, std::vector<PendingLayer>& out)
    {
        const auto& g = m_ctx.graph();
        const auto& n = m_ctx.node(node);
        std::vector<std::string> inputs;
        std::uint64_t parameters = 0;
        for (const auto& in : n.input()) {
            if (in.empty() || std::find(inputs.begin(), inputs.end(), in) != inputs.end())
                continue;
            if (g.carriesData(in)) {
                inputs.push_back(in);
                continue;
            }
            parameters += storedParameters(in);
        }
        if (inputs.empty()) {
            m_ctx.reject(node, "it reads no data input");
            return;
        }
        std::string domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
        if (const std::string hidden = "headroom.unsupported."; domain.rfind(hidden, 0) == 0)
            domain.erase(0, hidden.size()); // preflight hid it from shape inference
        const std::string op
            = cleanLine((domain.empty() ? "" : domain + "::") + n.op_type(), kMaxAttributeTextLength);
        bool first = true;
        for (int k = 0; k < n.output_size(); ++k) {
            const std::string& value = n.output(k);
            if (value.empty() || !g.carriesData(value)
                || (k > 0 && g.consumers(value).empty() && !g.isGraphOutput(value)))
                continue;
            const auto shape = batchFirstShape(node, value);
            if (!shape)
                return;
            const auto* t = g.type(value);
            json a { { "op", op }, { "output_shape", *shape },
                { "output_dtype", dtypeChoice(t->elementType) } };
            if (first && parameters > 0)
                a["parameters"] = parameters;
            if (!first)
                a["keeps_inputs"] = false; // the first output's layer already keeps them
            if (const auto& reason = m_reasons.at(node); !reason.empty())
                a["reason"] = cleanLine(reason, kMaxAttributeTextLength);
            out.push_back(PendingLayer { "GenericOp", a, inputs, value, node });
            first = false;
        }
    }

private:
    /// The trainable elements of a stored float tensor that only generic nodes read, counted once.
    std::uint64_t storedParameters(const std::string& value)
    {
        const auto& g = m_ctx.graph();
        const std::string stored = storedTensor(g, value);
        if (stored.empty() || !m_counted.insert(stored).second)
            return 0;
        const auto* t = g.type(stored);
        const auto dims = t ? t->knownDims() : std::nullopt;
        if (!dims || !isFloat(t->elementType) || !readOnlyByGenericNodes(stored))
            return 0;
        std::uint64_t elements = 1;
        for (const auto d : *dims)
            elements *= static_cast<std::uint64_t>(std::clamp<std::int64_t>(d, 0, kMaxDimension));
        return elements;
    }

    bool readOnlyByGenericNodes(const std::string& value) const
    {
        for (const int c : m_ctx.graph().consumers(value)) {
            const auto& n = m_ctx.node(c);
            if (n.op_type() == "Identity" && n.output_size() == 1) {
                if (!readOnlyByGenericNodes(n.output(0)))
                    return false;
            } else if (m_ctx.needed(c) && !isGeneric(c)) {
                return false; // a mapped layer holds it as its own weight
            }
        }
        return true;
    }

    /// The per-sample shape of a generic node's output, which must keep the network's batch axis first.
    std::optional<std::vector<std::int64_t>> batchFirstShape(int node, const std::string& value)
    {
        const auto& g = m_ctx.graph();
        const auto* t = g.type(value);
        if (t != nullptr && t->hasShape && g.batchAxisOf(value) != 0) {
            const auto why = m_reasons.find(node);
            m_ctx.reject(node,
                "its output '" + value + "' " + describe(*t) + " has the batch axis at position "
                    + std::to_string(g.batchAxisOf(value))
                    + ", where no generic operation can stand in for it"
                    + (why == m_reasons.end() || why->second.empty() ? std::string() : "; " + why->second));
            return std::nullopt;
        }
        if (t == nullptr || !t->hasShape || t->elementType == 0 || !t->perSample()) {
            m_ctx.missing(node, value);
            return std::nullopt;
        }
        const Dim& batch = g.type(g.inputName())->dims.front();
        const Dim& first = t->dims.front();
        const bool keepsBatch = (!batch.symbol.empty() && first.symbol == batch.symbol)
            || (batch.known() && first.known() && *batch.value == *first.value);
        if (!keepsBatch || t->rank() < 2) {
            m_ctx.reject(node,
                "its output '" + value + "' " + describe(*t)
                    + (t->rank() < 2 ? " has no axis per sample" : " does not keep the batch axis first")
                    + ", so not even a generic operation can stand in for it");
            return std::nullopt;
        }
        return t->perSample();
    }

    MappingContext& m_ctx;
    std::unordered_map<int, std::string> m_reasons;
    std::unordered_set<std::string> m_counted;
};

} // namespace

OperatorMapping mapOperators(const OnnxGraph& graph, int opset)
{
    MappingContext ctx(graph, opset);
    ctx.markNeeded();
    ops::checkExportMode(ctx);
    for (const auto& p : patterns()) {
        for (int i = 0; i < ctx.nodeCount(); ++i) {
            if (ctx.needed(i) && !ctx.absorbed(i) && ctx.fusedAt(i) == nullptr && ctx.isOp(i, p.anchorOp))
                p.recognise(ctx, i);
        }
    }
    // Each node's layers, so that generic ones can take their place in graph order afterwards.
    std::vector<std::pair<int, std::vector<PendingLayer>>> perNode;
    int restoredBatchNorms = 0, restoredBiases = 0, inferenceBatchNorms = 0;
    for (int i = 0; i < ctx.nodeCount(); ++i) {
        if (!ctx.needed(i) || ctx.absorbed(i))
            continue;
        const std::size_t before = ctx.layers().size();
        if (const auto* fused = ctx.fusedAt(i))
            ctx.push(*fused);
        else
            mapNode(ctx, i);
        restoredBiases += ops::restoreDroppedBias(ctx, i) ? 1 : 0;
        const auto batchNorm = ops::restoreDroppedBatchNorm(ctx, i);
        restoredBatchNorms += batchNorm != ops::RestoredBatchNorm::None ? 1 : 0;
        inferenceBatchNorms += batchNorm == ops::RestoredBatchNorm::Inference ? 1 : 0;
        perNode.emplace_back(i,
            std::vector<PendingLayer>(
                std::make_move_iterator(ctx.layers().begin() + static_cast<std::ptrdiff_t>(before)),
                std::make_move_iterator(ctx.layers().end())));
        ctx.layers().resize(before);
    }
    if (restoredBatchNorms > 0)
        ctx.note("The dynamo exporter left " + std::to_string(restoredBatchNorms) + " BatchNorm layer"
            + (restoredBatchNorms == 1 ? "" : "s")
            + " out of the graph; Headroom put them back from the metadata the exporter keeps on the node "
              "before each (pkg.torch.onnx.fx_node).");
    if (inferenceBatchNorms > 0)
        ctx.warn("the ONNX file was exported in inference (eval) mode: the dynamo exporter's metadata shows "
            + std::to_string(inferenceBatchNorms) + " BatchNorm layer" + (inferenceBatchNorms == 1 ? "" : "s")
            + " in inference mode (put back as training runs them), and any Dropout was removed. Call "
              "model.train() before torch.onnx.export(model, (x,), \"model.onnx\", dynamo=True) for a full "
              "plan");
    if (restoredBiases > 0)
        ctx.note(std::to_string(restoredBiases) + " Linear or convolution bias"
            + (restoredBiases == 1 ? "" : "es")
            + " of all zeros, which the dynamo exporter leaves out of the graph, counted from its metadata "
              "(pkg.torch.onnx.fx_node).");
    GenericOps generic(ctx);
    std::vector<PendingLayer> layers;
    std::size_t genericLayers = 0;
    for (auto& [node, mapped] : perNode) {
        if (!generic.isGeneric(node)) {
            std::move(mapped.begin(), mapped.end(), std::back_inserter(layers));
            continue;
        }
        const std::size_t before = layers.size();
        generic.add(node, layers);
        genericLayers += layers.size() - before;
    }
    ctx.layers() = std::move(layers);
    auto out = ctx.take();
    out.genericLayers = genericLayers;
    return out;
}

} // namespace headroom::onnximport
