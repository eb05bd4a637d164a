#include "ComponentColors.h"

namespace headroom::ui {

QColor ComponentColors::color(Component c)
{
    // Tableau 10: distinguishable in print and for the common colour-vision deficiencies.
    switch (c) {
    case Component::Weights:
        return { 0x4e, 0x79, 0xa7 };
    case Component::Gradients:
        return { 0x8c, 0xb7, 0xe0 };
    case Component::OptimizerState:
        return { 0xf2, 0x8e, 0x2b };
    case Component::Activations:
        return { 0x59, 0xa1, 0x4f };
    case Component::Input:
        return { 0xb0, 0x7a, 0xa1 };
    case Component::Transient:
        return { 0x9c, 0x75, 0x5f };
    case Component::Communication:
        return { 0x76, 0xb7, 0xb2 };
    case Component::Calibration: // Tableau 10's yellow: apart from every modelled component
        return { 0xed, 0xc9, 0x48 };
    case Component::Overhead:
        return { 0xba, 0xb0, 0xac };
    }
    return { 0x80, 0x80, 0x80 };
}

QColor ComponentColors::border(Component c)
{
    return color(c).darker(130);
}

} // namespace headroom::ui
