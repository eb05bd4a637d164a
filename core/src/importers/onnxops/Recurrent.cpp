// LSTM / GRU -> LSTM / GRU (one layer per node, sequence-first), as torch.onnx writes nn.LSTM and nn.GRU:
// one ONNX node per stacked layer, its input X [T, batch, features] (layout 0), weights W, R and B
// reordered from PyTorch's by Slice / Concat of the stored tensors, the initial states zeros of a
// shape computed from the input's, and the output Y [T, directions, batch, H] brought back to
// PyTorch's [T, batch, directions x H] by a Squeeze of axis 1 (one direction) or a Transpose to
// [T, batch, directions, H] and a Reshape (bidirectional, and the dynamo exporter's form for one
// direction too). The layer stands for the node and those, so that its output is the module's
// [T, B, D x H] with the batch axis second (TensorInfo::batchAxis); a batch_first module's transposes
// around it are Permute layers. Stacked nodes of one module (initial states sliced from one zeros tensor),
// directly or with a Dropout between them (the dynamo exporter's form of num_layers > 1 with dropout > 0
// in training mode), are one layer with num_layers (and dropout), the one cuDNN call PyTorch makes
// (nextStackedLayer).
// Refused, with the reason: sequence_lens (packed sequences), initial states computed from the data,
// peepholes, clip, input_forget, activations other than PyTorch's, a GRU with linear_before_reset 0
// (not nn.GRU's formula), layout 1, the final cell state Y_c used, the final hidden state Y_h used
// together with Y or by a bidirectional layer (alone, one direction: the last step of Y), and an output Y
// used otherwise.
#include "Families.h"

#include <algorithm>
#include <optional>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

/// Squeeze's or Unsqueeze's axes: an attribute (before opset 13) or a constant input.
std::optional<std::vector<std::int64_t>> squeezeAxes(const MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (auto a = attrInts(n, "axes"))
        return a;
    if (n.input_size() < 2 || n.input(1).empty())
        return std::nullopt;
    const auto v = ctx.graph().constantNumbers(n.input(1), 8);
    if (!v)
        return std::nullopt;
    std::vector<std::int64_t> out;
    for (const double d : *v)
        out.push_back(static_cast<std::int64_t>(d));
    return out;
}

/// Whether a node that is mapped reads `value`, or it is a graph output.
bool used(const MappingContext& ctx, const std::string& value)
{
    if (value.empty())
        return false;
    const auto& users = ctx.graph().consumers(value);
    return ctx.graph().isGraphOutput(value)
        || std::any_of(users.begin(), users.end(), [&](int c) { return ctx.needed(c); });
}

/// What makes the node something other than PyTorch's module, or empty.
std::string unsupportedSetting(const MappingContext& ctx, int i, bool lstm)
{
    const auto& n = ctx.node(i);
    const auto& g = ctx.graph();
    const auto input = [&](int k) { return n.input_size() > k ? n.input(k) : std::string(); };
    if (!input(4).empty())
        return "its sequence_lens input (packed sequences of different lengths) is not modelled";
    for (const int k : { 5, 6 })
        if (!input(k).empty() && g.carriesData(input(k)))
            return "its initial state '" + input(k) + "' is computed from the data; Headroom's "
                + (lstm ? "LSTM" : "GRU") + " starts from zeros";
    if (lstm && !input(7).empty())
        return "it has peephole weights (P), which nn.LSTM has not";
    if (findAttr(n, "clip") != nullptr)
        return "it clips the cell input (clip), which nn." + std::string(lstm ? "LSTM" : "GRU") + " does not";
    if (attrInt(n, "input_forget").value_or(0) != 0)
        return "it couples the input and forget gates (input_forget), which nn.LSTM does not";
    if (attrInt(n, "layout").value_or(0) != 0)
        return "its layout 1 (batch first inside the node) is not what torch.onnx writes";
    if (!lstm && attrInt(n, "linear_before_reset").value_or(0) != 1)
        return "linear_before_reset 0 is not nn.GRU's formula (PyTorch applies the reset gate after the "
               "linear map)";
    if (const auto* a = findAttr(n, "activations")) {
        const std::vector<std::string> expected = lstm
            ? std::vector<std::string> { "Sigmoid", "Tanh", "Tanh" }
            : std::vector<std::string> { "Sigmoid", "Tanh" };
        for (int k = 0; k < a->strings_size(); ++k)
            if (a->strings(k) != expected[static_cast<std::size_t>(k) % expected.size()])
                return "its activations are not nn." + std::string(lstm ? "LSTM" : "GRU")
                    + "'s sigmoid and tanh";
    }
    if (n.output_size() > 2 && used(ctx, n.output(2)))
        return "its final cell state '" + n.output(2)
            + "' is used; Headroom's layer gives the output sequence, whose last step is the final hidden "
              "state but not the cell state";
    return {};
}

/// The one node reading `value`'s data, besides Shape nodes that read only its size (the dynamo
/// exporter computes the Reshape's target from the Transpose it reshapes); -1 if not exactly one.
int soleDataConsumer(const MappingContext& ctx, const std::string& value)
{
    const auto& g = ctx.graph();
    if (g.isGraphOutput(value))
        return -1;
    int found = -1;
    for (const int c : g.consumers(value)) {
        if (ctx.isOp(c, "Shape"))
            continue;
        if (found >= 0)
            return -1;
        found = c;
    }
    return found;
}

/// The nodes after Y that bring it to [T, batch, D x H] (Squeeze; or Transpose and Reshape) and the
/// value that is then the module's output; empty when Y is used otherwise.
std::pair<std::vector<int>, std::string> moduleOutput(
    const MappingContext& ctx, int i, std::int64_t directions)
{
    const auto& g = ctx.graph();
    const std::string& y = ctx.node(i).output(0);
    const int first = ctx.soleConsumer(y);
    if (first < 0)
        return {};
    if (directions == 1 && ctx.isOp(first, "Squeeze")
        && squeezeAxes(ctx, first) == std::vector<std::int64_t> { 1 })
        return { { first }, ctx.node(first).output(0) };
    // Both exporters write the bidirectional form; the dynamo exporter writes it for one direction too
    // (Transpose to [T, batch, 1, H], Reshape to [T, batch, H] with a target computed from the shape).
    if (!ctx.isOp(first, "Transpose")
        || attrInts(ctx.node(first), "perm") != std::vector<std::int64_t> { 0, 2, 1, 3 })
        return {};
    const int reshape = soleDataConsumer(ctx, ctx.node(first).output(0));
    if (reshape < 0 || !ctx.isOp(reshape, "Reshape"))
        return {};
    const std::string& out = ctx.node(reshape).output(0);
    const auto* t = g.type(out);
    if (t == nullptr || t->rank() != 3 || g.batchAxisOf(out) != 1)
        return {};
    return { { first, reshape }, out };
}

/// The hidden size that W, R and B agree on (W [directions, gates·hidden, features], R [directions,
/// gates·hidden, hidden], B [directions, 2·gates·hidden]); nothing, with the node rejected, otherwise.
std::optional<std::int64_t> checkedHiddenSize(
    MappingContext& ctx, int i, std::int64_t directions, std::int64_t gates, const std::string& direction)
{
    const auto& n = ctx.node(i);
    const auto w = ctx.weightDims(i, n.input(1), "input weight W");
    const auto r = ctx.weightDims(i, n.input(2), "recurrent weight R");
    if (!w || !r)
        return std::nullopt;
    const auto hidden = attrInt(n, "hidden_size");
    if (!hidden || *hidden < 1 || *hidden > kMaxDimension || w->size() != 3 || r->size() != 3
        || (*w)[0] != directions || (*w)[1] != gates * *hidden
        || *r != std::vector<std::int64_t> { directions, gates * *hidden, *hidden }) {
        ctx.reject(i,
            "its weights W " + joinDims(*w) + " and R " + joinDims(*r) + " do not fit hidden_size "
                + (hidden ? std::to_string(*hidden) : std::string("(missing)")) + " and direction "
                + direction);
        return std::nullopt;
    }
    if (n.input_size() > 3 && !n.input(3).empty()) {
        const auto bias = ctx.weightDims(i, n.input(3), "bias B");
        if (!bias)
            return std::nullopt;
        if (*bias != std::vector<std::int64_t> { directions, 2 * gates * *hidden }) {
            ctx.reject(
                i, "its bias B " + joinDims(*bias) + " does not fit hidden_size " + std::to_string(*hidden));
            return std::nullopt;
        }
    }
    return hidden;
}

/// The final hidden state Y_h [1, batch, H] used (`_, (h, _) = lstm(x)`, then h[-1]): for one layer
/// running forwards it is the last step of the output, Y[T - 1], so the layer is followed by a Narrow
/// of that step ([1, batch, H], a view). Refused when the output Y is used too (the layer would have to
/// stand for both) or the layer is bidirectional (Y_h then holds the backward direction's first step).
/// PyTorch keeps h_n as a tensor of its own (cuDNN's hy, not saved by the RNN itself,
/// derivatives.yaml _cudnn_rnn); a layer that saves h_n[-1] keeps that [1, batch, H] storage, which the
/// view does not add (docs/onnx-import.md).
void finalHiddenState(MappingContext& ctx, int i, PendingLayer layer, std::int64_t directions)
{
    const auto& n = ctx.node(i);
    if (directions != 1) {
        ctx.refuse(i,
            "its final hidden state '" + n.output(1)
                + "' is used and it is bidirectional: the backward direction's final state is the first "
                  "step of its output, which Headroom's layer does not give apart");
        return;
    }
    if (used(ctx, n.output(0))) {
        ctx.refuse(i,
            "both its output sequence Y and its final hidden state '" + n.output(1)
                + "' are used; Headroom's layer gives the output sequence only, and the final state as its "
                  "last step when the sequence itself is not used");
        return;
    }
    const std::string sequence = layer.outputValue;
    ctx.push(std::move(layer));
    ctx.push(PendingLayer {
        "Narrow", json { { "dim", 0 }, { "start", -1 }, { "length", 1 } }, { sequence }, n.output(1), i });
}

/// The next layer of the same nn.LSTM / nn.GRU: both exporters write a module with num_layers > 1 as one
/// node per layer, and the dynamo exporter puts a Dropout between them for dropout > 0 (training mode),
/// where PyTorch runs one cuDNN call whose reserve holds the dropout mask as bits (docs/memory-model.md).
/// The layers of one module slice their initial states from one zeros tensor; separate modules make
/// their own, and stay layers of their own. One call or several keep the same bytes per sample, but
/// each call's reserve has 256 batch-independent bytes more, and only a call with dropout saves cuDNN's
/// dropout state.
struct StackedLayer
{
    std::vector<int>
        nodes; ///< the Dropout if any, the next node and the nodes bringing its Y to [T, B, D x H]
    std::string output;
    double dropout = 0.0;
};

/// What the node's initial hidden state is sliced from: one module's layers take theirs from one zeros
/// tensor [L x D, B, H] (both exporters), separate modules each make their own. Empty otherwise.
std::string initialStateSource(const MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const int slice = n.input_size() > 5 && !n.input(5).empty() ? ctx.graph().producer(n.input(5)) : -1;
    return ctx.isOp(slice, "Slice") ? ctx.node(slice).input(0) : std::string();
}

std::optional<StackedLayer> nextStackedLayer(const MappingContext& ctx, int first, const std::string& output,
    bool lstm, const std::string& direction, std::int64_t hidden, bool hasBias)
{
    const int consumer = soleDataConsumer(ctx, output);
    if (consumer < 0)
        return std::nullopt;
    std::vector<int> nodes;
    double dropout = 0.0;
    std::string nextInput = output;
    if (ctx.isOp(consumer, "Dropout")) {
        if (ctx.node(consumer).output_size() > 1 && used(ctx, ctx.node(consumer).output(1)))
            return std::nullopt;
        const auto ratio = dropoutRatio(ctx, consumer);
        if (!ratio || !(*ratio > 0.0 && *ratio < 1.0))
            return std::nullopt;
        nodes.push_back(consumer);
        dropout = *ratio;
        nextInput = ctx.node(consumer).output(0);
    }
    const int next = nodes.empty() ? consumer : soleDataConsumer(ctx, nextInput);
    if (next < 0 || !ctx.isOp(next, lstm ? "LSTM" : "GRU") || ctx.node(next).input(0) != nextInput)
        return std::nullopt;
    const auto& n = ctx.node(next);
    if (const auto source = initialStateSource(ctx, first);
        source.empty() || initialStateSource(ctx, next) != source)
        return std::nullopt;
    const std::int64_t directions = direction == "bidirectional" ? 2 : 1;
    const std::int64_t gates = lstm ? 4 : 3;
    const auto dims = [&](int k) {
        const auto* t = n.input_size() > k ? ctx.graph().type(n.input(k)) : nullptr;
        return t != nullptr ? t->knownDims() : std::nullopt;
    };
    // An inner layer reads the D x H features of the one before.
    if (!unsupportedSetting(ctx, next, lstm).empty() || attrString(n, "direction", "forward") != direction
        || attrInt(n, "hidden_size") != hidden || (n.input_size() > 3 && !n.input(3).empty()) != hasBias
        || (n.output_size() > 1 && used(ctx, n.output(1)))
        || dims(1) != std::vector<std::int64_t> { directions, gates * hidden, directions * hidden }
        || dims(2) != std::vector<std::int64_t> { directions, gates * hidden, hidden })
        return std::nullopt;
    auto [after, out] = moduleOutput(ctx, next, directions);
    if (out.empty())
        return std::nullopt;
    nodes.push_back(next);
    nodes.insert(nodes.end(), after.begin(), after.end());
    return StackedLayer { std::move(nodes), out, dropout };
}

void recurrent(MappingContext& ctx, int i, bool lstm)
{
    const auto& n = ctx.node(i);
    const auto& g = ctx.graph();
    const char* op = lstm ? "LSTM" : "GRU";
    if (n.input_size() < 3) {
        ctx.reject(i, "it lacks its weights W and R");
        return;
    }
    if (const std::string why = unsupportedSetting(ctx, i, lstm); !why.empty()) {
        ctx.refuse(i, why);
        return;
    }
    const std::string direction = attrString(n, "direction", "forward");
    const std::int64_t directions = direction == "bidirectional" ? 2 : 1;
    if (direction == "reverse") {
        ctx.refuse(i, "it runs only backwards (direction reverse), which no nn." + std::string(op) + " does");
        return;
    }
    const auto hidden = checkedHiddenSize(ctx, i, directions, lstm ? 4 : 3, direction);
    if (!hidden)
        return;
    const bool hasBias = n.input_size() > 3 && !n.input(3).empty();
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    if (*rank != 3 || g.batchAxisOf(n.input(0)) != 1) {
        const auto* t = g.type(n.input(0));
        ctx.reject(i,
            "its input X " + describe(t)
                + " is not [sequence, batch, features] with the network's batch axis second");
        return;
    }
    json a { { "hidden_size", *hidden } };
    if (!hasBias)
        a["bias"] = false;
    if (directions == 2)
        a["bidirectional"] = true;
    if (n.output_size() > 1 && used(ctx, n.output(1))) {
        // Y itself is [T, directions, batch, H]: the layer's [T, batch, H] is a value of its own.
        finalHiddenState(
            ctx, i, PendingLayer { op, a, { n.input(0) }, n.output(0) + "/sequence", i }, directions);
        return;
    }
    auto [after, output] = moduleOutput(ctx, i, directions);
    if (output.empty()) {
        ctx.refuse(i,
            "its output Y [sequence, directions, batch, hidden] is used other than as torch.onnx writes "
            "nn."
                + std::string(op) + "'s (a Squeeze of the directions axis, or a Transpose and Reshape)");
        return;
    }
    after.insert(after.begin(), i);
    std::int64_t layers = 1;
    double dropout = 0.0;
    while (const auto next = nextStackedLayer(ctx, i, output, lstm, direction, *hidden, hasBias)) {
        if (layers > 1 && next->dropout != dropout)
            break;
        after.insert(after.end(), next->nodes.begin(), next->nodes.end());
        output = next->output;
        dropout = next->dropout;
        ++layers;
    }
    if (layers > 1)
        a["num_layers"] = layers;
    if (dropout > 0.0)
        a["dropout"] = dropout;
    ctx.fuse(after, PendingLayer { op, a, { n.input(0) }, output, after.back() });
}

void lstm(MappingContext& ctx, int i)
{
    recurrent(ctx, i, true);
}
void gru(MappingContext& ctx, int i)
{
    recurrent(ctx, i, false);
}

} // namespace

void addRecurrent(Operators& table)
{
    table.push_back({ "LSTM", &lstm });
    table.push_back({ "GRU", &gru });
}

} // namespace headroom::onnximport::ops
