#pragma once

#include "headroom/Estimate.h"
#include "headroom/LayerKind.h"
#include "headroom/Network.h"
#include "headroom/Optimizer.h"
#include "headroom/Precision.h"

#include <QCoreApplication>
#include <QString>

#include <cstdint>

namespace headroom::ui {

/// The user-visible, translated names of the core's enumerations, and the core's number formats as
/// QStrings (the GUI, the CLI and the report show identical numbers).
class UiText final {
    Q_DECLARE_TR_FUNCTIONS(headroom::ui::UiText)

public:
    [[nodiscard]] static QString component(Component c);
    [[nodiscard]] static QString category(LayerCategory c);
    [[nodiscard]] static QString precision(Precision p);
    [[nodiscard]] static QString optimizer(Optimizer o);
    [[nodiscard]] static QString loss(Loss l);
    [[nodiscard]] static QString bytes(std::uint64_t n);
    [[nodiscard]] static QString signedBytes(double n);
    [[nodiscard]] static QString count(std::uint64_t n);
};

} // namespace headroom::ui
