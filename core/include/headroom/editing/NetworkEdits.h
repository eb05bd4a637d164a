#pragma once

// Structural edits of a network's layer tree (insert, remove, duplicate, move, wrap in a residual
// block, checkpoint a range), each worked out as a value a user interface applies and takes back as
// one undo step: a Splice (siblings replaced) or a LayerMove. Nothing here touches the network it
// reads; apply() does.

#include "headroom/analysis/Analysis.h"
#include "headroom/model/Network.h"
#include "headroom/setup/Training.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace headroom {

/// Where a layer spec sits in the network's spec tree: indices from the top-level list down through
/// Repeat blocks. Empty: the top level itself (as a parent).
using SpecPath = std::vector<int>;

/// The children of the Repeat block at `parent`, or the top-level layers for an empty path; null if
/// the path leads nowhere or not to a block.
[[nodiscard]] const std::vector<LayerSpec>* childrenAt(const Network& network, const SpecPath& parent);
[[nodiscard]] std::vector<LayerSpec>* childrenAt(Network& network, const SpecPath& parent);
/// The spec at `path`; null if there is none (or the path is empty).
[[nodiscard]] const LayerSpec* specAt(const Network& network, const SpecPath& path);
[[nodiscard]] LayerSpec* specAt(Network& network, const SpecPath& path);
/// "layers[4].layers[1]": the spec path the analysis reports (LayerRow::specPath) for `path`.
[[nodiscard]] std::string specPathText(const SpecPath& path);
/// `stem` if no sibling is named so, else the first free of stem_2, stem_3, ...
[[nodiscard]] std::string uniqueName(const std::vector<LayerSpec>& siblings, const std::string& stem);

/// An edit of one list of siblings: `removed` (the specs at `row`..) give way to `inserted`.
struct Splice final
{
    SpecPath parent;
    int row = 0;
    std::vector<LayerSpec> removed;
    std::vector<LayerSpec> inserted;
    friend bool operator==(const Splice&, const Splice&) = default;
};
/// The splice that takes `edit` back.
[[nodiscard]] Splice inverse(Splice edit);

/// `count` siblings from `row` under `from` moved to `toRow` under `to`, both as they are once the
/// siblings are taken out.
struct LayerMove final
{
    SpecPath from;
    int row = 0;
    int count = 0;
    SpecPath to;
    int toRow = 0;
    friend bool operator==(const LayerMove&, const LayerMove&) = default;
};
[[nodiscard]] LayerMove inverse(const LayerMove& move);

/// Removes and returns `count` siblings from `row` under `parent` (none if the range is not there).
std::vector<LayerSpec> takeLayers(Network& network, const SpecPath& parent, int row, int count);
/// Inserts `specs` at `row` (clamped to the list) under `parent`.
void putLayers(Network& network, const SpecPath& parent, int row, const std::vector<LayerSpec>& specs);
void apply(Network& network, const Splice& edit);
void apply(Network& network, const LayerMove& move);

/// Why an edit cannot be made, for a user interface to word.
struct EditRefusal final
{
    enum class Reason {
        NoLayers, ///< the range holds no layers (nothing selected, or a stale selection)
        NotTopLevel, ///< only top-level layers can be checkpointed as a block
        ChangesShape, ///< residual: the layers change the shape from `first` to `second` ("B x 8")
        NotAddable, ///< residual: their output cannot be added to their input (it has no shape)
        UsedInside, ///< checkpoint: `first` (a later layer) uses `second`, a layer inside the block
    };
    Reason reason = Reason::NoLayers;
    std::string first;
    std::string second;
    friend bool operator==(const EditRefusal&, const EditRefusal&) = default;
};

/// `specs` inserted at `row` (clamped) under `parent`; nothing when the parent is not a list or
/// there is nothing to insert.
[[nodiscard]] std::optional<Splice> insertEdit(
    const Network& network, const SpecPath& parent, int row, std::vector<LayerSpec> specs);
/// `count` siblings from `row` removed; nothing when the range is not there.
[[nodiscard]] std::optional<Splice> removeEdit(
    const Network& network, const SpecPath& parent, int row, int count);
/// Copies of `count` siblings from `row` inserted after them; a named copy of "fc" is "fc_copy"
/// (uniqueName()), an unnamed one stays unnamed.
[[nodiscard]] std::optional<Splice> duplicateEdit(
    const Network& network, const SpecPath& parent, int row, int count);
/// `count` siblings from `row` under `parent` moved to `newRow` of `newParent`, `newRow` counted
/// before the move (like QAbstractItemModel::beginMoveRows). Nothing when the range or the target is
/// not there, a block would move into itself, or the layers would land where they are.
[[nodiscard]] std::optional<LayerMove> moveEdit(const Network& network, const SpecPath& parent, int row,
    int count, const SpecPath& newParent, int newRow);

/// Siblings wrapped in a Repeat block (times 1, named "residual") ending in an Add of the block's
/// input and its last layer (named "out" if it had no name): a residual connection, PyTorch's
/// x + f(x). Refused when the layers' output does not broadcast against their input, checked by
/// analysing the network with the block under `options`.
[[nodiscard]] std::variant<Splice, EditRefusal> residualEdit(
    const Network& network, const AnalysisOptions& options, const SpecPath& parent, int row, int count);

/// Checkpointing `count` consecutive top-level layers from `row`: wrapped in a checkpointed Repeat
/// block (times 1, named "checkpoint"), later layers that use the last wrapped layer by name pointed
/// at the block (the same tensor); one selected block is marked instead (`markBlock`). Refused when
/// a later layer uses a wrapped layer other than the last, or the range is inside a block.
struct CheckpointEdit final
{
    std::optional<Splice> wrap; ///< the layers and, up to the last one repointed, the later layers
    std::optional<SpecPath> markBlock; ///< or: the selected block to mark "checkpoint"
};
[[nodiscard]] std::variant<CheckpointEdit, EditRefusal> checkpointEdit(
    const Network& network, const SpecPath& parent, int row, int count);

/// The checkpointing that recomputes a block marked "checkpoint": per block when it is off (a mark
/// alone would change nothing), else as it is.
[[nodiscard]] Checkpointing checkpointingForMarkedBlocks(Checkpointing current) noexcept;

} // namespace headroom
