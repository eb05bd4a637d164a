#pragma once

// A read-only view of an ONNX graph after shape inference, for the importer: value types, constant
// values, producers and consumers, and which nodes carry data from the network input to its outputs.

#include "headroom/support/Error.h"

#include <cstdint>
#include <onnx/onnx_pb.h>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace headroom::onnximport {

/// One axis of a tensor type: a size, a symbol ("batch"), or unknown.
struct Dim
{
    std::optional<std::int64_t> value;
    std::string symbol;

    [[nodiscard]] bool known() const noexcept { return value.has_value(); }
};

/// How many batches' worth of elements an axis holds: 1 for the batch symbol itself ("batch"), m for an axis
/// that merges the batch axis with m values of each sample ("12*batch", as the dynamo exporter names the
/// [B*heads, T, d] of attention); nullopt for a size or another symbol. `batch` is the input's batch symbol.
[[nodiscard]] std::optional<std::int64_t> batchMultiple(const Dim& d, const std::string& batch);
/// The axis of `multiple` x B, named the way batchMultiple reads it back.
[[nodiscard]] Dim batchDim(std::int64_t multiple, const std::string& batch);

/// A small integer tensor folded from constants (torch's computed Pad amounts).
struct SmallIntTensor
{
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> data;
};

/// How an axis that merges the batch axis with values of each sample is laid out in memory: `outer` values
/// of each sample outside the batch index, `inner` inside it. torch's [T, B * heads, d] from [T, B, E] has
/// inner = heads; its [T * B, E] from [T, B, E] has outer = T. Headroom reads such an axis as up to three:
/// outer, the batch axis, inner.
struct BatchMerge
{
    std::int64_t outer = 1;
    std::int64_t inner = 1;

    [[nodiscard]] bool merged() const noexcept { return outer > 1 || inner > 1; }
    /// How many axes the merged axis stands for in Headroom's tensor.
    [[nodiscard]] std::size_t axes() const noexcept { return 1 + (outer > 1 ? 1 : 0) + (inner > 1 ? 1 : 0); }
};

/// What shape inference knows about a tensor: its element type and, if known, its axes.
struct ValueType
{
    std::int32_t elementType = 0; ///< onnx::TensorProto_DataType, 0 = unknown
    bool hasShape = false;
    std::vector<Dim> dims;

    [[nodiscard]] std::size_t rank() const noexcept { return dims.size(); }
    /// All axes when every one has a known size.
    [[nodiscard]] std::optional<std::vector<std::int64_t>> knownDims() const;
    /// The axes after the first (the batch axis) when each has a known size.
    [[nodiscard]] std::optional<std::vector<std::int64_t>> perSample() const;
};

/// Text from the file as valid UTF-8 without control characters: ONNX strings are unchecked bytes, and
/// the description and messages end up in JSON and on screen. Anything else becomes '?'.
[[nodiscard]] std::string cleanText(std::string_view s);
/// cleanText cut to at most `maxBytes` (ending in "..." when cut), for a layer attribute.
[[nodiscard]] std::string cleanLine(std::string_view s, std::size_t maxBytes);

/// The most characters of a name or value a message quotes (docs/cli.md: names quoted in a message are cut
/// to 64 characters).
constexpr std::size_t kQuotedCharacters = 64;
/// `s` as a message shows it: as is up to `maxCharacters`, else cut there with an ellipsis and the full
/// length ("nnnn… (200,000 characters)"), as Format.h's quoteForMessage does, without its quotes.
[[nodiscard]] std::string shortText(std::string_view s, std::size_t maxCharacters = kQuotedCharacters);
/// An importer's message (after `prefix`, the file name and ": ", kept whole) with every name in it cut:
/// each quoted name ('...') and each run of more than kQuotedCharacters characters without a space (an
/// unquoted node name or operator type) is cut by shortText. Messages are built from names that may
/// be 200 KB long; this is the one place that bounds them.
[[nodiscard]] std::string shortNames(std::string_view message, std::string_view prefix);

/// "[batch, 3, 224, 224]"; "unknown" without a shape.
[[nodiscard]] std::string describe(const ValueType& type);
/// describe(*type), and "unknown" for a value shape inference gave no type at all (nullptr).
[[nodiscard]] std::string describe(const ValueType* type);
[[nodiscard]] std::string joinDims(const std::vector<std::int64_t>& dims);
/// The name of an ONNX element type ("FLOAT", "INT64", ...).
[[nodiscard]] std::string elementTypeName(std::int32_t type);

/// The numbers of a tensor with data (raw or typed fields), at most `maxElements`; nullopt without data.
[[nodiscard]] std::optional<std::vector<double>> tensorNumbers(
    const onnx::TensorProto& t, std::size_t maxElements);

/// A constant's number as an int64: truncated, and saturated at the int64 limits (ONNX writes INT64_MAX for
/// "to the end", which reads back as a double just past the range); nullopt for NaN. Never a cast of a
/// double that does not fit, which is undefined behaviour.
[[nodiscard]] std::optional<std::int64_t> saturatedInteger(double x);

/// A node's INT attribute `name`, if it has one of that type.
[[nodiscard]] std::optional<std::int64_t> intAttribute(const onnx::NodeProto& node, const char* name);

/// How a node is shown in messages: its name, or "the unnamed Relu producing 'x'".
[[nodiscard]] std::string nodeLabel(const onnx::NodeProto& node);

class OnnxGraph final
{
public:
    /// Indexes `graph` (already shape-inferred). `shapeData` holds the values data propagation computed
    /// for shape tensors (the second argument of Reshape). Fails when a node uses a tensor that no
    /// earlier node, input or initializer defines, or when the graph has not exactly one input.
    static Result<OnnxGraph> index(
        const onnx::GraphProto& graph, std::unordered_map<std::string, onnx::TensorShapeProto> shapeData);

    [[nodiscard]] const onnx::GraphProto& graph() const noexcept { return *m_graph; }
    [[nodiscard]] const std::string& inputName() const noexcept { return m_input; }

    [[nodiscard]] const ValueType* type(const std::string& value) const;
    [[nodiscard]] bool isInitializer(const std::string& value) const
    {
        return m_initializers.count(value) > 0;
    }
    /// Values that depend on the network input (everything else is a constant or a weight).
    [[nodiscard]] bool isDynamic(const std::string& value) const { return m_dynamic.count(value) > 0; }
    /// Dynamic values computed from the input's values, not only from its shape (Shape and Size
    /// read sizes only, so what is computed from them is a shape computation).
    [[nodiscard]] bool carriesData(const std::string& value) const { return m_data.count(value) > 0; }
    /// Where the batch axis is among `value`'s axes: the one axis that carries the network input's batch
    /// symbol (a sequence-first [T, batch, E] has it at 1); 0 when none or several do (a fixed batch).
    [[nodiscard]] std::size_t batchAxisOf(const std::string& value) const;
    /// The network input's batch symbol ("batch"); empty when its batch axis has a fixed size.
    [[nodiscard]] const std::string& batchSymbol() const;
    /// How `value`'s batch axis is merged with values of each sample (nothing merged for a separate batch
    /// axis or none): followed from the Reshape that merged it through the operators after it; a merged
    /// axis whose origin is not known (a graph's own value_info) counts as batch-outer.
    [[nodiscard]] BatchMerge batchMergeOf(const std::string& value) const;
    /// Where Headroom's tensor has the batch axis: batchAxisOf, after the outer values a merge puts first.
    [[nodiscard]] std::size_t wholeBatchAxisOf(const std::string& value) const;
    /// The axes of `value` other than its batch axis (batchAxisOf), when each has a known size. A batch
    /// axis merged with values of each sample (batchMergeOf) is read as its outer values, the batch axis
    /// and its inner values, the same memory: [T, 12*batch, d] with inner 12 is T x B x 12 x d, per sample
    /// [T, 12, d].
    [[nodiscard]] std::optional<std::vector<std::int64_t>> perSampleOf(const std::string& value) const;
    /// The node that produces `value`, or -1 for inputs and initializers.
    [[nodiscard]] int producer(const std::string& value) const;
    /// Indices of the nodes that read `value`, in graph order.
    [[nodiscard]] const std::vector<int>& consumers(const std::string& value) const;
    [[nodiscard]] bool isGraphOutput(const std::string& value) const { return m_outputs.count(value) > 0; }

    /// The numbers of a small constant tensor (an initializer with data or a Constant node's value),
    /// at most `maxElements` of them; nullopt when the value is not a readable constant.
    [[nodiscard]] std::optional<std::vector<double>> constantNumbers(
        const std::string& value, std::size_t maxElements = 64) const;
    /// The data propagated into a shape tensor by shape inference, or a constant's values.
    [[nodiscard]] std::optional<std::vector<Dim>> shapeTensor(const std::string& value) const;

    /// The value of a small integer tensor computed from constants only (Shape of a constant,
    /// ConstantOfShape, Concat, Reshape, Transpose, Slice along the first axis, Add/Sub/Mul), as torch
    /// writes F.pad's amounts; nullopt for anything else.
    [[nodiscard]] std::optional<SmallIntTensor> foldIntegers(const std::string& value, int depth = 0) const;

private:
    /// A value and the depth a fold reads it at: the key of the folds' memos.
    struct FoldKey
    {
        std::string value;
        int depth = 0;
        bool operator==(const FoldKey&) const = default;
    };
    struct FoldKeyHash
    {
        std::size_t operator()(const FoldKey& k) const noexcept
        {
            return std::hash<std::string> {}(k.value) * 64 + static_cast<std::size_t>(k.depth);
        }
    };

    [[nodiscard]] std::optional<std::vector<Dim>> shapeTensor(const std::string& value, int depth) const;
    [[nodiscard]] std::optional<std::vector<Dim>> shapeTensorUncached(
        const std::string& value, int depth) const;
    [[nodiscard]] std::optional<SmallIntTensor> foldIntegersChecked(
        const std::string& value, int depth) const;
    /// shapeTensor's own folding, for what ONNX's data propagation leaves open.
    [[nodiscard]] std::optional<std::vector<Dim>> foldShapeTensor(const std::string& value, int depth) const;
    /// Equal of two size vectors, element by element: known, or nullopt where it cannot be told.
    [[nodiscard]] std::optional<std::vector<std::optional<bool>>> equalDims(int node, int depth) const;
    [[nodiscard]] std::optional<SmallIntTensor> foldIntegersUnchecked(
        const std::string& value, int depth) const;
    /// A size vector or size (rank 0 or 1) computed from known sizes of computed tensors (shapeTensor).
    [[nodiscard]] std::optional<SmallIntTensor> knownSizes(const std::string& value, int depth) const;
    /// shape inference's data propagation, or a constant's values.
    [[nodiscard]] std::optional<std::vector<Dim>> propagatedShapeTensor(const std::string& value) const;
    /// index's steps: the initializers and the one input; one node's producers, consumers and data flow;
    /// the layout of every merged batch axis, in graph order.
    [[nodiscard]] std::optional<Error> indexInputs(std::unordered_set<std::string>& defined);
    [[nodiscard]] std::optional<Error> indexNode(int i, std::unordered_set<std::string>& defined);
    void followBatchMerges();
    [[nodiscard]] BatchMerge mergeAfter(
        const onnx::NodeProto& n, const std::string& out, std::int64_t multiple) const;

public:
private:
    const onnx::GraphProto* m_graph = nullptr;
    std::string m_input;
    std::unordered_map<std::string, ValueType> m_types;
    std::unordered_map<std::string, const onnx::TensorProto*> m_initializers;
    std::unordered_map<std::string, const onnx::TensorProto*> m_constantNodes;
    std::unordered_map<std::string, int> m_producers;
    std::unordered_map<std::string, std::vector<int>> m_consumers;
    std::unordered_set<std::string> m_dynamic;
    std::unordered_set<std::string> m_data;
    std::unordered_set<std::string> m_outputs;
    std::unordered_map<std::string, onnx::TensorShapeProto> m_shapeData;
    std::unordered_map<std::string, BatchMerge> m_merges;
    /// knownSizes' results, each value's worked out once: it is reached again from every fold that reads it,
    /// and each fold may try shapeTensor as well as foldIntegers.
    mutable std::unordered_map<std::string, std::optional<SmallIntTensor>> m_knownSizes;
    /// shapeTensor's and foldIntegers' results per value and depth: each is worked out once.
    mutable std::unordered_map<FoldKey, std::optional<std::vector<Dim>>, FoldKeyHash> m_shapeTensors;
    mutable std::unordered_map<FoldKey, std::optional<SmallIntTensor>, FoldKeyHash> m_foldedIntegers;
};

} // namespace headroom::onnximport
