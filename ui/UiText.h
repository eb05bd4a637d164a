#pragma once

#include "headroom/estimate/Estimate.h"
#include "headroom/layers/LayerKind.h"
#include "headroom/model/Network.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/Training.h"

#include <QCoreApplication>
#include <QString>
#include <cstdint>

namespace headroom::ui {

/// The user-visible, translated names of the core's enumerations, and the core's number formats as
/// QStrings (the GUI, the CLI and the report show identical numbers).
class UiText final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::ui::UiText)

public:
    [[nodiscard]] static QString component(Component c);
    [[nodiscard]] static QString category(LayerCategory c);
    [[nodiscard]] static QString precision(Precision p);
    [[nodiscard]] static QString optimizer(Optimizer o);
    [[nodiscard]] static QString loss(Loss l);
    [[nodiscard]] static QString checkpointing(Checkpointing c);
    [[nodiscard]] static QString attention(AttentionImplementation a);
    [[nodiscard]] static QString sharding(Sharding s);
    [[nodiscard]] static QString optimizerImplementation(OptimizerImplementation i);
    [[nodiscard]] static QString bytes(std::uint64_t n);
    [[nodiscard]] static QString signedBytes(double n);
    [[nodiscard]] static QString count(std::uint64_t n);
    /// Floating-point operations with an SI prefix: "812 MFLOP", "4.12 TFLOP".
    [[nodiscard]] static QString flops(double n);
    /// A duration: "850 µs", "412 ms", "3.25 s", "2.1 min".
    [[nodiscard]] static QString seconds(double s);
    /// A rate as the report and the command line write it: "0.598", "77.7", "1,240".
    [[nodiscard]] static QString rate(double perSecond);
};

} // namespace headroom::ui
