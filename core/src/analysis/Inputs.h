#pragma once

// Stage: input resolution. Reads the network's input and each layer spec's name and `inputs`; gives the
// batch's tensor as the first layer receives it, the scopes of names a layer may refer to, each layer's
// input tensors (or an error naming the reference that resolves to nothing) and the names the rows show
// for them. Writes nothing itself: the walk records each layer's output under its full name.

#include "StepRecorder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace headroom::analysis {

inline constexpr std::string_view kNetworkInputName = "input";
inline constexpr std::string_view kRepeatInputName = "repeat_input";

/// Every layer's output tensor by the layer's full name ("blocks.3.attn"), which later layers may name.
using TensorsByName = std::unordered_map<std::string, std::size_t>;

/// Names visible to a layer's `inputs`: a chain of scopes, innermost first.
struct Scope final
{
    std::unordered_map<std::string, std::size_t> names; ///< local name -> tensor index
    std::optional<std::size_t> repeatInput;
    const Scope* parent = nullptr;

    [[nodiscard]] std::optional<std::size_t> lookup(const std::string& name) const;
};

/// The input shape's errors: no axis, an axis that is not positive, more elements than 64 bits hold.
[[nodiscard]] std::optional<Error> checkInput(const InputSpec& input);
/// One sample as the first layer receives it: the pure half precisions convert a float batch with
/// .half() / .bfloat16().
[[nodiscard]] TensorInfo batchTensor(const InputSpec& input, Precision precision);

/// A layer's input tensors: the `current` tensor when the spec names none, else each name looked up in
/// `scope`, then among every layer's full names.
[[nodiscard]] std::optional<Error> resolveInputs(const LayerSpec& spec, const std::string& specPath,
    const Scope& scope, const TensorsByName& byFullName, std::size_t current,
    std::vector<std::size_t>& inputs);

/// What a row lists as an input: the producing layer's name, or "input".
[[nodiscard]] std::string tensorName(
    const StepRecorder& step, const std::vector<LayerRow>& rows, std::size_t tensor);

/// A layer whose full name another layer already has: "b.0.r" at the top level beside the Repeat
/// block b's layer r, or a layer named "0" beside the unnamed first layer.
[[nodiscard]] std::string duplicateNameError(
    const std::vector<LayerRow>& rows, const std::string& fullName, const std::string& specPath);

} // namespace headroom::analysis
