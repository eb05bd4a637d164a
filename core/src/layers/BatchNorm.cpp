// BatchNorm1d and BatchNorm2d in training mode: saves its input plus per-channel float32
// save_mean and save_invstd (cudnn_batch_norm / native_batch_norm).
#include "Kinds.h"
#include "KindSupport.h"

namespace headroom::layers {
namespace {

class BatchNormKind final : public DescribedKind {
public:
    explicit BatchNormKind(int spatialDims)
        : DescribedKind(spatialDims == 1 ? "BatchNorm1d" : "BatchNorm2d", LayerCategory::Normalization,
                        spatialDims == 1 ? "Batch normalisation over [C] or [C, L]"
                                         : "Batch normalisation over [C, H, W]",
                        {inferredAttr("num_features", "Channels"),
                         floatAttr("eps", 1e-5, "Added to the variance", 0.0, 1.0),
                         floatAttr("momentum", 0.1, "Running-statistics momentum", 0.0, 1.0),
                         boolAttr("affine", true, "Learnable scale and shift"),
                         boolAttr("track_running_stats", true, "Keeps running mean and variance buffers")}),
          m_dims{spatialDims}
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        const bool rankOk = m_dims == 1 ? (in.shape.rank() == 1 || in.shape.rank() == 2) : in.shape.rank() == 3;
        if (!rankOk)
            return failure(std::string("expects a per-sample input of shape ")
                           + (m_dims == 1 ? "[C] or [C, L]" : "[C, H, W]") + " but gets " + in.shape.toString());
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        const std::int64_t channels = in.shape.dims[0];
        if (auto e = checkInferred(ctx.attrs, "num_features", channels, "channels"))
            return *e;
        const Count c = Count::fromSigned(channels);

        LayerOutcome o;
        o.output = in;
        if (ctx.attrs.flag("affine")) {
            o.params.push_back(parameter("weight", c));
            o.params.push_back(parameter("bias", c));
        }
        if (ctx.attrs.flag("track_running_stats")) {
            o.params.push_back(buffer("running_mean", c));
            o.params.push_back(buffer("running_var", c));
            o.params.push_back(buffer("num_batches_tracked", 1, DType::Int64));
        }
        o.saved.push_back(SavedTensor::input());
        o.saved.push_back(SavedTensor::internal("save_mean", 0, DType::Float32, c));
        o.saved.push_back(SavedTensor::internal("save_invstd", 0, DType::Float32, c));
        o.forwardFlopsPerSample = Count{4} * in.shape.elements();
        return o;
    }

private:
    int m_dims;
};

} // namespace

std::unique_ptr<LayerKind> makeBatchNorm1d() { return std::make_unique<BatchNormKind>(1); }
std::unique_ptr<LayerKind> makeBatchNorm2d() { return std::make_unique<BatchNormKind>(2); }

} // namespace headroom::layers
