// Stage: storage keeping and the step graph (see StepRecorder.h).
#include "StepRecorder.h"

#include <algorithm>
#include <utility>

namespace headroom::analysis {

Count StepRecorder::addNetworkInput(const TensorInfo& info)
{
    m_storages.push_back(
        Storage { info.shape.elements() * Count { elementSize(info.dtype) }, 0, true, false });
    m_tensors.push_back(Tensor { info, 0, std::nullopt, true });
    return m_storages[0].bytesPerSample;
}

std::size_t StepRecorder::addTensor(const Tensor& tensor)
{
    m_tensors.push_back(tensor);
    return m_tensors.size() - 1;
}

std::size_t StepRecorder::newStorage(Count perSample, Count fixed)
{
    m_overflow = m_overflow || perSample.isOverflow() || fixed.isOverflow();
    m_storages.push_back(Storage { perSample, fixed, false, false, false, m_segment, false, nextOp() });
    return m_storages.size() - 1;
}

void StepRecorder::resize(std::size_t storage, Count perSample, Count fixed)
{
    m_storages[storage].bytesPerSample = perSample;
    m_storages[storage].bytesFixed = fixed;
}

void StepRecorder::keep(std::size_t storage, LayerRow& row)
{
    auto& s = m_storages[storage];
    if (s.isNetworkInput)
        return;
    // Inside a checkpointed iteration, a storage that iteration created is recomputed, not kept.
    const bool inSegment = m_segment >= 0 && s.segment == m_segment;
    if (inSegment)
        s.savedInSegment = true;
    else
        s.kept = true;
    m_keeps.push_back(Keep { storage, nextOp(), inSegment });
    if (s.saved)
        return;
    s.saved = true;
    row.activationBytesPerSample += s.bytesPerSample.value();
    row.activationBytesFixed += s.bytesFixed.value();
}

void StepRecorder::addOp(StepOp op)
{
    m_graph.ops.push_back(std::move(op));
}

std::size_t StepRecorder::addParameter(Count gradientBytes, std::size_t row)
{
    m_overflow = m_overflow || gradientBytes.isOverflow();
    m_graph.parameters.push_back(StepParameter { gradientBytes.value(), row });
    return m_graph.parameters.size() - 1;
}

void StepRecorder::beginSegment(std::size_t input)
{
    m_segment = static_cast<std::ptrdiff_t>(m_segmentCount++);
    m_storages[input].kept = true;
    m_keeps.push_back(Keep { input, nextOp(), false });
}

StepSizes StepRecorder::sizes() const noexcept
{
    return StepSizes { m_graph.ops.size(), m_storages.size(), m_graph.parameters.size() };
}

void StepRecorder::multiplySince(const StepSizes& before, Count times, bool ownSegments)
{
    for (std::size_t i = before.storages; i < m_storages.size(); ++i) {
        m_storages[i].copies *= times;
        if (!ownSegments)
            m_storages[i].copiesInSegment *= times;
        m_overflow
            = m_overflow || m_storages[i].copies.isOverflow() || m_storages[i].copiesInSegment.isOverflow();
    }
    for (std::size_t i = before.parameters; i < m_graph.parameters.size(); ++i) {
        const Count copies = Count { m_graph.parameters[i].copies } * times;
        m_overflow = m_overflow || copies.isOverflow();
        m_graph.parameters[i].copies = copies.value();
    }
}

std::size_t StepRecorder::addRepeat(const StepRepeat& repeat)
{
    m_graph.repeats.push_back(repeat);
    return m_graph.repeats.size() - 1;
}

KeptActivations StepRecorder::keptActivations(Count fullPerSample, Count fullFixed) const
{
    // Without checkpointing: every saved storage. Per block: what stays kept, plus the one
    // checkpointed iteration whose recomputed activations are the largest (alive while backward
    // runs through it).
    KeptActivations out { {}, {}, fullPerSample, fullFixed, false };
    std::vector<std::pair<Count, Count>> segments(m_segmentCount);
    for (const auto& s : m_storages) {
        if (s.isNetworkInput)
            continue;
        if (s.saved) {
            out.fullPerSample += s.bytesPerSample * s.copies;
            out.fullFixed += s.bytesFixed * s.copies;
        }
        if (s.kept) {
            out.perSample += s.bytesPerSample * s.copies;
            out.fixed += s.bytesFixed * s.copies;
        }
        if (s.savedInSegment) { // one checkpointed iteration's recomputed activations
            auto& seg = segments[static_cast<std::size_t>(s.segment)];
            seg.first += s.bytesPerSample * s.copiesInSegment;
            seg.second += s.bytesFixed * s.copiesInSegment;
        }
    }
    Count largestPerSample, largestFixed;
    for (const auto& [segPerSample, segFixed] : segments) {
        out.overflow = out.overflow || segPerSample.isOverflow() || segFixed.isOverflow();
        largestPerSample = std::max(largestPerSample.value(), segPerSample.value());
        largestFixed = std::max(largestFixed.value(), segFixed.value());
    }
    out.perSample += largestPerSample;
    out.fixed += largestFixed;
    return out;
}

/// Live ops: recorded, and their output's gradient reaches them from the loss (or the last op).
std::vector<bool> StepRecorder::liveOps() const
{
    const auto& ops = m_graph.ops;
    std::vector<bool> live(ops.size(), false);
    if (!ops.empty())
        live.back() = ops.back().recorded;
    for (std::size_t j = ops.size(); j-- > 0;) {
        if (!live[j])
            continue;
        for (const auto& in : ops[j].inputs) {
            const std::size_t producer = m_tensors[in.tensor].producerOp;
            if (producer != kNoStepOp && m_tensors[in.tensor].requiresGrad && ops[producer].recorded)
                live[producer] = true;
        }
    }
    return live;
}

/// Each storage's size, producer, last forward use, the row it is charged to and when backward
/// releases it.
void StepRecorder::resolveStorages(const std::vector<bool>& live, std::uint64_t batchBytesPerSample)
{
    const std::size_t opCount = m_graph.ops.size();
    m_graph.storages.resize(m_storages.size());
    for (std::size_t i = 0; i < m_storages.size(); ++i) {
        const Storage& from = m_storages[i];
        StepStorage& to = m_graph.storages[i];
        to.bytes = AffineBytes { from.bytesPerSample.value(), from.bytesFixed.value() };
        to.producer = from.producerOp;
        to.lastForwardUse = from.producerOp;
        to.segment = from.segment;
        to.isInputBatch = from.isNetworkInput;
        to.chargedRow = from.producerOp == kNoStepOp ? 0 : m_graph.ops[from.producerOp].row;
    }
    if (!m_graph.storages.empty()) // the batch: the sample and its labels
        m_graph.storages[0].bytes = AffineBytes { batchBytesPerSample, 0 };
    for (std::size_t j = 0; j < opCount; ++j) {
        for (const auto& in : m_graph.ops[j].inputs) {
            auto& use = m_graph.storages[m_tensors[in.tensor].storage].lastForwardUse;
            use = use == kNoStepOp ? j : std::max(use, j);
        }
    }
    std::vector<bool> charged(m_storages.size(), false);
    for (const auto& k : m_keeps) {
        StepStorage& s = m_graph.storages[k.storage];
        if (!charged[k.storage] && k.op < opCount) {
            s.chargedRow = m_graph.ops[k.op].row;
            charged[k.storage] = true;
        }
        if (k.op >= opCount || !live[k.op])
            continue; // never reached by backward: released with the forward graph
        auto& release = k.inSegment ? s.releasedInSegmentAfterBackwardOf : s.releasedAfterBackwardOf;
        release = std::min(release, k.op);
        (k.inSegment ? s.keptInSegment : s.keptAcrossSegments) = true;
    }
}

StepGraph StepRecorder::finish(std::uint64_t batchBytesPerSample)
{
    const std::vector<bool> live = liveOps();
    for (std::size_t j = 0; j < m_graph.ops.size(); ++j)
        m_graph.ops[j].recorded = m_graph.ops[j].recorded && live[j];
    resolveStorages(live, batchBytesPerSample);
    for (std::size_t i = 0; i < m_storages.size(); ++i) {
        if (m_storages[i].producerOp != kNoStepOp)
            m_graph.ops[m_storages[i].producerOp].allocates.push_back(i);
    }
    m_graph.tensors.reserve(m_tensors.size());
    for (const auto& t : m_tensors) {
        const Count grad = t.info.shape.elements() * Count { elementSize(t.info.dtype) };
        m_overflow = m_overflow || grad.isOverflow();
        const AffineBytes bytes
            = t.info.shape.rank() == 0 ? AffineBytes { 0, grad.value() } : AffineBytes { grad.value(), 0 };
        m_graph.tensors.push_back(StepTensor { t.storage, bytes, t.requiresGrad });
    }
    m_graph.segments = m_segmentCount;
    return std::move(m_graph);
}

} // namespace headroom::analysis
