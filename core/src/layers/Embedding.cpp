// Embedding (torch.nn.Embedding): a lookup of integer ids [*] in a num_embeddings x embedding_dim
// table, giving [*, embedding_dim]. derivatives.yaml: embedding's weight gradient is
// embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse), so only the
// indices (the input itself, usually the network input) are kept; the table is a parameter. Not on
// any autocast list: the output has the table's dtype (float32 under autocast).
//
// scale: Gemma multiplies the looked-up rows by sqrt(hidden_size) (GemmaModel's normalizer, Gemma 3's
// ScaledWordEmbedding): a multiplication by a constant tensor that needs no gradient keeps nothing, and
// the product replaces the rows, so only the forward pass briefly holds both.
#include "KindSupport.h"
#include "Kinds.h"

#include <limits>

namespace headroom::layers {
namespace {

class EmbeddingKind final : public DescribedKind
{
public:
    EmbeddingKind()
        : DescribedKind("Embedding", LayerCategory::Embedding,
            "Lookup table of learned vectors for integer ids",
            { intAttr("num_embeddings", nullptr, "Vocabulary size (rows of the table)"),
                intAttr("embedding_dim", nullptr, "Vector size"),
                [] {
                    AttributeSpec s
                        = intAttr("padding_idx", nullptr, "Id whose vector stays zero and gets no gradient",
                            std::numeric_limits<std::int32_t>::min());
                    s.optional = true;
                    s.whenOmitted = "none";
                    return s;
                }(),
                [] {
                    AttributeSpec s = floatAttr("scale", 1.0,
                        "Multiplies the looked-up vectors (Gemma: sqrt(embedding_dim)); 1 = none", 0.0, 1e9);
                    s.minFloatExclusive = true;
                    return s;
                }() })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (isFloatingPoint(in.dtype))
            return failure("needs integer token ids but gets " + std::string(dtypeName(in.dtype))
                + " values; set the network input's dtype to int64");
        if (in.dtype != DType::Int64 && in.dtype != DType::Int32)
            return failure("needs int64 or int32 token ids but gets " + std::string(dtypeName(in.dtype)));
        const std::int64_t rows = ctx.attrs.integer("num_embeddings");
        const std::int64_t dim = ctx.attrs.integer("embedding_dim");
        if (const auto padding = ctx.attrs.optionalInteger("padding_idx");
            padding && (*padding >= rows || *padding < -rows))
            return failure("padding_idx " + std::to_string(*padding) + " is outside the table's "
                + std::to_string(rows) + " rows (num_embeddings)");

        LayerOutcome o;
        o.output = TensorInfo { in.shape, ctx.activationType() };
        o.output.shape.dims.push_back(dim);
        o.params.push_back(parameter("weight", { rows, dim }));
        SavedTensor indices = SavedTensor::input();
        indices.label = "indices";
        o.saved.push_back(indices);
        o.forwardFlopsPerSample = 0; // a gather: no arithmetic
        if (ctx.attrs.real("scale") != 1.0) {
            const Count rowsOut = o.output.shape.elements();
            o.forwardFlopsPerSample = rowsOut;
            o.forwardScratchBytesPerSample
                = rowsOut * Count { elementSize(o.output.dtype) }; // the unscaled rows
        }
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeEmbedding()
{
    return std::make_unique<EmbeddingKind>();
}

} // namespace headroom::layers
