// Stage: parameter counting and weight tying (see Parameters.h).
#include "Parameters.h"

#include "headroom/support/Format.h"

#include <algorithm>

namespace headroom::analysis {

// 4 bits per weight, one 8-bit quantised absmax per block of 64, one float32 constant per 256 such
// blocks ("Double Quantization": 8/64 + 32/(64 x 256) bits per parameter on top of the 4).
Count nf4Bytes(Count elements)
{
    const std::uint64_t n = elements.value();
    const std::uint64_t blocks = n / 64 + (n % 64 != 0 ? 1 : 0);
    const std::uint64_t superBlocks = blocks / 256 + (blocks % 256 != 0 ? 1 : 0);
    return elements.isOverflow()
        ? Count::overflowed()
        : Count { n / 2 + n % 2 } + Count { blocks } + Count { 4 } * Count { superBlocks };
}

std::size_t ParameterSink::addTrainable(Count elements, Count bytes) const
{
    result.trainableTensorElements.push_back(elements.value());
    result.trainableTensorCopies.push_back(1);
    stepParameters.push_back(step.addParameter(bytes, rowIndex));
    return stepParameters.back();
}

const LayerWeight* WeightTable::find(std::size_t row) const
{
    const auto it = m_byRow.find(row);
    return it == m_byRow.end() ? nullptr : &it->second;
}

void countParameters(const LayerOutcome& outcome, bool frozen, const std::set<std::string>& nf4Weights,
    Precision precision, WeightTable& weights, const ParameterSink& sink)
{
    Count params, buffers, paramBytes, bufferBytes, trainable, trainableBytes, expert, expertTrainable,
        expertCast;
    for (const auto& p : outcome.params) {
        const DType dtype = p.dtype == DType::Float32 ? parameterType(precision) : p.dtype;
        const bool nf4 = nf4Weights.contains(p.name);
        const Count bytes = nf4 ? nf4Bytes(p.elements) : p.elements * Count { elementSize(dtype) };
        if (p.role != ParamTensor::Role::Parameter) {
            buffers += p.elements;
            bufferBytes += bytes;
            continue;
        }
        params += p.elements;
        paramBytes += bytes;
        if (p.routedExpert) {
            expert += p.elements;
            if (!frozen)
                expertTrainable += p.elements;
            if (p.castByAutocast)
                expertCast += p.elements;
        }
        std::size_t parameter = 0;
        if (!frozen) {
            trainable += p.elements;
            trainableBytes += bytes;
            parameter = sink.addTrainable(p.elements, bytes);
        }
        if (p.name == "weight")
            weights.add(sink.rowIndex, LayerWeight { p.elements, p.shape, !frozen, parameter });
    }
    auto& totals = sink.totals;
    totals.overflow = totals.overflow || params.isOverflow() || buffers.isOverflow()
        || paramBytes.isOverflow() || bufferBytes.isOverflow();
    sink.row.params = params.value();
    sink.row.trainableParams = trainable.value();
    sink.row.bufferElements = buffers.value();
    sink.row.experts = outcome.routedExperts;
    sink.row.expertsPerToken = outcome.expertsPerToken;
    sink.row.expertParams = expert.value();
    sink.row.expertTrainableParams = expertTrainable.value();
    sink.row.expertCastParams = expertCast.value();
    totals.trainable += trainable;
    totals.trainableBytes += trainableBytes;
    totals.params += params;
    totals.buffers += buffers;
    totals.paramBytes += paramBytes;
    totals.bufferBytes += bufferBytes;
}

std::optional<Error> applyTying(const LayerSpec& spec, const std::string& specPath,
    std::optional<std::size_t> targetRow, const WeightTable& weights, LayerOutcome& outcome,
    std::optional<std::size_t>& tiedRow)
{
    if (spec.tiedTo.empty())
        return std::nullopt;
    const std::string where = specPath + ".tied_to";
    const LayerWeight* target = targetRow ? weights.find(*targetRow) : nullptr;
    if (target == nullptr)
        return Error { where + " " + quoteForMessage(spec.tiedTo)
                + " does not name an earlier layer with a weight",
            where };
    auto& params = outcome.params;
    const auto own
        = std::find_if(params.begin(), params.end(), [](const auto& p) { return p.name == "weight"; });
    if (own == params.end())
        return Error { where + ": this layer has no weight to tie", where };
    if (!own->shape.empty() && !target->shape.empty() && own->shape != target->shape)
        return Error { where + ": this layer's weight is " + Shape { own->shape }.toString() + " but "
                + quoteForMessage(spec.tiedTo) + "'s is " + Shape { target->shape }.toString()
                + "; a tied weight must have the same shape",
            where };
    if (own->elements != target->elements)
        return Error { where + ": this layer's weight has " + std::to_string(own->elements.value())
                + " elements but " + quoteForMessage(spec.tiedTo) + "'s has "
                + std::to_string(target->elements.value()),
            where };
    params.erase(own);
    tiedRow = *targetRow;
    return std::nullopt;
}

} // namespace headroom::analysis
