#!/usr/bin/env python3
"""Measures what autograd keeps for backward in one decoder layer of a tiny Llama-style model and a
tiny GPT-2-style model, written op for op as Hugging Face transformers' modeling_llama.py and
modeling_gpt2.py run them in eager mode (attn_implementation="eager"; transformers itself is not
needed). Saved tensors are caught with torch.autograd.graph.saved_tensors_hooks, deduplicated by
storage, parameters excluded. Each figure is measured at batch 2 and batch 3; the difference is the
per-sample part, the rest is fixed (the causal mask, cos/sin, position ids).

Run: /usr/bin/python3 tests/data/hf/measure_layers.py  (Debian's python3-torch, CPU). The output is
kept in tests/data/hf/measured_layers.json and asserted by tests/core/tst_hflayers.cpp.

CPU vs CUDA: on the CPU, F.dropout keeps a float32 noise tensor (input * noise) where CUDA's fused
native_dropout keeps a bool mask (1 byte per element); the "storages" listing shows each one so the
test can convert. Everything else (matmul's reshape copies, softmax's result, layer_norm's mean and
rstd) is the same on both devices.

Frozen weights and LoRA (the "parts" list): LlamaRMSNorm with its weight trained or frozen and its input
requiring grad or not, float32 and bfloat16 inputs; PEFT's LoRA Linear (peft/tuners/lora/layer.py,
Linear.forward, dropout 0 = nn.Identity) on a frozen nn.Linear, in float32 and under CPU autocast
(bfloat16); and a Qwen3-style decoder layer (q_norm/k_norm, grouped-query attention) as transformers 5
runs it with attn_implementation="sdpa" in float32: sdpa_attention_forward passes k and v with their
own heads and enable_gqa=True, and CUDA's scaled_dot_product_attention then runs its math path
(memory-efficient attention refuses enable_gqa, flash and cuDNN take half types only), written here op
for op after aten/src/ATen/native/transformers/attention.cpp (_scaled_dot_product_attention_math),
trained in full and with LoRA on q_proj and v_proj.
"""
import json
import math
import weakref

import torch
import torch.nn as nn
import torch.nn.functional as F


def storage_key(t):
    s = t.storage()
    return s.data_ptr(), s.size() * t.element_size()


class Recorder:
    def __init__(self, exclude):
        self.exclude = {storage_key(p)[0] for p in exclude}
        self.storages = {}

    def pack(self, t):
        ptr, nbytes = storage_key(t)
        if ptr not in self.exclude and ptr not in self.storages:
            self.storages[ptr] = (nbytes, tuple(t.shape), str(t.dtype))
        return t

    def total(self):
        return sum(v[0] for v in self.storages.values())


class LiveRecorder:
    """Like Recorder, but counts only the storages that saved tensors of live graph nodes still hold when
    the forward returns: a node whose output nothing differentiable reads (a top-k only for its indices)
    is freed with its saved tensors. Pack returns a holder; the holder dies with the node."""

    class Held:
        __slots__ = ("t", "__weakref__")

        def __init__(self, t):
            self.t = t

    def __init__(self, exclude):
        self.exclude = {storage_key(p)[0] for p in exclude}
        self.held = []

    def pack(self, t):
        h = LiveRecorder.Held(t)
        self.held.append((weakref.ref(h), storage_key(t), tuple(t.shape), str(t.dtype)))
        return h

    @staticmethod
    def unpack(h):
        return h.t

    @property
    def storages(self):
        live = {}
        for ref, (ptr, nbytes), shape, dtype in self.held:
            if ref() is not None and ptr not in self.exclude and ptr not in live:
                live[ptr] = (nbytes, shape, dtype)
        return live


def measure(module, make_input, batch):
    torch.manual_seed(0)
    x, extra = make_input(batch)
    params = list(module.parameters()) + list(module.buffers())
    rec = Recorder(params)
    with torch.autograd.graph.saved_tensors_hooks(rec.pack, lambda t: t):
        out = module(x, *extra)
    input_ptr = storage_key(x)[0]
    kept_input = input_ptr in rec.storages
    new = {k: v for k, v in rec.storages.items() if k != input_ptr}
    return {
        "batch": batch,
        "input_kept": kept_input,
        "new_bytes": sum(v[0] for v in new.values()),
        "storages": sorted([[v[0], list(v[1]), v[2]] for v in new.values()], key=lambda r: (-r[0], r[1])),
        "output_shape": list(out.shape),
    }


# ---- Llama (modeling_llama.py, eager) -------------------------------------------------------------

class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)


class LlamaAttention(nn.Module):
    def __init__(self, hidden, heads, kv_heads, bias, dropout):
        super().__init__()
        self.head_dim = hidden // heads
        self.num_key_value_groups = heads // kv_heads
        self.scaling = self.head_dim ** -0.5
        self.attention_dropout = dropout
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=bias)
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=bias)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=bias)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)

    def forward(self, hidden_states, position_embeddings, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        # eager_attention_forward
        key_states = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
        causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = attn_weights + causal_mask
        attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        attn_weights = F.dropout(attn_weights, p=self.attention_dropout, training=self.training)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous()
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


class LlamaMLP(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, intermediate, bias=False, dropout=0.0):
        super().__init__()
        self.self_attn = LlamaAttention(hidden, heads, kv_heads, bias, dropout)
        self.mlp = LlamaMLP(hidden, intermediate)
        self.input_layernorm = LlamaRMSNorm(hidden)
        self.post_attention_layernorm = LlamaRMSNorm(hidden)
        self.rotary_emb = LlamaRotaryEmbedding(hidden // heads)  # LlamaModel's, computed once per forward

    def forward(self, hidden_states):
        t = hidden_states.shape[1]
        position_ids = torch.arange(t).unsqueeze(0)
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        mask = torch.full((t, t), torch.finfo(hidden_states.dtype).min).triu(1)[None, None].expand(
            hidden_states.shape[0], 1, t, t)
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states = self.self_attn(hidden_states, position_embeddings, mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        return residual + hidden_states


# ---- GPT-2 (modeling_gpt2.py, eager) --------------------------------------------------------------

class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, hidden, heads, max_positions, pdrop):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
            1, 1, max_positions, max_positions), persistent=False)
        self.num_heads = heads
        self.head_dim = hidden // heads
        self.split_size = hidden
        self.c_attn = Conv1D(3 * hidden, hidden)
        self.c_proj = Conv1D(hidden, hidden)
        self.attn_dropout = nn.Dropout(pdrop)
        self.resid_dropout = nn.Dropout(pdrop)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length: key_length, :key_length]
        mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)
        return torch.matmul(attn_weights, value)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query, key, value = self._split_heads(query), self._split_heads(key), self._split_heads(value)
        attn_output = self._attn(query, key, value)
        attn_output = attn_output.permute(0, 2, 1, 3).contiguous()
        attn_output = attn_output.view(attn_output.size()[:-2] + (self.num_heads * self.head_dim,))
        return self.resid_dropout(self.c_proj(attn_output))


class GPT2MLP(nn.Module):
    def __init__(self, hidden, inner, pdrop):
        super().__init__()
        self.c_fc = Conv1D(inner, hidden)
        self.c_proj = Conv1D(hidden, inner)
        self.act = NewGELUActivation()
        self.dropout = nn.Dropout(pdrop)

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class GPT2Block(nn.Module):
    def __init__(self, hidden, heads, inner, max_positions, pdrop):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden, eps=1e-5)
        self.attn = GPT2Attention(hidden, heads, max_positions, pdrop)
        self.ln_2 = nn.LayerNorm(hidden, eps=1e-5)
        self.mlp = GPT2MLP(hidden, inner, pdrop)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.attn(self.ln_1(hidden_states))
        hidden_states = hidden_states + residual
        residual = hidden_states
        return residual + self.mlp(self.ln_2(hidden_states))


def run(name, module, t, e):
    module.train()

    def make(batch):
        return torch.randn(batch, t, e, requires_grad=True), ()

    # Batch 1 is special: reshape(B * h, T, d) of a head-split view needs no copy when B = 1, so
    # matmul keeps views of the projection instead of copies. Batches 2 and 3 give the general rule.
    two, three = measure(module, make, 2), measure(module, make, 3)
    per_sample = three["new_bytes"] - two["new_bytes"]
    return {
        "name": name,
        "sequence": t,
        "hidden": e,
        "per_sample_bytes": per_sample,
        "fixed_bytes": two["new_bytes"] - 2 * per_sample,
        "input_kept": two["input_kept"],
        "storages_batch2": two["storages"],
    }


# ---- Frozen weights and LoRA ------------------------------------------------------------------------

def measure_part(name, module, make, autocast=False, **info):
    """Per-sample bytes autograd keeps for `module`, measured at batch 2 and 3 (inputs from make(batch))."""
    def one(batch):
        torch.manual_seed(0)
        x = make(batch)
        rec = LiveRecorder(list(module.parameters()) + list(module.buffers()))
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            with torch.autograd.graph.saved_tensors_hooks(rec.pack, rec.unpack):
                out = module(x)
        storages = rec.storages
        if out.requires_grad:
            out.float().sum().backward()  # the graph is sound
        input_ptr = storage_key(x)[0]
        new = {k: v for k, v in storages.items() if k != input_ptr}
        return {"input_kept": input_ptr in storages, "new_bytes": sum(v[0] for v in new.values()),
                "storages": sorted([[v[0], list(v[1]), v[2]] for v in new.values()], key=lambda r: (-r[0], r[1])),
                "output_dtype": str(out.dtype)}
    two, three = one(2), one(3)
    per_sample = three["new_bytes"] - two["new_bytes"]
    return {"name": name, **info, "autocast_bf16": autocast, "per_sample_bytes": per_sample,
            "fixed_bytes": two["new_bytes"] - 2 * per_sample, "input_kept": two["input_kept"],
            "output_dtype": two["output_dtype"], "storages_batch2": two["storages"]}


class LoraLinear(nn.Module):
    """PEFT's lora.Linear around a frozen nn.Linear: result = base(x) + lora_B(lora_A(dropout(x))) * scaling,
    x cast to lora_A's dtype first (_cast_input_dtype: a no-op when the dtypes match)."""

    def __init__(self, base, r, alpha=16):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        self.lora_dropout = nn.Identity()
        self.scaling = alpha / r
        base.requires_grad_(False)

    def forward(self, x):
        result = self.base_layer(x)
        torch_result_dtype = result.dtype
        if x.dtype != self.lora_A.weight.dtype:
            x = x.to(self.lora_A.weight.dtype)
        result = result + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling
        return result.to(torch_result_dtype)


def sdpa_math(query, key, value, scale, enable_gqa):
    """scaled_dot_product_attention's math path with is_causal=True, as PyTorch 2.5+ writes it
    (_scaled_dot_product_attention_math); float32 inputs, so no upcast. _safe_softmax keeps its result
    like softmax."""
    scaling_factor = math.sqrt(scale)
    query = query * scaling_factor
    length, source = query.size(-2), key.size(-2)
    mask = torch.ones(length, source, dtype=torch.bool).tril()
    mask = torch.where(mask, 0.0, float("-inf"))  # convert_boolean_attn_mask
    if enable_gqa and key.size(-3) != query.size(-3):  # pre_process_group_query_attention_input
        key = key.repeat_interleave(query.size(-3) // key.size(-3), -3)
        value = value.repeat_interleave(query.size(-3) // value.size(-3), -3)
    attn = torch.matmul(query, key.transpose(-2, -1) * scaling_factor)
    attn.add_(mask)
    attn = torch.softmax(attn, -1)
    return torch.matmul(attn, value)


class Qwen3DecoderLayer(nn.Module):
    """transformers 5's Qwen3DecoderLayer with attn_implementation="sdpa" on an unpadded batch (the causal
    mask is skipped: is_causal=True, enable_gqa=True)."""

    def __init__(self, hidden, heads, kv_heads, head_dim, intermediate):
        super().__init__()
        self.head_dim = head_dim
        self.scaling = head_dim ** -0.5
        self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)
        self.q_norm = LlamaRMSNorm(head_dim)
        self.k_norm = LlamaRMSNorm(head_dim)
        self.mlp = LlamaMLP(hidden, intermediate)
        self.input_layernorm = LlamaRMSNorm(hidden)
        self.post_attention_layernorm = LlamaRMSNorm(hidden)
        self.rotary_emb = LlamaRotaryEmbedding(head_dim)  # Qwen3Model's, computed once per forward

    def forward(self, hidden_states):
        t = hidden_states.shape[1]
        cos, sin = self.rotary_emb(hidden_states, torch.arange(t).unsqueeze(0))
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_norm(self.q_proj(hidden_states).view(hidden_shape)).transpose(1, 2)
        key_states = self.k_norm(self.k_proj(hidden_states).view(hidden_shape)).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        attn_output = sdpa_math(query_states, key_states, value_states, self.scaling, enable_gqa=True)
        attn_output = attn_output.transpose(1, 2).contiguous()
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        hidden_states = residual + self.o_proj(attn_output)
        residual = hidden_states
        hidden_states = self.mlp(self.post_attention_layernorm(hidden_states))
        return residual + hidden_states


def parts():
    out = []
    t, e = 16, 64

    def tokens(dtype, grad):
        return lambda batch: torch.randn(batch, t, e).to(dtype).requires_grad_(grad)

    for dtype in (torch.float32, torch.bfloat16):
        for x_grad in (True, False):
            for w_grad in (True, False):
                if not x_grad and not w_grad:
                    continue  # not recorded at all
                norm = LlamaRMSNorm(e)
                norm.weight.requires_grad_(w_grad)
                name = "rmsnorm_{}_x{}_w{}".format(str(dtype).split(".")[1], int(x_grad), int(w_grad))
                out.append(measure_part(name, norm, tokens(dtype, x_grad), sequence=t, hidden=e,
                                        input_grad=x_grad, weight_grad=w_grad))
    for autocast in (False, True):
        for x_grad in (True, False):
            lora = LoraLinear(nn.Linear(e, 96, bias=False), 4)
            name = "lora_linear_{}_x{}".format("amp" if autocast else "fp32", int(x_grad))
            out.append(measure_part(name, lora, tokens(torch.float32, x_grad), autocast=autocast, sequence=t,
                                    in_features=e, out_features=96, rank=4, input_grad=x_grad))
    # Qwen3-style: hidden 64, 4 heads of 32 (q_norm/k_norm over 32), 2 key/value heads, MLP 96, T 16.
    for lora in (False, True):
        layer = Qwen3DecoderLayer(64, 4, 2, 32, 96)
        if lora:
            layer.requires_grad_(False)
            layer.q_proj = LoraLinear(layer.q_proj, 4)
            layer.v_proj = LoraLinear(layer.v_proj, 4)
        name = "qwen3_sdpa_math_" + ("lora_qv" if lora else "full")
        out.append(measure_part(name, layer, tokens(torch.float32, True), sequence=t, hidden=e, heads=4,
                                kv_heads=2, head_dim=32, intermediate=96, lora_rank=4 if lora else 0))
    return out


def main():
    torch.manual_seed(0)
    results = {"torch": torch.__version__, "device": "cpu", "dtype": "float32", "layers": []}
    # Llama-style: hidden 64, 4 heads (head_dim 16), 2 key/value heads (GQA, 2 groups), MLP 172, T 16.
    results["layers"].append(run("llama_gqa", LlamaDecoderLayer(64, 4, 2, 172), 16, 64))
    # The same without GQA (num_key_value_heads = num_attention_heads, as Llama-2-7B).
    results["layers"].append(run("llama_mha", LlamaDecoderLayer(64, 4, 4, 172), 16, 64))
    # Qwen2-style: q/k/v biases (biases are parameters: nothing else changes).
    results["layers"].append(run("qwen2_bias", LlamaDecoderLayer(64, 4, 2, 172, bias=True), 16, 64))
    # GPT-2-style: hidden 64, 4 heads, inner 256, T 16, dropout 0.1 everywhere (attn, resid), gelu_new.
    results["layers"].append(run("gpt2", GPT2Block(64, 4, 256, 32, 0.1), 16, 64))
    # GPT-2-style without dropout (no CPU/CUDA difference at all).
    results["layers"].append(run("gpt2_nodropout", GPT2Block(64, 4, 256, 32, 0.0), 16, 64))
    results["parts"] = parts()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
