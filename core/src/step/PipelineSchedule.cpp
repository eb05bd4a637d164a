#include "headroom/step/PipelineSchedule.h"

#include <algorithm>

namespace headroom {

HeldMicroBatches heldMicroBatches(
    const Parallelism& par, std::int64_t microBatches, std::int64_t stage) noexcept
{
    const std::int64_t p = std::max<std::int64_t>(1, par.pipelineParallel);
    const std::int64_t m = std::max<std::int64_t>(1, microBatches);
    const std::int64_t s = std::clamp<std::int64_t>(stage, 0, p - 1);
    switch (par.schedule) {
    case PipelineSchedule::GPipe:
        return { m - 1, 1 };
    case PipelineSchedule::OneFOneB:
    case PipelineSchedule::ZeroBubble:
        return { std::min(p - s - 1, m - 1), 1 };
    case PipelineSchedule::Interleaved: {
        const std::int64_t v = std::max<std::int64_t>(1, par.virtualStages);
        // Warm-up passes plus the running one, less the v passes the simulated micro-batch stands for.
        const std::int64_t warmup = std::min((p - s - 1) * 2 + (v - 1) * p, m * v - 1);
        return { std::max<std::int64_t>(0, warmup + 1 - v), v };
    }
    }
    return {};
}

} // namespace headroom
