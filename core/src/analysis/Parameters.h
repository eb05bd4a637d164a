#pragma once

// Stage: parameter counting and weight tying, for each layer the layer stage infers. Reads the
// layer's ParamTensors, whether it is frozen and the precision; writes the row's parameter counts,
// the network's totals, the analysis's trainable tensor list and the step's parameters, and keeps
// each layer's weight for the later layers tied to it (which then do not count it again).

#include "StepRecorder.h"
#include "Totals.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/layers/LayerKind.h"
#include "headroom/model/Network.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace headroom::analysis {

/// QLoRA's NF4 storage of `elements` weights (Dettmers et al. 2023, QLoRA section 3).
[[nodiscard]] Count nf4Bytes(Count elements);

/// Where a layer's parameters (its own and its adapters') are recorded.
struct ParameterSink final
{
    LayerRow& row;
    std::size_t rowIndex = 0;
    /// The layer op's parameters: their gradients come from its backward.
    std::vector<std::size_t>& stepParameters;
    Totals& totals;
    StepRecorder& step;
    Analysis& result; ///< its trainable tensor lists

    /// One trainable tensor: in the analysis's list and as a parameter of the layer's op. Returns its
    /// StepParameter index.
    std::size_t addTrainable(Count elements, Count bytes) const;
};

/// A layer's weight, as a later layer tied to it sees it.
struct LayerWeight final
{
    Count elements;
    std::vector<std::int64_t> shape; ///< empty where the kind gives none
    bool trains = false;
    std::size_t parameter = 0; ///< its StepParameter (when it trains)
};

/// Each layer's weight ("weight" parameter), by row.
class WeightTable final
{
public:
    void add(std::size_t row, LayerWeight weight) { m_byRow[row] = std::move(weight); }
    [[nodiscard]] const LayerWeight* find(std::size_t row) const;

private:
    std::map<std::size_t, LayerWeight> m_byRow;
};

/// Counts a layer's parameters and buffers in their storage dtype (`nf4Weights` in NF4), the trainable
/// ones unless `frozen`, and enters its weight in `weights`.
void countParameters(const LayerOutcome& outcome, bool frozen, const std::set<std::string>& nf4Weights,
    Precision precision, WeightTable& weights, const ParameterSink& sink);

/// Weight tying (`tied_to`): the tied weight is the weight of the layer at `targetRow` (the producer of
/// the tensor the spec names; nullopt when it names none), so it is removed from `outcome`'s parameters
/// and `tiedRow` is set. An error when there is no such weight or it differs in shape or size.
[[nodiscard]] std::optional<Error> applyTying(const LayerSpec& spec, const std::string& specPath,
    std::optional<std::size_t> targetRow, const WeightTable& weights, LayerOutcome& outcome,
    std::optional<std::size_t>& tiedRow);

} // namespace headroom::analysis
