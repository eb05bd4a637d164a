#pragma once

#include "headroom/support/Count.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace headroom {

/// The components of training memory, in bytes.
struct MemoryBreakdown final
{
    std::uint64_t weights = 0; ///< parameters + buffers (+ autocast's half weight copies)
    std::uint64_t gradients = 0; ///< one per trainable parameter
    std::uint64_t optimizerState = 0; ///< optimizer buffers (+ fp32 master weights in pure half)
    std::uint64_t activations = 0; ///< saved for backward, the loss's included, input excluded
    std::uint64_t input = 0; ///< the input batch and its labels
    std::uint64_t transient = 0; ///< activation gradients alive during backward
    std::uint64_t overhead = 0; ///< CUDA context, kernels, allocator reserve (user-settable)
    /// Multi-GPU buffers: DDP gradient buckets, ZeRO-3 / FSDP all-gathered parameters
    std::uint64_t communication = 0;
    /// What a measured run held beyond the plan (TrainingSetup::calibration): fixed + per sample x batch,
    /// alive for the whole run; 0 without a calibration.
    std::uint64_t calibration = 0;

    [[nodiscard]] std::uint64_t total() const noexcept;
    /// The sum of the components, overflow kept (total() is its value).
    [[nodiscard]] Count checkedTotal() const noexcept;
    friend bool operator==(const MemoryBreakdown&, const MemoryBreakdown&) = default;
};

enum class Component {
    Weights,
    Gradients,
    OptimizerState,
    Activations,
    Input,
    Transient,
    Communication,
    Calibration, ///< a measured run's excess over the plan; views show it only when it is above 0
    Overhead
};
constexpr std::array<Component, 9> kAllComponents { Component::Weights, Component::Gradients,
    Component::OptimizerState, Component::Activations, Component::Input, Component::Transient,
    Component::Communication, Component::Calibration, Component::Overhead };
[[nodiscard]] std::string_view componentName(Component c) noexcept; ///< "optimizer_state"
[[nodiscard]] std::string_view componentLabel(Component c) noexcept; ///< "Optimizer state"
[[nodiscard]] std::uint64_t componentBytes(const MemoryBreakdown& m, Component c) noexcept;

} // namespace headroom
