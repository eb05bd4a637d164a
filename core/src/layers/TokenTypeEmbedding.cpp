// TokenTypeEmbedding (BERT's token_type_embeddings): a learned type_vocab_size x D table whose row
// for segment 0 is added to every position of the input [T, D]. Hugging Face BERT looks up its
// default token_type_ids (a registered zero buffer, expanded to the batch), so the embedding keeps a
// view of that buffer: T int64 ids, batch-independent, counted as fixed bytes as PositionalEmbedding
// does. The add keeps nothing; it promotes (a half input plus the float32 table gives float32).
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class TokenTypeEmbeddingKind final : public DescribedKind
{
public:
    TokenTypeEmbeddingKind()
        : DescribedKind("TokenTypeEmbedding", LayerCategory::Embedding,
            "Learned segment vectors added to a sequence [T, D] (BERT's token type embeddings, segment 0)",
            { intAttr("num_embeddings", 2, "Segment types (rows of the table, type_vocab_size)"),
                inferredAttr("embedding_dim", "Vector size D") })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        return addedTable(ctx, ctx.attrs.integer("num_embeddings"), "token type ids");
    }
};

} // namespace

std::unique_ptr<LayerKind> makeTokenTypeEmbedding()
{
    return std::make_unique<TokenTypeEmbeddingKind>();
}

} // namespace headroom::layers
