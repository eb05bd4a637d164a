#pragma once

// Stage: the identical-iteration jump, inside the Repeat walk. Iterations of a Repeat block whose input
// is the same as the previous iteration's are identical (docs/model-format.md, "Repeat"), unless the
// file singles one out by its number. Reads what one iteration added to the state (since a Mark);
// decides how many iterations after it need no analysis of their own, and makes what it added stand
// for them too: its rows name the range and count it, its storages, parameters, trainable tensors and
// totals multiply.

#include "AnalysisState.h"
#include "headroom/model/Network.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace headroom::analysis {

/// What an iteration of a Repeat block sees of its input: iterations with equal inputs are identical.
struct InputSignature final
{
    TensorInfo info;
    bool requiresGrad = false;
    bool valid = true;
    friend bool operator==(const InputSignature&, const InputSignature&) = default;
};

/// Where the analysis stands: what an iteration of a Repeat block adds from here.
struct Mark final
{
    std::size_t rows = 0;
    StepSizes step;
    std::size_t trainableTensors = 0;
    std::array<Count, 14> totals {}; ///< Totals::perIteration()
};

[[nodiscard]] Mark mark(AnalysisState& state);

/// Every run of digits between dots in the specs' names, references and ties, and in the LoRA targets
/// ("layers.3.fc" -> 3): the Repeat iterations they may single out.
[[nodiscard]] std::set<std::int64_t> singledOutIterations(
    const std::vector<LayerSpec>& specs, const std::vector<std::string>& loraTargets);

/// The iterations after iteration `t` (of `times`) that are identical to it and need no analysis of
/// their own (0 when its input differs from the previous iteration's).
[[nodiscard]] std::int64_t hiddenAfter(std::int64_t t, std::int64_t times,
    const std::optional<InputSignature>& previous, const InputSignature& input,
    const std::set<std::int64_t>& singledOut);

/// Makes what was analysed since `before` (one iteration) stand for itself and `hidden` identical
/// iterations after it. `level`: the block's place in the rows' iterations; `ownSegments`: the block is
/// not inside a checkpointed iteration (its iterations are segments of their own, or none is).
void repeatSince(
    AnalysisState& state, const Mark& before, std::uint64_t hidden, std::size_t level, bool ownSegments);

} // namespace headroom::analysis
