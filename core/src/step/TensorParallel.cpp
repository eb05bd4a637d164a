#include "step/TensorParallel.h"

#include "headroom/layers/LayerRegistry.h"

namespace headroom {

bool splitByTensorParallel(const LayerRow& row) noexcept
{
    const LayerKind* kind = LayerRegistry::builtin().find(row.type);
    if (kind == nullptr) // a Repeat header or the loss
        return false;
    const LayerCategory category = kind->category();
    return category == LayerCategory::Linear || category == LayerCategory::Attention
        || category == LayerCategory::Embedding;
}

bool splitBySequenceParallel(const LayerRow& row) noexcept
{
    const LayerKind* kind = LayerRegistry::builtin().find(row.type);
    if (kind == nullptr)
        return false;
    const LayerCategory category = kind->category();
    return category != LayerCategory::Convolution && category != LayerCategory::Recurrent
        && category != LayerCategory::Pooling;
}

} // namespace headroom
