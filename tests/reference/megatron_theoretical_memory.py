#!/usr/bin/env python3
"""Megatron-LM's theoretical memory formulas, re-implemented without Megatron.

Source read (facts only; this file is written anew, nothing imported):
  https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/megatron/training/theoretical_memory_usage.py
  (repository snapshot at commit d98e8a64ddf34856e74b24714e3bedb2f5a39553, 2026-08-22; the file itself last
  changed in 1bcb3b9e0b029c6109d8d32872645bd540052963), functions compute_weight_and_optimizer_memory,
  compute_activation_memory (the SP + selective-recompute branch, Table 2 of Korthikanti et al. 2022,
  arXiv 2205.05198), compute_activation_memory_without_sp and report_theoretical_memory.
  Vocabulary padding: megatron/core/tokenizers/utils/build_tokenizer.py vocab_size_with_padding
  (multiple = make_vocab_size_divisible_by (default 128) * tensor_model_parallel_size).

Only the dense (non-MoE, non-MLA, no MTP) path is implemented: that is all the configurations below use.
Units: bytes (Megatron divides by 2**20 to print MB; both are written).
Megatron's assumptions that this inherits: bf16 params, fp32 main grads, fp32 main params and Adam states
(18 bytes per parameter; with the distributed optimizer 6 + 12/DP); activations follow Table 2 of the paper
(2-byte activations, 1-byte dropout masks); the first pipeline stage is the most loaded one (it holds the
embedding, and p micro-batches in flight under 1F1B).

Usage: /usr/bin/python3 tests/reference/megatron_theoretical_memory.py [--write]
  --write  also writes tests/data/parallel/megatron_reference.json next to this repository's tests.
"""

import json
import math
import os
import sys

MEGATRON_COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
MEGATRON_FILE_COMMIT = "1bcb3b9e0b029c6109d8d32872645bd540052963"
MIB = 1024 * 1024


def padded_vocab(vocab, tp, divisible_by=128):
    multiple = divisible_by * tp
    return int(math.ceil(vocab / multiple) * multiple)


def weight_and_optimizer_bytes(a):
    """compute_weight_and_optimizer_memory, dense path."""
    query_projection_size = a["kv_channels"] * a["num_attention_heads"]
    q_ratio = query_projection_size / a["hidden_size"]
    num_query_groups = a["num_query_groups"] if a["group_query_attention"] else a["num_attention_heads"]
    gated = 3 / 2 if a["swiglu"] else 1
    norm_size = 1 if a["normalization"] == "RMSNorm" else 2
    h = a["hidden_size"]
    self_attn = 2 * h * h * ((1 + num_query_groups / a["num_attention_heads"]) * q_ratio)
    embedding_size = h * a["padded_vocab_size"]
    final_layernorm = norm_size * h
    embedding_layers = 2 * embedding_size if a["untie_embeddings_and_output_weights"] else embedding_size
    dense_mlp = 2 * h * a["ffn_hidden_size"] * gated
    layernorm_params = 2 * h * norm_size
    per_layer = self_attn + dense_mlp + layernorm_params
    L = a["num_layers"]
    block = per_layer * L + final_layernorm
    total = block + embedding_layers

    tp, pp = a["tensor_model_parallel_size"], a["pipeline_model_parallel_size"]
    tp_sharded_block = (self_attn + dense_mlp) * L
    replicated_block = layernorm_params * L + final_layernorm
    tp_sharded_most = (tp_sharded_block / pp + embedding_size) / tp
    replicated_most = replicated_block / pp
    most_loaded = tp_sharded_most + replicated_most
    if a["untie_embeddings_and_output_weights"] and pp == 1:
        tp_sharded_most += embedding_size / tp
        most_loaded += embedding_size / tp
    other = None
    if pp > 1:
        other = tp_sharded_block / (pp * tp) + replicated_block / pp

    def bytes_per_param(dp):
        return 18 if not a["use_distributed_optimizer"] else 6 + 12 / dp

    mem = (tp_sharded_most + replicated_most) * bytes_per_param(a["data_parallel_size"])
    return {
        "params_per_layer": per_layer,
        "params_transformer_block": block,
        "params_embedding_layers": embedding_layers,
        "params_total": total,
        "params_most_loaded_shard": most_loaded,
        "params_other_shards": other,
        "bytes_per_param": bytes_per_param(a["data_parallel_size"]),
        "weight_and_optimizer_bytes": mem,
    }


def _pipeline_factor(a, num_microbatches, act):
    pp, v = a["pipeline_model_parallel_size"], a["virtual_pipeline_model_parallel_size"]
    in_flight = None
    if v is not None:
        penalty = 1 + (pp - 1) / (pp * v)
        in_flight = math.ceil(penalty * pp)
        act *= penalty
    if v is None and pp > 1:
        if num_microbatches is not None:
            act *= min(1, num_microbatches / pp)
            in_flight = min(num_microbatches, pp)
        else:
            in_flight = pp
    return act, in_flight


def activation_bytes_sp_selective(a, num_microbatches):
    """compute_activation_memory (SP + selective recompute), first pipeline stage."""
    s, b, h = a["seq_length"], a["micro_batch_size"], a["hidden_size"]
    pp, tp = a["pipeline_model_parallel_size"], a["tensor_model_parallel_size"]
    per_layer = s * b * h * (18 + 4 * (a["ffn_hidden_size"] / h))
    act = per_layer * a["num_layers"]
    act += 8 * s * b * pp  # input to embedding, pp micro-batches in flight
    act += s * b * h * pp  # embedding dropout mask
    act, in_flight = _pipeline_factor(a, num_microbatches, act)
    if pp == 1:
        act += s * b * h * 4 * (1 + a["padded_vocab_size"] / h)
    return {"per_layer_bytes_per_rank": per_layer / tp, "activation_bytes": act / tp,
            "in_flight_microbatches": in_flight}


def activation_bytes_without_sp(a, num_microbatches):
    """compute_activation_memory_without_sp, first pipeline stage (includes Megatron's 5% overhead)."""
    s, b, h = a["seq_length"], a["micro_batch_size"], a["hidden_size"]
    pp, tp = a["pipeline_model_parallel_size"], a["tensor_model_parallel_size"]
    per_layer = s * b * h * (10 + 24 / tp)
    act = per_layer * a["num_layers"]
    act += 8 * s * b * pp
    act += s * b * h * pp
    act, in_flight = _pipeline_factor(a, num_microbatches, act)
    if pp == 1:
        logits = s * b * a["padded_vocab_size"] / tp
        act += (logits + s * b * h) * 2
    act *= 1.05
    return {"per_layer_bytes_per_rank": per_layer, "activation_bytes": act, "in_flight_microbatches": in_flight}


def base_args(**kw):
    a = dict(
        kv_channels=None, group_query_attention=False, num_query_groups=None, swiglu=False,
        normalization="LayerNorm", untie_embeddings_and_output_weights=False,
        virtual_pipeline_model_parallel_size=None, micro_batch_size=1, use_distributed_optimizer=False,
        sequence_parallel=True, recompute_granularity="selective", make_vocab_size_divisible_by=128,
    )
    a.update(kw)
    if a["kv_channels"] is None:
        a["kv_channels"] = a["hidden_size"] // a["num_attention_heads"]
    if a.get("ffn_hidden_size") is None:
        a["ffn_hidden_size"] = 4 * a["hidden_size"]
    a["padded_vocab_size"] = padded_vocab(a["vocab_size"], a["tensor_model_parallel_size"],
                                          a["make_vocab_size_divisible_by"])
    a["world_size"] = (a["tensor_model_parallel_size"] * a["pipeline_model_parallel_size"]
                       * a["data_parallel_size"])
    return a


def evaluate(name, a, num_microbatches):
    w = weight_and_optimizer_bytes(a)
    sp = activation_bytes_sp_selective(a, num_microbatches)
    nosp = activation_bytes_without_sp(a, num_microbatches)
    chosen = "sp_selective" if (a["sequence_parallel"] and a["recompute_granularity"] == "selective") \
        else "without_sp"
    act = sp if chosen == "sp_selective" else nosp
    total = w["weight_and_optimizer_bytes"] + act["activation_bytes"]
    return {
        "name": name,
        "args": a,
        "num_microbatches": num_microbatches,
        "weights": w,
        "activation_sp_selective": sp,
        "activation_without_sp": nosp,
        "report_uses": chosen,
        "weight_and_optimizer_mib": w["weight_and_optimizer_bytes"] / MIB,
        "activation_mib": act["activation_bytes"] / MIB,
        "total_mib": total / MIB,
    }


def cases():
    out = []
    # GPT-3 175B (Brown et al. 2020; Korthikanti et al. 2022 Table 3: TP 8, PP 16, global batch 1536).
    # num_microbatches = global_batch / (micro_batch * DP) = 1536 / (1 * 8) = 192.
    gpt3 = dict(num_layers=96, hidden_size=12288, num_attention_heads=96, seq_length=2048, vocab_size=51200,
                tensor_model_parallel_size=8, pipeline_model_parallel_size=16, data_parallel_size=8,
                micro_batch_size=1, sequence_parallel=True, recompute_granularity="selective")
    for dist in (False, True):
        for v in (None, 2, 3):  # v: layers per virtual stage = 96 / (16 * v) = 6, 3, 2
            a = base_args(**gpt3, use_distributed_optimizer=dist, virtual_pipeline_model_parallel_size=v)
            out.append(evaluate("gpt3-175b tp8 pp16 dp8 sp+selective distopt=%s vpp=%s" % (dist, v), a, 192))
    # Llama-style 70B: 80 layers, h 8192, 64 heads, 8 KV groups, ffn 28672, SwiGLU, RMSNorm, untied,
    # vocab 128256 (padded to a multiple of 128*8 = 1024: 129024), seq 4096, TP 8, PP 4, DP 2.
    # num_microbatches: global batch 64 sequences / (1 * 2) = 32 (any value >= PP gives the same figures).
    llama = dict(num_layers=80, hidden_size=8192, num_attention_heads=64, group_query_attention=True,
                 num_query_groups=8, ffn_hidden_size=28672, swiglu=True, normalization="RMSNorm",
                 untie_embeddings_and_output_weights=True, vocab_size=128256, seq_length=4096,
                 tensor_model_parallel_size=8, pipeline_model_parallel_size=4, data_parallel_size=2,
                 micro_batch_size=1)
    for dist in (False, True):
        for sp in (True, False):
            a = base_args(**llama, use_distributed_optimizer=dist, sequence_parallel=sp,
                          recompute_granularity="selective" if sp else None)
            out.append(evaluate("llama-70b tp8 pp4 dp2 sp+selective=%s distopt=%s" % (sp, dist), a, 32))
    return out


def main():
    doc = {
        "source": "https://github.com/NVIDIA/Megatron-LM/blob/%s/megatron/training/theoretical_memory_usage.py"
                  % MEGATRON_COMMIT,
        "source_file_commit": MEGATRON_FILE_COMMIT,
        "units": "bytes unless the key ends in _mib (2**20 bytes)",
        "notes": [
            "weights: Megatron's most loaded shard is the first pipeline stage (embedding + L/PP layers); "
            "18 bytes/param without the distributed optimizer, 6 + 12/DP with it",
            "activation_sp_selective follows Table 2 of arXiv 2205.05198: per layer s*b*h*(18 + 4*ffn/h) bytes "
            "across the TP group, divided by TP; it ignores the GQA/SwiGLU shape (Megatron's own TODO) and "
            "multiplies by min(1, m/PP) (no interleave) or 1 + (PP-1)/(PP*v) (interleave)",
            "activation_without_sp: s*b*h*(10 + 24/TP) per layer, times 1.05 overhead",
            "report_uses: the branch report_theoretical_memory takes (SP and selective recompute both on)",
        ],
        "cases": cases(),
    }
    text = json.dumps(doc, indent=1, sort_keys=False)
    print(text)
    if "--write" in sys.argv:
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(here, "..", "data", "parallel", "megatron_reference.json")
        with open(path, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
