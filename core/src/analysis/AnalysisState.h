#pragma once

// What the stages of one analysis share while the walk goes on (Analyze.cpp runs them in order). Each
// part belongs to the stage named beside it; the others read it or go through that stage's functions.

#include "Diagnostics.h"
#include "Inputs.h"
#include "Lora.h"
#include "Parameters.h"
#include "StepRecorder.h"
#include "Totals.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/model/Attributes.h"
#include "headroom/model/Network.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

namespace headroom::analysis {

struct AnalysisState final
{
    AnalysisState(const Network& network, const AnalysisOptions& options);

    const Network& network;
    const AnalysisOptions options;
    const Precision precision;
    /// The result as it grows: the rows and the trainable tensor lists as the walk reaches them; the
    /// summary fills in the rest at the end.
    Analysis result;
    Diagnostics diagnostics; ///< every stage
    StepRecorder step; ///< storage keeping and the step graph (StepRecorder.h)
    Totals totals; ///< every stage that counts (Totals.h)
    WeightTable weights; ///< parameter counting, for weight tying (Parameters.h)
    LoraAdapters lora; ///< adapters (Lora.h)
    TensorsByName byFullName; ///< input resolution: every layer's output so far (Inputs.h)

    // The Repeat walk (Walk.h)
    std::vector<RowIterations> iterations; ///< the Repeat iterations being walked, outermost first
    std::set<std::int64_t> singledOut; ///< iteration numbers that names, references or targets single out
    bool anyCheckpointMark = false; ///< some Repeat block is marked "checkpoint"
    std::size_t analysedLayers = 0;
    std::size_t analysedLayersAllowed = 0; ///< within Repeat blocks (analysedLayersAllowed(); 0: not yet set)
    std::size_t networkOutput = 0; ///< the tensor the last layer produces (what the loss reads)
    /// A spec's checked attributes, by spec: a Repeat walks its body's specs once per iteration, and
    /// checking the same attributes again took a sixth of an 8,000-iteration block's analysis. Only
    /// attributes that passed are kept (an invalid spec's error names the place each time).
    std::unordered_map<const LayerSpec*, Attributes> checkedAttributes;

    /// Some figure overflowed 64 bits.
    [[nodiscard]] bool overflowed() const noexcept { return totals.overflow || step.overflowed(); }
};

inline AnalysisState::AnalysisState(const Network& net, const AnalysisOptions& opts)
    : network { net }
    , options { opts }
    , precision { opts.precision }
    , lora { opts.lora, opts.precision, net.layers }
{
    result.precision = precision;
    result.options = options;
}

} // namespace headroom::analysis
