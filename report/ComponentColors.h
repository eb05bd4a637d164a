#pragma once

#include "headroom/estimate/Estimate.h"

#include <QColor>
#include <array>

namespace headroom::ui {

/// The one place memory components get their colours and their stacking order, so the GUI's chart
/// and the PDF report's chart and legend agree. Qt Gui only (no Widgets): the report links it too.
class ComponentColors final
{
public:
    /// The stacked-area, bar and legend colour of a component.
    [[nodiscard]] static QColor color(Component c);
    /// The outline drawn around a component's band (the fill, darker).
    [[nodiscard]] static QColor border(Component c);

    /// The shading of the memory chart's region above the GPU's memory (translucent red), in the
    /// GUI and the report alike.
    [[nodiscard]] static QColor overBudget() { return QColor(0xe1, 0x57, 0x59, 45); }
    /// The line of what PyTorch's caching allocator reserves, in every chart that draws it.
    [[nodiscard]] static QColor reserved() { return QColor(0x1f, 0x3a, 0x93); }
    /// The line of what max_memory_allocated counts (tensors and workspaces) in the step charts.
    [[nodiscard]] static QColor allocated() { return QColor(0x2b, 0x2b, 0x2b); }

    /// Components from the bottom of a stack to the top: the batch-independent parts first
    /// (overhead, weights, gradients, optimizer state, communication buffers), then a measured run's
    /// excess (a fixed part and one per sample), then what grows with the batch.
    static constexpr std::array<Component, 9> kStackOrder { Component::Overhead, Component::Weights,
        Component::Gradients, Component::OptimizerState, Component::Communication, Component::Calibration,
        Component::Input, Component::Activations, Component::Transient };
};

} // namespace headroom::ui
