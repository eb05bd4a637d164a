// TokenTypeEmbedding (BERT's token_type_embeddings): a learned type_vocab_size x D table whose row
// for segment 0 is added to every position of the input [T, D]. Hugging Face BERT looks up its
// default token_type_ids (a registered zero buffer, expanded to the batch), so the embedding keeps a
// view of that buffer: T int64 ids, batch-independent, counted as fixed bytes as PositionalEmbedding
// does. The add keeps nothing; it promotes (a half input plus the float32 table gives float32).
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class TokenTypeEmbeddingKind final : public DescribedKind {
public:
    TokenTypeEmbeddingKind()
        : DescribedKind("TokenTypeEmbedding", LayerCategory::Embedding,
            "Learned segment vectors added to a sequence [T, D] (BERT's token type embeddings, segment 0)",
            {intAttr("num_embeddings", 2, "Segment types (rows of the table, type_vocab_size)"),
                inferredAttr("embedding_dim", "Vector size D")})
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input [T, D] but gets " + std::string(dtypeName(in.dtype))
                + " (token ids go through an Embedding first)");
        if (auto e = expectRank(in, 2, "[T, D] (sequence, features)"))
            return *e;
        const std::int64_t dim = in.shape.dims[1];
        if (auto e = checkInferred(ctx.attrs, "embedding_dim", dim, "features (its last axis)"))
            return *e;
        LayerOutcome o;
        o.output = TensorInfo{in.shape, promote(in.dtype, ctx.parameterType())};
        o.params.push_back(
            parameter("weight", Count::fromSigned(ctx.attrs.integer("num_embeddings")) * Count::fromSigned(dim)));
        o.saved.push_back(SavedTensor::internal("token type ids", 0, DType::Int64, Count::fromSigned(in.shape.dims[0])));
        o.forwardFlopsPerSample = in.shape.elements();
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeTokenTypeEmbedding()
{
    return std::make_unique<TokenTypeEmbeddingKind>();
}

} // namespace headroom::layers
