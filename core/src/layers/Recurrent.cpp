// LSTM and GRU (torch.nn.LSTM / torch.nn.GRU) on [T, input_size] -> [T, D x hidden_size], D = 2 if
// bidirectional, trained on CUDA through cuDNN: nn.LSTM.forward -> _VF.lstm -> _cudnn_rnn, one call
// for all layers and directions.
//
// What is kept for backward. derivatives.yaml _cudnn_rnn: "input, hx, cx, weight:
// _cudnn_rnn_backward(input, weight, weight_stride0, result4, hx, cx, result0, ..., result3, ...)":
//   input    the layer input (shared with its producer; a float16 copy under autocast)
//   hx, cx   the initial states nn.LSTM creates as zeros, [L x D, B, H] each (GRU: hx only)
//   result0  the output [T, B, D x H] (this layer's output)
//   result3  cuDNN's training reserve space (below)
//   weight, result4 (the flat weight buffer) are the parameters themselves in fp32; under autocast
//            they are a fresh float16 flat copy, counted as the autocast weight copy (castByAutocast).
// The dropout state (cudnnDropoutGetStatesSize bytes, uint8): _cudnn_impl passes
// get_dropout_state(dropout_p, train, ...).buffer to _cudnn_rnn, and derivatives.yaml saves it
// (dropout_state) for _cudnn_rnn_backward. get_dropout_state creates it on the first call with
// train && dropout_p > 0 (num_layers 1 included) and caches it per device for the process (see below).
// cuDNN's workspace (cudnnGetRNNTempSpaceSizes' workSpaceSize, allocated by _cudnn_rnn and
// _cudnn_rnn_backward through the caching allocator and freed when they return) is not a saved tensor but is
// alive while they run: its size is not documented either. Counted as scratch of the forward and of the
// backward (issue 23), erring high: the input projections of every step for all gates at once, T x D x gates
// x H elements per sample (gates: 4 LSTM, 3 GRU), which cuDNN's standard algorithm computes up front as one
// GEMM per layer and which a workspace must at least hold once; a real workspace may be smaller.
//
// Reserve space (cudnnGetRNNTrainingReserveSize / cudnnGetRNNTempSpaceSizes). NVIDIA does not
// document its size. The model used here, per sample, in elements of the RNN's dtype:
//   LSTM: T x D x H x (6 L - 1)   per layer and step: 4 gate activations + cell state + hidden state,
//                                 except the last layer's hidden states, which are the output y
//   GRU:  T x D x H x (7 L - 1)   per layer and step: 6 H of gate terms (r and z, W x + b and R h + b
//                                 of the candidate, ...) + hidden state, again minus the last layer's
// Sources, which agree: (1) the layout of a public cuDNN-compatible reimplementation
// (CuRnnReserveSpace: hidden states of layers 0..L-2, cell states and 4 gates per layer for LSTM,
// 6 H per layer for GRU, rounded up to 4 elements); (2) the reserve sizes cuDNN itself reported in
// pytorch/pytorch#2895 for a 4-layer network with input 123 and hidden 320 (whose parameter counts,
// 3,034,880 and 2,276,160, pin the shapes): LSTM 736,000,000 bytes and GRU 864,000,000 bytes, in the
// ratio 23 : 27 = (6 x 4 - 1) : (7 x 4 - 1), and both exactly that factor x H 320 x 4 bytes x 25,000
// (T x B, which the issue does not state but which is the same for both runs).
// (3) Measured on an H100 with PyTorch 2.11 and cuDNN 9.19 (saved_tensors_hooks on the reserve tensor
// result3, GRU and LSTM, L 1-3, D 1-2, T 7 and 64, H 100 and 256, dropout 0 and 0.1, batches 2 and 4:
// tests/data/onnx/random/rnn_cuda_h100.json): the reserve is a uint8 tensor (RNN.cpp: at::empty of
// reserve_size bytes, kByte) of exactly
//   B x T x D x H x (6 L - 1 or 7 L - 1) x the dtype's size + 256 bytes
// with dropout 0; with inter-layer dropout (dropout > 0, num_layers > 1), applied inside cuDNN, it also
// holds the mask, one bit per element of each inner layer's input [T, B, D x H] for each of the D
// directions reading it, each rounded up to 32 bytes:
//   + (L - 1) x D x roundUp(T x B x D x H / 8, 32) bytes.
// All 160 runs (80 configurations x 2 batches) match this to the byte. Counted: the per-sample part
// and the 256 fixed bytes; the mask's rounding (under 32 bytes per inner layer and direction, depending
// on the batch) is not.
// The dropout state: 6,488,064 bytes on that H100 in every run after the first one with dropout (the
// cache above), whatever the run's own dropout; the same fixed 6,488,320 = 6,488,064 + 256 bytes in
// tests/data/torch2/measured.json's gru_cls and lstm_cls (dropout 0.1), 256 in their "_nodrop" forms.
// cudnnDropoutGetStatesSize is not documented either; 6,488,064 = 132 SMs x 1,024 x 48 bytes (one
// 48-byte curandState per thread of H100 SXM's 132 multiprocessors), so other GPUs are likely to hold
// their SM count's share of it. Counted with the H100's figure, batch-independent, for every LSTM/GRU
// with dropout > 0 in training: a network with several such modules shares one state, which is then
// counted more than once (erring high); a dropout-free RNN after one with dropout saves the same state
// too, which is not counted.
//
// Under autocast the cuDNN RNN runs in float16 even for bfloat16 autocast
// (aten/src/ATen/cudnn/AutocastRNN.cpp _cudnn_rnn_cast_reflatten casts input, hx, cx and the flat
// weights to at::kHalf); a pure half model runs in its own half type.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

enum class Cell { Lstm, Gru };

constexpr std::int64_t kMaxLayers = 10'000;
/// The reserve's batch-independent part, measured on an H100 (see above).
constexpr std::uint64_t kReserveFixedBytes = 256;
/// cudnnDropoutGetStatesSize on an H100 (132 SMs) with cuDNN 9.19 (see above).
constexpr std::uint64_t kDropoutStateBytes = 6'488'064;

class RecurrentKind final : public DescribedKind
{
public:
    explicit RecurrentKind(Cell cell)
        : DescribedKind(cell == Cell::Lstm ? "LSTM" : "GRU", LayerCategory::Recurrent,
            cell == Cell::Lstm ? "Long short-term memory over a sequence [T, features]"
                               : "Gated recurrent unit over a sequence [T, features]",
            attributesOf(cell))
        , m_cell { cell }
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Custom; }
    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Own; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input but gets " + std::string(dtypeName(in.dtype))
                + " (token ids go through an Embedding first)");
        if (auto e = expectRank(in, 2, "[T, input_size] (sequence, features)"))
            return *e;
        const auto batchAxis = sequenceBatchAxis(ctx);
        if (!batchAxis)
            return batchAxis.error();
        const std::int64_t inputSize = in.shape.dims[1];
        if (auto e = checkInferred(ctx.attrs, "input_size", inputSize, "features (its last axis)"))
            return *e;
        if (m_cell == Cell::Lstm && ctx.attrs.integer("proj_size") != 0)
            return failure("proj_size " + std::to_string(ctx.attrs.integer("proj_size"))
                + " is not supported (cuDNN's reserve space for LSTM projections is not modelled); "
                  "use proj_size 0");
        const DType type = rnnType(ctx.precision);
        if (!isAutocast(ctx.precision) && in.dtype != type)
            return failure("needs a " + std::string(dtypeName(type)) + " input to match its weights but gets "
                + std::string(dtypeName(in.dtype)));

        const std::int64_t hidden = ctx.attrs.integer("hidden_size");
        const std::int64_t directions = ctx.attrs.flag("bidirectional") ? 2 : 1;
        const Count gates { m_cell == Cell::Lstm ? 4U : 3U };
        const Count t = Count::fromSigned(in.shape.dims[0]);
        const Count h = Count::fromSigned(hidden);
        const Count d = Count::fromSigned(directions);

        LayerOutcome o;
        o.output = TensorInfo { Shape { { in.shape.dims[0], directions * hidden } }, type };
        // _cudnn_rnn computes [T, B, H] and returns output.transpose(0, 1) when batch_first. Without
        // batch_first a sequence-first input gives the [T, B, H] output itself.
        o.output.contiguous = !ctx.attrs.flag("batch_first");
        o.output.batchAxis = batchAxis.value();
        const Count flops = addWeights(o, ctx, inputSize);
        addSaved(o, ctx, type);
        // cuDNN's workspace while the forward and the backward run (see above: an upper estimate).
        const Count workspace = t * d * gates * h * Count { elementSize(type) };
        o.forwardScratchBytesPerSample = workspace;
        o.backwardScratchBytesPerSample = workspace;
        o.forwardFlopsPerSample = flops;
        return o;
    }

private:
    /// Each layer's and direction's weights and biases (cast by autocast); returns the forward FLOPs.
    Count addWeights(LayerOutcome& o, const LayerContext& ctx, std::int64_t inputSize) const
    {
        const std::int64_t layers = ctx.attrs.integer("num_layers");
        const std::int64_t directions = ctx.attrs.flag("bidirectional") ? 2 : 1;
        const bool bias = ctx.attrs.flag("bias");
        const Count gates { m_cell == Cell::Lstm ? 4U : 3U };
        const Count t = Count::fromSigned(ctx.in().shape.dims[0]);
        const Count h = Count::fromSigned(ctx.attrs.integer("hidden_size"));
        const Count d = Count::fromSigned(directions);
        Count flops;
        for (std::int64_t k = 0; k < layers; ++k) {
            const Count layerInput = k == 0 ? Count::fromSigned(inputSize) : d * h;
            for (std::int64_t dir = 0; dir < directions; ++dir) {
                const std::string suffix = "_l" + std::to_string(k) + (dir == 1 ? "_reverse" : "");
                o.params.push_back(castable(parameter("weight_ih" + suffix, gates * h * layerInput)));
                o.params.push_back(castable(parameter("weight_hh" + suffix, gates * h * h)));
                if (bias) {
                    o.params.push_back(castable(parameter("bias_ih" + suffix, gates * h)));
                    o.params.push_back(castable(parameter("bias_hh" + suffix, gates * h)));
                }
                flops += Count { 2 } * gates * h * (layerInput + h) * t;
            }
        }
        return flops;
    }

    /// The input (or its copy in the RNN's dtype), the output, the initial states, cuDNN's reserve and the
    /// inter-layer dropout masks.
    void addSaved(LayerOutcome& o, const LayerContext& ctx, DType type) const
    {
        const auto& in = ctx.in();
        const std::int64_t layers = ctx.attrs.integer("num_layers");
        const double dropout = ctx.attrs.real("dropout");
        const Count t = Count::fromSigned(in.shape.dims[0]);
        const Count h = Count::fromSigned(ctx.attrs.integer("hidden_size"));
        const Count d = Count::fromSigned(ctx.attrs.flag("bidirectional") ? 2 : 1);
        const Count l = Count::fromSigned(layers);
        if (in.dtype == type) {
            o.saved.push_back(SavedTensor::input());
        } else {
            o.saved.push_back(SavedTensor::internal(
                "input (" + std::string(dtypeName(type)) + " copy)", in.shape.elements(), type));
        }
        o.saved.push_back(SavedTensor::output());
        const Count states = l * d * h;
        o.saved.push_back(SavedTensor::internal("h_0 (zeros)", states, type));
        if (m_cell == Cell::Lstm)
            o.saved.push_back(SavedTensor::internal("c_0 (zeros)", states, type));
        // 6 L - 1 (LSTM) or 7 L - 1 (GRU) hidden-size vectors per step and direction, and 256 bytes
        // per call; a uint8 tensor (see above).
        const Count perLayer { m_cell == Cell::Lstm ? 6U : 7U };
        o.saved.push_back(SavedTensor::internal("cuDNN reserve (gates and states)",
            t * d * h * reserveVectors(perLayer, layers) * Count { elementSize(type) }, DType::UInt8,
            Count { kReserveFixedBytes }));
        if (dropout > 0.0) // cuDNN's random states, one per device, created by the first call with dropout
            o.saved.push_back(SavedTensor::internal(
                "cuDNN dropout state (once per GPU)", Count {}, DType::UInt8, Count { kDropoutStateBytes }));
        // One bit per element of each inner layer's input [T, D x H] and each direction reading it.
        if (dropout > 0.0 && layers > 1) {
            const Count bits = Count::fromSigned(layers - 1) * t * d * d * h;
            o.saved.push_back(SavedTensor::internal("inter-layer dropout mask (1 bit per element)",
                bits.isOverflow() ? bits : Count { (bits.value() + 7) / 8 }, DType::UInt8));
        }
    }

    /// perLayer x L - 1, the number of H-sized vectors per step and direction in the reserve.
    static Count reserveVectors(Count perLayer, std::int64_t layers)
    {
        const Count all = perLayer * Count::fromSigned(layers);
        return all.isOverflow() || all.value() == 0 ? Count::overflowed() : Count { all.value() - 1 };
    }

    /// The dtype cuDNN runs in: float16 under either autocast (AutocastRNN.cpp hardcodes kHalf),
    /// the half type of a pure half model, else float32.
    static DType rnnType(Precision p) noexcept
    {
        if (isAutocast(p))
            return DType::Float16;
        return parameterType(p);
    }

    static ParamTensor castable(ParamTensor p)
    {
        p.castByAutocast = true;
        return p;
    }

    static std::vector<AttributeSpec> attributesOf(Cell cell)
    {
        std::vector<AttributeSpec> attrs {
            inferredAttr("input_size", "Input features"),
            intAttr("hidden_size", nullptr, "Features of the hidden state"),
            [] {
                AttributeSpec s = intAttr("num_layers", 1, "Stacked recurrent layers");
                s.maxInt = kMaxLayers; // one parameter group per layer and direction
                return s;
            }(),
            boolAttr("bias", true, "Biases b_ih and b_hh"),
            boolAttr("batch_first", false,
                "Batch axis first: the output is a transposed view, which a following Linear or Flatten "
                "copies"),
            floatAttr("dropout", 0.0, "Dropout between stacked layers", 0.0, 1.0),
            boolAttr(
                "bidirectional", false, "Also runs the sequence backwards (doubles the output features)"),
        };
        if (cell == Cell::Lstm)
            attrs.push_back(
                intAttr("proj_size", 0, "Projection size of the hidden state (only 0 is supported)", 0));
        return attrs;
    }

    Cell m_cell;
};

} // namespace

std::unique_ptr<LayerKind> makeLSTM()
{
    return std::make_unique<RecurrentKind>(Cell::Lstm);
}
std::unique_ptr<LayerKind> makeGRU()
{
    return std::make_unique<RecurrentKind>(Cell::Gru);
}

} // namespace headroom::layers
