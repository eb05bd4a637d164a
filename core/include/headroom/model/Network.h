#pragma once

#include "headroom/model/DType.h"
#include "headroom/model/Shape.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One entry of a model file's "layers": a layer, or a Repeat block holding layers.
struct LayerSpec final
{
    std::string type; ///< "Conv2d", "Repeat", ...
    std::string name; ///< optional, unique among siblings
    std::vector<std::string> inputs; ///< names of producers; empty = the previous layer's output
    nlohmann::json attributes = nlohmann::json::object(); ///< as written in the file (not yet validated)
    /// Weight tying: this layer's "weight" is the named layer's weight (counted once).
    std::string tiedTo;
    std::int64_t times = 1; ///< Repeat only
    /// "frozen": true: no parameter of this layer (or, on a Repeat, of any layer inside) is trained.
    bool frozen = false;
    /// "checkpoint": true on a Repeat: each iteration is a torch.utils.checkpoint segment when
    /// checkpointing is per block.
    bool checkpoint = false;
    std::vector<LayerSpec> children; ///< Repeat only

    [[nodiscard]] bool isRepeat() const noexcept { return type == "Repeat"; }
    friend bool operator==(const LayerSpec&, const LayerSpec&) = default;
};

/// The loss computed on the last layer's output; it counts for activations (what it saves) and input
/// (the labels). L1 is F.l1_loss; Bce is F.binary_cross_entropy on probabilities or
/// F.binary_cross_entropy_with_logits on logits (both keep the same tensors).
enum class Loss { CrossEntropy, Mse, L1, Bce, None };

[[nodiscard]] std::string_view lossName(Loss loss) noexcept; ///< "cross_entropy", "mse", "l1", "bce", "none"
[[nodiscard]] std::optional<Loss> parseLoss(std::string_view name) noexcept;
[[nodiscard]] std::span<const Loss> allLosses() noexcept;

struct InputSpec final
{
    Shape shape; ///< one sample, no batch axis
    DType dtype = DType::Float32;
    /// A sequence model's longest input, where the file says (a Hugging Face config's
    /// max_position_embeddings): the sequence axis may be set up to it (shape.dims[0] is the length
    /// trained at). Saved in model files as input.max_sequence_length.
    std::optional<std::int64_t> maxSequenceLength;
    friend bool operator==(const InputSpec&, const InputSpec&) = default;
};

/// A network as the model file holds it: pure data, validated by analyze().
struct Network final
{
    std::string name;
    std::string description;
    InputSpec input;
    std::vector<LayerSpec> layers;
    Loss loss = Loss::CrossEntropy;
    /// What an importer could not take from the file and the user should know (an ONNX model exported
    /// in eval mode); analyze() lists them first among Analysis::warnings. Saved in model files.
    std::vector<std::string> warnings;

    friend bool operator==(const Network&, const Network&) = default;
};

} // namespace headroom
