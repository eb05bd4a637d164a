#pragma once

// The allocation trace under construction (StepTrace.cpp), and the optimizer step's part of it
// (TraceOptimizer.cpp).

#include "headroom/analysis/Analysis.h"
#include "headroom/step/AllocationTrace.h"
#include "headroom/step/MemoryModel.h"
#include "step/StepSimulation.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace headroom::step {

inline constexpr std::uint32_t kNoBlock = std::numeric_limits<std::uint32_t>::max();

[[nodiscard]] inline std::uint32_t rowIndex(std::size_t row)
{
    return row == kNoStepOp ? kNoTraceRow : static_cast<std::uint32_t>(row);
}

/// The events in the making; numbers the blocks.
class EventLog
{
public:
    TraceStage stage = TraceStage::Setup;
    std::uint8_t step = 0;
    std::uint8_t microBatch = 0;

    std::uint32_t allocate(TraceKind kind, std::uint32_t row, AffineBytes bytes, bool optional = false)
    {
        const auto block = static_cast<std::uint32_t>(m_kinds.size());
        m_kinds.push_back(kind);
        m_rows.push_back(row);
        m_events.push_back(TraceEvent { true, optional, kind, stage, step, block, row, bytes });
        return block;
    }
    void free(std::uint32_t block)
    {
        if (block == kNoBlock)
            return;
        m_events.push_back(
            TraceEvent { false, false, m_kinds[block], stage, step, block, m_rows[block], {} });
    }
    [[nodiscard]] std::size_t events() const noexcept { return m_events.size(); }
    /// Room for `more` events after those so far (a later step makes about as many as the first).
    void reserveMore(std::size_t more) { m_events.reserve(m_events.size() + more); }
    /// A moment of the step: what has happened so far is alive or cached there.
    void moment() { m_moments.push_back(TraceMoment { m_events.size(), step, microBatch }); }
    [[nodiscard]] AllocationTrace take()
    {
        return AllocationTrace { std::move(m_events), static_cast<std::uint32_t>(m_kinds.size()),
            std::move(m_moments) };
    }

private:
    std::vector<TraceMoment> m_moments;
    std::vector<TraceEvent> m_events;
    std::vector<TraceKind> m_kinds;
    std::vector<std::uint32_t> m_rows;
};

/// optimizer.step() (`createState`: the first, which makes the state tensors first) and
/// zero_grad(set_to_none=True), which frees `gradients`.
void addOptimizerStep(EventLog& log, const Analysis& analysis, const TrainingSetup& setup,
    const StepConditions& c, const StepGraph& graph, const std::vector<std::size_t>& parameterOrigin,
    const StepSimulation& simulation, bool createState, std::vector<std::uint32_t>& gradients);

} // namespace headroom::step
