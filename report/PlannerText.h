#pragma once

#include "headroom/planner/Planner.h"

#include <QCoreApplication>
#include <QString>

namespace headroom::report {

/// The planner's set-ups in the user's language, for the GUI's "Make it fit" panel and the PDF report
/// alike (the command line prints the core's English texts).
class PlannerText final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::PlannerText)

public:
    /// One change: "Mixed precision (BF16 autocast)", "4 accumulation steps", "ZeRO stage 2", ...
    [[nodiscard]] static QString change(const SetupChange& change, const PlanSettings& settings);
    /// Every change of a set-up, comma-separated; "As set up" for none.
    [[nodiscard]] static QString changes(const PlanCandidate& candidate);
    /// "64 × 4 × 2 GPUs": micro-batch, accumulation steps, data-parallel GPUs.
    [[nodiscard]] static QString batch(const TrainingSetup& setup);
    /// What the closest set-up lacks: "it needs 1.20 GiB more than the GPU holds, at a micro-batch of 1".
    [[nodiscard]] static QString shortfall(const PlanShortfall& shortfall);
    /// "changed" or "same": whether the set-up changes what training computes.
    [[nodiscard]] static QString training(const PlanCandidate& candidate);
};

} // namespace headroom::report
