#include "CoreText.h"

#include <array>

namespace headroom::ui {

namespace {

// The English texts as the core has them (tst_translations checks this list against the layer
// registry and the enumerations, and that every entry is translated).
constexpr std::array kTexts {
    // Layer kinds: LayerKind::summary().
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "2-D average pooling over [C, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Batch normalisation over [C] or [C, L]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Batch normalisation over [C, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Concatenates inputs along an axis (torch.cat)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "1-D convolution over [C, L]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "2-D convolution over [C, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "2-D transposed convolution over [C, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Zeroes elements with probability p while training"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Drops a residual branch for whole samples with probability p while training"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Lookup table of learned vectors for integer ids"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Flattens a range of axes into one (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Gaussian error linear unit"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Gated recurrent unit over a sequence [T, features]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Group normalisation over [C, *]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Passes its input through unchanged"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Long short-term memory over a sequence [T, features]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Layer normalisation over the trailing axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x if x > 0 else negative_slope * x"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Fully connected layer on the last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "2-D max pooling over [C, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Multi-head self-attention over a sequence [T, E]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "GELU, tanh approximation written out in tensor ops (Hugging Face's gelu_new, GPT-2)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learned position vectors added to a sequence [T, D]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Root-mean-square normalisation over the last axis (Llama's RMSNorm, computed in float32)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "max(0, x)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "min(max(0, x), 6)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Multi-head attention on projected q, k, v (grouped-query, optional rotary embedding)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x * sigmoid(x) (swish)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "1 / (1 + exp(-x))"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Softmax along one axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "tanh(x)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Learned segment vectors added to a sequence [T, D] (BERT's token type embeddings, segment 0)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Self-attention and feed-forward block with residuals and LayerNorms"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "A router and gated expert MLPs, each token through its top-k experts (Mixtral, Qwen-MoE, "
        "DeepSeek-V3)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "DeepSeek-V3's attention with low-rank query and key/value projections, projections included"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "act(first half) x second half of a packed gate/up projection (Phi-3's gate_up_proj)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "cap x tanh(x / cap): soft-caps logits to (-cap, cap) (Gemma 2's final_logit_softcapping)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "1-D transposed convolution over [C, L]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "3-D convolution over [C, D, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "3-D transposed convolution over [C, D, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "1-D average pooling over [C, L]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "1-D max pooling over [C, L]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "3-D average pooling over [C, D, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "3-D max pooling over [C, D, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Average pooling of [C, D, H, W] to a fixed output size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Average pooling of [C, H, W] to a fixed output size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Average pooling of [C, L] to a fixed output size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Max pooling of [C, D, H, W] to a fixed output size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Max pooling of [C, H, W] to a fixed output size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Max pooling of [C, L] to a fixed output size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Batch normalisation over [C, D, H, W]"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Instance normalisation (per sample and channel) over [C, D, H, W]"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Instance normalisation (per sample and channel) over [C, H, W]"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Instance normalisation (per sample and channel) over [C, L]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Circular padding of the last 2 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Circular padding of the last 3 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Circular padding of the last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Constant padding of the last 2 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Constant padding of the last 3 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Constant padding of the last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Pads the last axes (F.pad)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Reflection padding of the last 2 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Reflection padding of the last 3 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Reflection padding of the last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Replication padding of the last 2 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Replication padding of the last 3 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Replication padding of the last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Zero padding of the last 2 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Zero padding of the last 3 axes"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Zero padding of the last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Elementwise difference of two operands"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Elementwise product of two operands (gates, layer scale)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Elementwise quotient of two operands"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Elementwise sum of two or more operands (residual)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Matrix product of two inputs over their last two axes (torch.matmul, bmm)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Maximum over axes (torch.amax)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Euclidean (2-)norm over axes (torch.linalg.vector_norm, Tensor.norm)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Trained values behind `parameter` when it is computed from a smaller stored tensor (Swin's "
        "relative-position bias, gathered from its table); 0 for a constant computed from sizes (a "
        "shifted-window attention mask)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "the parameter's own size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Mean over axes (torch.mean)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Sum over axes (torch.sum)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "A contiguous copy of a permuted or sliced view (Tensor.contiguous)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "A new shape: a view when the layout allows, else a copy (Tensor.reshape)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "A view with a new shape (Tensor.view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Broadcasts axes of size 1 to a larger size (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Inserts an axis of size 1 (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "One index of an axis, which is removed (x[:, 0]; a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Removes axes of size 1 (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Reorders the axes (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Splits one axis into several (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Swaps two axes (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "length elements of one axis from start (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x[..., start:end:step] along one axis (a view)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Resizes the spatial axes (nn.Upsample, F.interpolate)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Resizes the spatial axes, bilinear (2-D)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Resizes the spatial axes, nearest (2-D)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "[C r^2, H, W] to [C, H r, W r] (sub-pixel convolution)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "[C, H r, W r] to [C r^2, H, W]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "-x"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Square root"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "e ** x"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "log(1 + exp(beta x)) / beta"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "log(sigmoid(x))"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "max(0, x) + min(0, alpha (exp(x / alpha) - 1))"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "min(max(x, min), max) (torch.clamp)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "min(max(x, min_val), max_val)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "relu6(x + 3) / 6"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "scale x if x > 0 else scale alpha (exp(x) - 1), fixed constants"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x * relu6(x + 3) / 6 (MobileNetV3)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x * tanh(softplus(x))"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x ** exponent"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x if x > 0 else alpha (exp(x) - 1)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "x if x > 0 else weight * x (a learned slope)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "|x|"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "An operator Headroom does not model: keeps its inputs, makes one new tensor"),
    // Attributes: AttributeSpec::help.
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Window size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Stride (kernel_size if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Implicit zero padding"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Rounds the output size up"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Averages over padding too"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Divisor instead of the window size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Channels (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Added to the variance"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Running-statistics momentum"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Keeps running mean and variance buffers"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Axis, counting the batch axis as 0 (1 = channels)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Input channels (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Output channels"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Kernel size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Stride"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Spacing between kernel elements"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Blocked connections from input to output channels"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Adds a learnable bias"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Implicit zero padding removed from each side"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Extra size added to one side of the output"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Probability of zeroing an element"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Overwrites the input"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Probability of dropping a sample's branch"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "row: each sample on its own; batch: the whole batch at once"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Vocabulary size (rows of the table)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Vector size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Id whose vector stays zero and gets no gradient"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "First axis to flatten, counting the batch axis as 0"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Last axis to flatten (negative counts from the end)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Exact erf form or the tanh approximation"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Input features (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Features of the hidden state"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Stacked recurrent layers"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Biases b_ih and b_hh"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Batch axis first: the output is a transposed view, which a following Linear or Flatten copies"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Dropout between stacked layers"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Also runs the sequence backwards (doubles the output features)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Groups the channels are split into"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learnable per-channel scale and shift"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Projection size of the hidden state (only 0 is supported)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Trailing axes to normalise (the last axis if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learnable per-element scale (and shift)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learnable shift (with elementwise_affine)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Slope for negative inputs"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Overwrites the input instead of allocating an output"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Output features"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Implicit negative-infinity padding"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Spacing between window elements"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Also returns the indices (they are kept anyway)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Embedding size E (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Attention heads (must divide embed_dim)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Dropout on the attention probabilities"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Biases on the input and output projections"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learned bias rows appended to keys and values"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "A zero row appended to keys and values"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Key size (must equal embed_dim: self-attention) (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Value size (must equal embed_dim: self-attention) (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Batch axis first (no memory effect)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Return the attention weights: the explicit path that keeps heads x T x T probabilities; false uses "
        "fused scaled-dot-product attention"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Causal mask hint (no memory effect)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Average the returned weights over heads (no memory effect)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Maximum sequence length (rows of the table)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Vector size D (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Normalised size (the input's last axis) (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Added to the mean square"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learnable per-element scale"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Query heads h"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Key/value heads g (grouped-query attention; must divide num_heads; default num_heads)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Rotary position embedding applied to q and k (Llama)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Eager softmax in float32 then cast back (Llama's softmax(dtype=float32)); false: in the scores' "
        "dtype (GPT-2, BERT)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Causal mask (no memory effect)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Axis, counting the batch axis as 0 (negative counts from the end)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Segment types (rows of the table, type_vocab_size)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Model width (the input's last axis) (inferred from the input if left out)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Attention heads (must divide d_model)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Feed-forward width"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Dropout probability (attention, residual branches, feed-forward)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Feed-forward activation"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "LayerNorm epsilon"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "LayerNorm before attention and feed-forward (pre-norm)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Biases in the linear layers and LayerNorms"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Applied to the first half (the gate)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Biases on q_a_proj, kv_a_proj_with_mqa and o_proj"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Each expert's MLP width F"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Experts each token is routed to (top-k)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Gemma 2's attn_logit_softcapping: scores become cap x tanh(scores / cap) before the softmax (eager "
        "attention keeps the tanh); 0 = none"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Heads h"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Mixtral's router_jitter_noise: multiplies the input by uniform noise in training"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Multiplies the looked-up vectors (Gemma: sqrt(embedding_dim)); 1 = none"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Normalise each group of this many features on its own (per-head q/k norms: head_dim); the weight "
        "has this size"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Query/key head size with rotary embedding (shared by the heads for keys)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Query/key head size without rotary embedding"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Rank of the compressed keys and values (kv_a_proj_with_mqa)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Rank of the query projection (q_a_proj, q_b_proj); 0: one q_proj"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Renormalise the top-k routing weights to sum to 1"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Routed experts E (each a gated MLP)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Scale by 1 + weight in float32 and return the input's dtype (Gemma's RMSNorm)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The RMSNorms' epsilon"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The bound the values approach"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The experts' activation (on the gate projection)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "The experts' projection names (LoRA targets): Qwen and DeepSeek's, or Mixtral's"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Value head size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "softmax: softmax over all experts, then top-k (Mixtral, Qwen-MoE); sigmoid: float32 sigmoid scores, "
        "bias-corrected group-limited top-k (DeepSeek-V3)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "eager: a loop over the experts with index_add_ (transformers 4.5x, or "
        "experts_implementation=\"eager\"); grouped_mm: one grouped product over all assignments in the "
        "weights' dtype (transformers 5's default on CUDA)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "A constant used as the last operand (x / 8)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Above beta x > threshold the function is linear"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Aligns the corner pixels (interpolating modes)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Axes to reduce, counting the batch axis as 0 (negative counts from the end)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Axis (counting the batch axis as 0)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Axis to remove (counting the batch axis as 0)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Axis to split (counting the batch axis as 0)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Before and after each padded axis, last axis first: [left, right, top, bottom]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "End index, excluded (negative counts from the end)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Fill value"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Fill value (constant mode)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "First axis (counting the batch axis as 0)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "First index (negative counts from the end)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "How the padding is filled"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "How the padding is filled (other than zeros: a padded copy is made first)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Index (negative counts from the end)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Initial slope"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Interpolation"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Keeps the reduced axes with size 1"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learnable scale and shift per channel"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Learned slopes: 1, or one per channel"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Lower bound"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Multiplier of every spatial axis (the output is floor(input x scale_factor))"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Number of elements"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Only zeros: PyTorch's transposed convolutions support no other"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Output size"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Output size of the spatial axes (one size for all, or one per axis)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Padding on each side"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Padding on every side, or [left, right, top, bottom, front, back]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Padding on every side, or [left, right, top, bottom]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Padding on every side, or [left, right]"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Position of the new axis (counting the batch axis as 0)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "Recomputes the scale from the output size (sizes are the same)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Scale of the negative side (not 0)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Second axis (counting the batch axis as 0)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Shape of a learned tensor put before the inputs, per sample (no batch axis): [1, 768] for a class "
        "token"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Shape of a learned tensor used as the next operand, per sample (no batch axis): [384] for a layer "
        "scale, [197, 384] for a position table, [C, 1, 1] per channel"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Sharpness"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Step"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The factor r"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "The new order of the axes, counting the batch axis as 0: [0, 2, 3, 1] for channels last, [1, 0, 2] "
        "for sequence-first"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "The new shape of one sample (no batch axis); -1 keeps an axis"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "The new shape of one sample (no batch axis); one -1 is inferred"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The power (a number)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The sizes it splits into; one -1 is inferred"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Upper bound"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Value the negative side approaches"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "\"float\": the type of its floating-point inputs (or the parameter type), following the precision; "
        "otherwise a fixed element type"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Keeps every input for backward (the assumption)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The operator's name, shown in the warning"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "The output's shape per sample (without the batch axis)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Trainable parameter elements the operator holds"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Why no exact layer models it"),
    // Attributes: AttributeSpec::whenOmitted.
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "the whole last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "kernel_size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "the window size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "from the input"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "none"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "the last axis"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "num_heads"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "every axis of size 1"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "where the input has it"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Where the batch axis goes among the result's axes; the values of each sample before it must be as "
        "many "
        "as before the input's"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "false"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "from scale_factor"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "from size"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "the end of the axis"),
    // The core's names of its enumerations (the PDF report prints them).
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Weights"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Gradients"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Optimizer state"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Activations"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Input batch"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Transient"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Communication buffers"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Calibration (measured excess)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Framework overhead"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "SGD"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "SGD with momentum"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "SGD with Nesterov momentum"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Adam"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "AdamW"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Adam (AMSGrad)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "RMSprop"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "RMSprop with momentum"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "RMSprop (centered, momentum)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Adagrad"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Adadelta"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Adamax"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "FP32"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Mixed precision (FP16 autocast)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Mixed precision (BF16 autocast)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Pure FP16 (FP32 master weights)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Pure BF16 (FP32 master weights)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "None"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Per block"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Selective (attention scores)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Flash / SDPA"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Eager (keeps T x T scores)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "DDP (no sharding)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "ZeRO stage 1"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "ZeRO stage 2"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "ZeRO stage 3"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "FSDP shard grad/op"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "FSDP full shard"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "GPipe"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "1F1B"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Interleaved 1F1B"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Zero bubble (ZB-H1)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Ring attention"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "All-to-all (Ulysses)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Checkpoints"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "All saved activations"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Foreach (PyTorch default)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Fused"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "For-loop"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Forward"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Backward"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Optimizer step"),
    // Measured runs (issue 36): runFileKindLabel, runComponentLabel, and the notes of a run and its
    // comparison that hold no figures (those with figures stay English).
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "memory snapshot (pickle)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "memory snapshot (JSON)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "memory snapshot (memory_viz page)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "profiler memory timeline"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "profiler Chrome trace"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Activations (+input)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Workspaces"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Temporaries"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "Unattributed"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "the frames did not show the steps: found by the allocation pattern"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "a memory timeline counts the tensors the profiler saw (no block rounding, no cached memory): "
        "reserved bytes are not known"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "the trace has memory events for the CPU only: profile a CUDA run with "
        "activities=[ProfilerActivity.CUDA] and profile_memory=True"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "no trace for any device: only the state at the snapshot's moment is known (record with "
        "torch.cuda.memory._record_memory_history() before the steps)"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "no segments: the allocator's state at the snapshot is unknown"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText", "no device_traces: the memory history was not recorded"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "no allocator_settings (files before PyTorch 2.4 lack them): the allocator's defaults are assumed"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "trace entries without time_us (PyTorch before 2.1): times are the entries' order"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "With gradient accumulation the plan's micro-batches share the forward and backward intervals of the "
        "chart."),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "The run shows only its first step: the steady step is compared with it."),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "The run's steady step lacks a phase: the phases found are compared."),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "The plan has no allocation trace: the run's blocks are not attributed."),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "The run's components are the profiler's categories at its peak."),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "The run's file shows no blocks: its memory is not split by component."),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "No calibration is proposed: the run's bytes are not absolute."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "No calibration is proposed: the run shows no steady training step to read it from."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "a raw memory timeline (one event per tensor): its events were added up per category, as "
        "export_memory_timeline does"),
    // Throughput caveats: ThroughputEstimate::noteTemplates.
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "%1 runs fp16 at %2 of its fp32 rate; mixed precision will be slower than fp32 on this card"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Assumes %1 of the %2 peak (model FLOPs utilisation); large transformer training typically reaches "
        "30-50%, small CNNs less"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Memory-bound: moving the step's weights, gradients, optimizer state and activations at %1 GB/s "
        "takes longer than its arithmetic"),
    QT_TRANSLATE_NOOP(
        "headroom::ui::CoreText", "%1 has no memory bandwidth figure: the memory-bound check is skipped"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "fp32 uses the plain FP32 peak; PyTorch lets cuDNN use TF32 for convolutions by default on this "
        "card, so convolution-heavy fp32 training may run faster"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "%1 has no GPU-to-GPU bandwidth figure: assumes PCIe %2 x16, %3 GB/s each way"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between the GPUs "
        "of a node and %4 GB/s per GPU between nodes (peak bandwidth: no congestion or protocol overhead)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between GPUs "
        "(peak bandwidth: no congestion or protocol overhead)"),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "The network does no arithmetic and moves no memory: no throughput to estimate"), // The presets'
                                                                                          // descriptions
                                                                                          // (resources/presets/*.json),
                                                                                          // which the report
                                                                                          // prints under its
                                                                                          // title.
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "torchvision's AlexNet (torchvision.models.alexnet, the \"one weird trick\" single-GPU variant of "
        "Krizhevsky et al. 2012) for 224x224 ImageNet images: 61,100,840 parameters."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "A BERT-base-style encoder (Devlin et al. 2018; 12 post-norm blocks, d=768, 12 heads, 512 tokens) "
        "built from PyTorch TransformerEncoderLayers, ending in a token-level output layer tied to the word "
        "embedding, 108,920,634 parameters: unlike Hugging Face's BertForMaskedLM (109,514,298) it has no "
        "token-type embeddings and no MLM transform (dense + GELU + LayerNorm) before the decoder, and like "
        "it no pooler."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "A small VGG-style CNN reading 5-character captchas (62 classes per character: digits and both "
        "cases) from 180x50 greyscale images, modelled on the network of a well-known Q&A on mini-batch "
        "memory (532,752 activations, 19,072,984 parameters, batch 128) whose layers were not published: "
        "this natural design has 19,079,462 parameters (0.03% more), its 5 x 62 character outputs forming "
        "one 310-way layer."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "A GPT-2-small-style decoder (Radford et al. 2019; 12 pre-norm causal blocks, d=768, 12 heads, "
        "1024-token context) built from PyTorch TransformerEncoderLayers with the LM head tied to the token "
        "embedding: 124,439,808 parameters, as Hugging Face's gpt2, with exact GELU in place of GPT-2's tanh "
        "approximation."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "LeCun et al.'s 1998 LeNet-5 for 32x32 digit images (MNIST padded), in the common modern form with "
        "ReLU and max pooling instead of tanh and subsampling: 61,706 parameters."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "torchvision's MobileNetV2 (torchvision.models.mobilenet_v2, Sandler et al. 2018, width 1.0) for "
        "224x224 ImageNet images: inverted residual blocks with depthwise 3x3 convs and ReLU6, 3,504,872 "
        "parameters."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "torchvision's ResNet-18 (torchvision.models.resnet18, He et al. 2015, BasicBlocks [2, 2, 2, 2]) for "
        "224x224 ImageNet images, 11,689,512 parameters; each stage's first, downsampling block is written "
        "out as layerN.0 and its remaining blocks repeat as layerN.rest (torchvision's layerN.1 onwards)."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "torchvision's ResNet-50 (torchvision.models.resnet50, He et al. 2015, v1.5 Bottlenecks [3, 4, 6, 3] "
        "with the stride on the 3x3 conv) for 224x224 ImageNet images, 25,557,032 parameters; each stage's "
        "first, downsampling block is written out as layerN.0 and its remaining blocks repeat as layerN.rest "
        "(torchvision's layerN.1 onwards)."),
    QT_TRANSLATE_NOOP("headroom::ui::CoreText",
        "torchvision's VGG-16 without batch norm (torchvision.models.vgg16, configuration D of Simonyan & "
        "Zisserman 2014) for 224x224 ImageNet images: 138,357,544 parameters."),
};

} // namespace

QString CoreText::translate(std::string_view english)
{
    const QByteArray source(english.data(), static_cast<qsizetype>(english.size()));
    return QCoreApplication::translate("headroom::ui::CoreText", source.constData());
}

QString CoreText::format(const TemplatedText& text)
{
    // One pass, so a value that itself contains "%1" is not filled in again.
    const QString translated = translate(text.format);
    QString out;
    for (qsizetype i = 0; i < translated.size(); ++i) {
        const QChar c = translated[i];
        if (c == QLatin1Char('%') && i + 1 < translated.size() && translated[i + 1] >= QLatin1Char('1')
            && translated[i + 1] <= QLatin1Char('9')) {
            const auto n = static_cast<std::size_t>(translated[i + 1].unicode() - u'1');
            if (n < text.args.size()) {
                out += QString::fromStdString(text.args[n]);
                ++i;
                continue;
            }
        }
        out += c;
    }
    return out;
}

std::span<const char* const> CoreText::known()
{
    return kTexts;
}

} // namespace headroom::ui
