// PositionalEmbedding (Headroom's own; GPT-2's wpe, BERT's position_embeddings): a learned
// num_embeddings x D table whose first T rows are added to the input [T, D]:
//   x + wpe(torch.arange(T))
// The add keeps nothing (derivatives.yaml add: the gradient passes through). The lookup is an
// embedding, which keeps its indices: the T int64 position ids, the same for every sample, so they
// are counted as fixed (batch-independent) bytes. (An implementation that slices the table,
// x + weight[:T], keeps nothing at all; BERT keeps a view of its position_ids buffer; the difference
// is 8 T bytes once, never per sample.) Not on any autocast list: the add promotes, so a half input
// plus the float32 table gives float32 under autocast.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class PositionalEmbeddingKind final : public DescribedKind
{
public:
    PositionalEmbeddingKind()
        : DescribedKind("PositionalEmbedding", LayerCategory::Embedding,
            "Learned position vectors added to a sequence [T, D]",
            { intAttr("num_embeddings", nullptr, "Maximum sequence length (rows of the table)"),
                inferredAttr("embedding_dim", "Vector size D") })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const std::int64_t positions = ctx.attrs.integer("num_embeddings");
        auto outcome = addedTable(ctx, positions, "position ids");
        if (!outcome)
            return outcome;
        const std::int64_t length = ctx.in().shape.dims[0];
        if (length > positions)
            return failure("the sequence has " + std::to_string(length) + " positions but the table only "
                + std::to_string(positions) + " (num_embeddings)");
        return outcome;
    }
};

} // namespace

std::unique_ptr<LayerKind> makePositionalEmbedding()
{
    return std::make_unique<PositionalEmbeddingKind>();
}

} // namespace headroom::layers
