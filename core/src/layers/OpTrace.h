#pragma once

// A small model of the PyTorch ops inside a composite layer (MultiheadAttention,
// TransformerEncoderLayer): which tensors each op keeps for backward, in which dtype, and which of
// them share one storage, so that a tensor kept by two ops counts once. Each op follows
// tools/autograd/derivatives.yaml; the autocast casts follow aten/src/ATen/autocast_mode.cpp.

#include "headroom/layers/LayerKind.h"

#include <optional>
#include <string>
#include <vector>

namespace headroom::layers {

class OpTrace final
{
public:
    /// A tensor inside the layer: the storage it lives in and what it holds per sample.
    struct Tensor
    {
        std::size_t storage = 0;
        DType dtype = DType::Float32;
        Count elements; ///< per sample
    };

    explicit OpTrace(const LayerContext& ctx);

    /// The layer's input `index` as the layer receives it (a Custom kind sees raw inputs).
    [[nodiscard]] Tensor input(std::size_t index = 0) const;
    /// A tensor the forward pass creates; not kept unless keep() is called on it.
    [[nodiscard]] Tensor create(std::string label, Count perSample, DType dtype);
    /// A view of `t` (a slice, a reshape): same storage, its own size.
    [[nodiscard]] static Tensor view(const Tensor& t, Count perSample)
    {
        return Tensor { t.storage, t.dtype, perSample };
    }
    /// Marks a tensor's storage as kept for backward (once, however many ops keep it).
    void keep(const Tensor& t);
    /// Marks a tensor's storage as kept only for the weight gradient of the inner Linear module
    /// `module` (SavedTensor::onlyForInnerWeights); keep() by any other op makes it unconditional.
    void keepForWeightOf(const Tensor& t, const std::string& module);
    /// Keeps a batch-independent tensor (a few int64 position ids).
    void keepFixed(std::string label, Count elements, DType dtype);

    [[nodiscard]] Precision precision() const noexcept { return m_ctx.precision; }
    [[nodiscard]] bool autocast() const noexcept { return isAutocast(m_ctx.precision); }
    /// Autocast's lower_precision_fp ops (linear, bmm, scaled_dot_product_attention): a floating
    /// tensor not already in the half type becomes a new half copy (activations are not cached).
    [[nodiscard]] Tensor toLowerPrecision(const Tensor& t, const std::string& what);
    /// Autocast's fp32 ops (layer_norm, softmax): a half tensor becomes a new float32 copy.
    [[nodiscard]] Tensor toFloat32(const Tensor& t, const std::string& what);

    /// F.linear: keeps its (autocast-cast) input; the weight is a parameter. Output `outPerSample`.
    [[nodiscard]] Tensor linear(const Tensor& x, Count outPerSample, const std::string& name);
    /// native_layer_norm over `rows` rows: keeps its input and a float32 mean and rstd per row.
    [[nodiscard]] Tensor layerNorm(const Tensor& x, Count rows, const std::string& name);
    /// Training-mode F.dropout on CUDA: p = 0 returns x itself; 0 < p < 1 is native_dropout, which
    /// keeps a bool mask; p = 1 multiplies by a 0-dim zero (nothing per sample is kept).
    [[nodiscard]] Tensor dropout(const Tensor& x, double p, const std::string& name);
    /// relu keeps its result (threshold_backward(grad, result, 0)).
    [[nodiscard]] Tensor relu(const Tensor& x, const std::string& name);
    /// gelu keeps its input (gelu_backward(grad, self, approximate)).
    [[nodiscard]] Tensor gelu(const Tensor& x, const std::string& name);
    /// add keeps nothing; the result has the promoted dtype (float32 + half -> float32).
    [[nodiscard]] Tensor add(const Tensor& a, const Tensor& b, const std::string& name);

    /// The kept tensors as the analysis wants them: the layer's inputs and output by reference,
    /// everything else as internal buffers.
    [[nodiscard]] std::vector<SavedTensor> saved(const Tensor& output) const;

private:
    struct Storage
    {
        std::string label;
        Count perSample;
        Count fixed;
        DType dtype = DType::Float32;
        std::optional<std::size_t> inputIndex;
        bool unconditional = false; ///< kept by an op that needs it whatever trains
        std::vector<std::string> forWeightOf; ///< else: the inner modules whose weight gradients need it
    };
    void markKept(std::size_t storage);

    const LayerContext& m_ctx;
    std::vector<Storage> m_storages;
    std::vector<std::size_t> m_kept; ///< storage indices, in the order they were first kept
};

} // namespace headroom::layers
