// analyze(): the analysis as its stages in order. Checks what the network and the options are as a
// whole, then walks the layers (Walk.h; each layer through the per-layer stage, Layer.h, with its
// parameters, adapters, autocast copies and op), adds the loss (Loss.h) and summarises (Summary.h);
// StepRecorder.h records the step throughout. Row grouping (RowGrouping.cpp) works on the result.
#include "AnalysisState.h"
#include "IdenticalIterations.h"
#include "Inputs.h"
#include "Loss.h"
#include "Summary.h"
#include "Walk.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/support/Format.h"

#include <cstdio>
#include <string>

namespace headroom {

namespace {

using analysis::AnalysisState;

// Identical iterations of a Repeat block are analysed once (docs/model-format.md, "Repeat"), so the
// expanded network may be huge while the analysed layers stay few; this bounds the rest.
constexpr std::uint64_t kMaxExpandedLayers = 1'000'000'000'000'000;

/// "1.5", "inf": the imbalance as given.
std::string formatImbalance(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

/// What makes the whole network unanalysable: its input, its size once expanded, the LoRA options and
/// the mixture-of-experts imbalance. Sets the expanded layer count on the way.
std::optional<Error> checkNetwork(AnalysisState& state)
{
    if (auto e = analysis::checkInput(state.network.input))
        return e;
    const Count expanded = analysis::expandedLayers(state.network.layers);
    if (expanded.isOverflow() || expanded.value() > kMaxExpandedLayers)
        return Error { "the network expands to more than " + formatCount(kMaxExpandedLayers)
                + " layers (check the Repeat counts)",
            "layers" };
    state.result.expandedLayers = expanded.value();
    if (auto e = analysis::LoraAdapters::validate(state.options.lora))
        return e;
    const double imbalance = state.options.moeImbalance;
    if (!(imbalance >= 1.0 && imbalance <= kMaxMoeImbalance)) // also NaN
        return Error { "moe_imbalance must be a number from 1 (balanced routing) to "
                + std::to_string(static_cast<int>(kMaxMoeImbalance)) + ", not " + formatImbalance(imbalance),
            "moe_imbalance" };
    return std::nullopt;
}

} // namespace

Analysis analyze(const Network& network, const AnalysisOptions& options)
{
    AnalysisState state { network, options };
    for (const auto& w : network.warnings)
        state.diagnostics.warnNetwork(w);
    if (auto e = checkNetwork(state)) {
        state.diagnostics.record(*e);
        state.diagnostics.moveInto(state.result);
        return std::move(state.result);
    }
    state.anyCheckpointMark = analysis::anyCheckpointMark(network.layers);
    state.singledOut = analysis::singledOutIterations(network.layers, options.lora.targets);
    const auto batch = analysis::batchTensor(network.input, state.precision);
    state.result.inputBytesPerSample = state.step.addNetworkInput(batch).value();

    analysis::Scope top;
    top.names.emplace(std::string(analysis::kNetworkInputName), 0);
    std::size_t current = 0;
    analysis::walkLayers(state, network.layers, "layers", "", 0, top, current, false);
    state.networkOutput = current;
    if (!state.diagnostics.hasError())
        analysis::addLoss(state, current);
    if (!state.diagnostics.stopped())
        state.lora.reportUnmatched(state.diagnostics);
    return analysis::summarize(state);
}

Analysis analyze(const Network& network, Precision precision)
{
    AnalysisOptions options;
    options.precision = precision;
    return analyze(network, options);
}

} // namespace headroom
