// BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d in training mode.
// BatchNorm: cudnn_batch_norm / native_batch_norm keep the input plus per-channel float32 save_mean and
// save_invstd (batch-independent); weight and running statistics are parameters and buffers.
// InstanceNorm: at::instance_norm (aten/src/ATen/native/Normalization.cpp) views the input as
// [1, B x C, *] (input.contiguous(): a copy when it is not contiguous, which is then what is kept) and
// runs batch_norm over B x C channels with weight, bias and running statistics repeated B times
// (Tensor.repeat: new tensors). batch_norm keeps the input, save_mean and save_invstd (float32, B x C:
// C per sample), the repeated weight (affine) and the repeated running mean and variance
// (track_running_stats): derivatives.yaml passes weight, running_mean and running_var to
// native_batch_norm_backward / cudnn_batch_norm_backward. The repeated bias is needed only while the
// forward runs; backward computes B x C weight and bias gradients before RepeatBackward sums them.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

std::vector<AttributeSpec> normAttributes(bool instance)
{
    return { inferredAttr("num_features", "Channels"),
        floatAttr("eps", 1e-5, "Added to the variance", 0.0, 1.0),
        floatAttr("momentum", 0.1, "Running-statistics momentum", 0.0, 1.0),
        boolAttr("affine", !instance, "Learnable scale and shift per channel"),
        boolAttr("track_running_stats", !instance, "Keeps running mean and variance buffers") };
}

void addNormParameters(const Attributes& attrs, Count channels, LayerOutcome& o)
{
    if (attrs.flag("affine")) {
        o.params.push_back(parameter("weight", channels));
        o.params.push_back(parameter("bias", channels));
    }
    if (attrs.flag("track_running_stats")) {
        o.params.push_back(buffer("running_mean", channels));
        o.params.push_back(buffer("running_var", channels));
        o.params.push_back(buffer("num_batches_tracked", 1, DType::Int64));
    }
}

/// BatchNormNd (`instance` false) and InstanceNormNd (true).
class NormKind final : public DescribedKind
{
public:
    NormKind(bool instance, int spatialDims)
        : DescribedKind((instance ? "InstanceNorm" : "BatchNorm") + std::to_string(spatialDims) + "d",
            LayerCategory::Normalization,
            (instance ? "Instance normalisation (per sample and channel) over " : "Batch normalisation over ")
                + layoutText(instance, spatialDims),
            normAttributes(instance))
        , m_instance { instance }
        , m_dims { spatialDims }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        const auto rank = static_cast<std::size_t>(m_dims) + 1;
        const bool vector = !m_instance && m_dims == 1 && in.shape.rank() == 1; // BatchNorm1d on [C]
        if (in.shape.rank() != rank && !vector)
            return failure("expects a per-sample input of shape " + layoutText(m_instance, m_dims)
                + " but gets " + in.shape.toString());
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        const std::int64_t channels = in.shape.dims[0];
        if (auto e = checkInferred(ctx.attrs, "num_features", channels, "channels"))
            return *e;
        const Count c = Count::fromSigned(channels);

        LayerOutcome o;
        o.output = TensorInfo { in.shape, in.dtype };
        addNormParameters(ctx.attrs, c, o);
        o.forwardFlopsPerSample = Count { 4 } * in.shape.elements();
        if (!m_instance) {
            o.saved.push_back(SavedTensor::input());
            o.saved.push_back(SavedTensor::internal("save_mean", 0, DType::Float32, c));
            o.saved.push_back(SavedTensor::internal("save_invstd", 0, DType::Float32, c));
            return o;
        }
        const DType param = ctx.parameterType();
        o.saved.push_back(in.contiguous
                ? SavedTensor::input()
                : SavedTensor::internal("input (contiguous copy)", in.shape.elements(), in.dtype));
        o.saved.push_back(SavedTensor::internal("save_mean", c, DType::Float32));
        o.saved.push_back(SavedTensor::internal("save_invstd", c, DType::Float32));
        if (ctx.attrs.flag("affine")) {
            o.saved.push_back(SavedTensor::internal("weight repeated per sample", c, param));
            // The repeated bias lives while the forward runs; backward's per-sample weight and bias gradients
            // live until RepeatBackward sums them.
            o.forwardScratchBytesPerSample = c * Count { elementSize(param) };
            o.backwardScratchBytesPerSample = Count { 2 } * c * Count { elementSize(param) };
        }
        if (ctx.attrs.flag("track_running_stats")) {
            o.saved.push_back(SavedTensor::internal("running_mean repeated per sample", c, param));
            o.saved.push_back(SavedTensor::internal("running_var repeated per sample", c, param));
        }
        return o;
    }

private:
    static std::string layoutText(bool instance, int dims)
    {
        return !instance && dims == 1 ? "[C] or [C, L]" : std::string(spatialLayout(dims));
    }

    bool m_instance;
    int m_dims;
};

} // namespace

std::unique_ptr<LayerKind> makeBatchNorm1d()
{
    return std::make_unique<NormKind>(false, 1);
}
std::unique_ptr<LayerKind> makeBatchNorm2d()
{
    return std::make_unique<NormKind>(false, 2);
}
std::unique_ptr<LayerKind> makeBatchNorm3d()
{
    return std::make_unique<NormKind>(false, 3);
}
std::unique_ptr<LayerKind> makeInstanceNorm1d()
{
    return std::make_unique<NormKind>(true, 1);
}
std::unique_ptr<LayerKind> makeInstanceNorm2d()
{
    return std::make_unique<NormKind>(true, 2);
}
std::unique_ptr<LayerKind> makeInstanceNorm3d()
{
    return std::make_unique<NormKind>(true, 3);
}

} // namespace headroom::layers
