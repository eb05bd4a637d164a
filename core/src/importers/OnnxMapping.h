#pragma once

// What an ONNX operator mapper or pattern recogniser sees: the graph, the opset, attribute readers and
// the shared checks (weights, ranks, padding, windows), and where it records layers, refusals and notes.
// Each operator family lives in its own file under onnxops/ and is listed once in OnnxRegistry.cpp.

#include "OnnxLimits.h"
#include "OnnxOperators.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace headroom::onnximport {

/// The shortest decimal that reads back as `f` (ONNX stores float32 attributes): 1e-05, not 9.99999974e-06.
[[nodiscard]] double decimal(float f);
/// A number as a message shows it: JSON's shortest form ("0.5", "1e-05"), and NaN or inf where JSON has
/// no number (nlohmann writes those as "null").
[[nodiscard]] std::string numberText(double value);
/// `value` within 0.1 % of `expected`.
[[nodiscard]] bool near(double value, double expected);

[[nodiscard]] const onnx::AttributeProto* findAttr(const onnx::NodeProto& node, const std::string& name);
[[nodiscard]] std::optional<std::int64_t> attrInt(const onnx::NodeProto& node, const std::string& name);
[[nodiscard]] std::optional<double> attrFloat(const onnx::NodeProto& node, const std::string& name);
[[nodiscard]] std::optional<std::vector<std::int64_t>> attrInts(
    const onnx::NodeProto& node, const std::string& name);
[[nodiscard]] std::string attrString(
    const onnx::NodeProto& node, const std::string& name, const std::string& fallback);

/// A tuple attribute as the model file writes it: one number when all are equal.
[[nodiscard]] nlohmann::json tupleJson(const std::vector<std::int64_t>& v);
[[nodiscard]] bool allEqual(const std::vector<std::int64_t>& v, std::int64_t x);

/// Padding as PyTorch can express it: per-axis symmetric amounts, or "same" (stride 1).
using Padding = std::variant<std::vector<std::int64_t>, std::string>;

class MappingContext final
{
public:
    MappingContext(const OnnxGraph& graph, int opset);

    [[nodiscard]] const OnnxGraph& graph() const noexcept { return m_g; }
    [[nodiscard]] int opset() const noexcept { return m_opset; }
    [[nodiscard]] const onnx::NodeProto& node(int i) const { return m_g.graph().node(i); }
    [[nodiscard]] int nodeCount() const { return m_g.graph().node_size(); }

    // ---- which nodes are mapped ---------------------------------------------------------------

    /// Nodes that carry data from the input to an output (computed once, before any mapping).
    [[nodiscard]] bool needed(int i) const { return m_needed[static_cast<std::size_t>(i)]; }
    /// Part of a recognised pattern, or otherwise left out of the network.
    [[nodiscard]] bool absorbed(int i) const { return m_absorbed[static_cast<std::size_t>(i)]; }
    /// The layer a pattern made, kept until the driver reaches its last node.
    [[nodiscard]] const PendingLayer* fusedAt(int i) const;

    // ---- pattern support ----------------------------------------------------------------------

    /// Node `i` exists and is the default-domain operator `op`.
    [[nodiscard]] bool isOp(int i, const char* op) const;
    /// The single node reading `value`, if exactly one does and `value` is not a graph output.
    [[nodiscard]] int soleConsumer(const std::string& value) const;
    /// `value` is a constant holding one number near `expected`.
    [[nodiscard]] bool isConstant(const std::string& value, double expected) const;
    /// For a binary node, the operand that is not `known`; empty when `known` is not an operand.
    [[nodiscard]] static std::string otherOperand(const onnx::NodeProto& n, const std::string& known);
    /// Replaces the nodes `parts` by `layer` (which names its last node in layer.node); nothing happens
    /// when one of them already belongs to another pattern. Returns whether the pattern was taken.
    bool fuse(const std::vector<int>& parts, PendingLayer layer);
    /// Leaves node `i` out of the network; `value` then stands for `standsFor`.
    void absorb(int i, const std::string& value, const std::string& standsFor);

    // ---- recording results ---------------------------------------------------------------------

    /// Node `i` has no exact layer (an empty reason: no Headroom layer has its type); it becomes a
    /// GenericOp with a warning.
    void refuse(int i, std::string reason = {});
    /// Node `i` cannot be followed: the file contradicts itself, or the node changes the batch axis.
    void reject(int i, std::string reason);
    /// Records the first tensor whose shape a mapping needed but shape inference did not give.
    void missing(int i, const std::string& value);
    /// A layer of `type` reading node i's first input and producing its first output.
    void emit(int i, std::string type, nlohmann::json attributes = nlohmann::json::object());
    void push(PendingLayer layer) { m_out.layers.push_back(std::move(layer)); }
    /// A sentence for the network's description; `key` keeps a note from being added twice.
    void note(std::string sentence, const std::string& key = {});

    // ---- shared checks -------------------------------------------------------------------------

    /// A weight's dims (a tensor that does not depend on the input), checked to be sane.
    std::optional<std::vector<std::int64_t>> weightDims(int i, const std::string& value, const char* what);
    /// weightDims, when the stored parameter `value` must be `expected` (a bias with one value per output
    /// channel, a BatchNorm scale with one per channel): otherwise the file contradicts itself, and the
    /// node is rejected naming both.
    bool parameterShaped(int i, const std::string& value, const char* what,
        const std::vector<std::int64_t>& expected, const char* meaning);
    /// The rank (with the batch axis) of a data input, or nullopt after recording a missing shape.
    std::optional<std::size_t> rankOf(int i, const std::string& value);
    /// The per-sample dims of a value, or nullopt after recording a missing shape.
    std::optional<std::vector<std::int64_t>> perSampleOf(int i, const std::string& value);
    /// Reads pads/auto_pad for `spatial` axes; PyTorch needs the same amount on both sides of an axis.
    std::optional<Padding> padding(int i, std::size_t spatial, const std::vector<std::int64_t>& kernel,
        const std::vector<std::int64_t>& stride, const std::vector<std::int64_t>& dilation, bool sameAllowed);
    /// kernel_shape/strides/dilations of a sliding-window operator, each `spatial` positive numbers.
    std::optional<std::vector<std::int64_t>> window(
        int i, const char* name, std::size_t spatial, std::optional<std::vector<std::int64_t>> fallback);
    /// A Linear from a weight matrix's sizes; `quiet` tries without refusing (for a pattern).
    std::optional<PendingLayer> linearFrom(
        int i, const std::string& input, std::int64_t in, std::int64_t out, bool bias, bool quiet = false);

    /// Marks the needed nodes: walks back from the graph outputs through the data inputs.
    void markNeeded();
    [[nodiscard]] OperatorMapping take() { return std::move(m_out); }
    /// The refusals recorded so far (the driver turns them into GenericOp layers).
    [[nodiscard]] const std::vector<Refusal>& refusals() const noexcept { return m_out.refusals; }
    [[nodiscard]] std::vector<PendingLayer>& layers() noexcept { return m_out.layers; }
    void warn(std::string sentence) { m_out.warnings.push_back(std::move(sentence)); }

private:
    const OnnxGraph& m_g;
    int m_opset;
    std::vector<bool> m_needed;
    std::vector<bool> m_absorbed;
    std::unordered_map<int, PendingLayer> m_fused;
    std::set<std::string> m_noteKeys;
    OperatorMapping m_out;
};

/// Maps one node (of the operator type it was registered for).
using OperatorMapper = void (*)(MappingContext&, int node);

/// Tries to recognise a pattern of several nodes that ends or starts at `node` (its anchor operator)
/// and, when it matches exactly, fuses it into one layer.
using PatternRecogniser = void (*)(MappingContext&, int node);

struct OperatorEntry
{
    const char* opType;
    OperatorMapper map;
};

struct PatternEntry
{
    const char* anchorOp;
    PatternRecogniser recognise;
};

/// Every operator the importer maps and every pattern it recognises (OnnxRegistry.cpp).
[[nodiscard]] OperatorMapper findOperator(const std::string& opType);
[[nodiscard]] const std::vector<PatternEntry>& patterns();

} // namespace headroom::onnximport
