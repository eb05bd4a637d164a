#!/usr/bin/env python3
"""Measures what autograd keeps for backward in small mixture-of-experts blocks written op for op as
Hugging Face transformers (4.5x) runs them: MixtralSparseMoeBlock (modeling_mixtral.py),
Qwen2MoeSparseMoeBlock with its shared expert and shared-expert gate (modeling_qwen2_moe.py) and
DeepseekV3MoE with its sigmoid, group-limited router and shared experts (modeling_deepseek_v3.py).
transformers itself is not needed.

Saved tensors are caught with torch.autograd.graph.saved_tensors_hooks and deduplicated by storage,
parameters and buffers excluded, as tests/data/hf/measure_layers.py does. Each block is measured at
batch 2 and batch 3; the difference is the per-sample part.

Routing. The router's choice depends on the data, so the inputs are built to route in a known way:
token t of every sample carries a large value on the gate directions of experts t mod E and
(t + 1) mod E, so top-2 routing sends every expert exactly 2 T / E of each sample's tokens
("balanced"). A second run of the Mixtral block sends every token to experts 0 and 1 ("skewed"), the
busiest experts then get T of each sample's tokens (E / 2 times the balanced share), to show what the
balance changes. The routing counts each run actually produced are written next to it.

Run: /usr/bin/python3 tests/data/hf/measure_moe.py > tests/data/hf/measured_moe.json
(Debian's python3-torch 1.13, CPU, float32). Asserted by tests/core/tst_hfconfig.cpp
(moeBlockMatchesPyTorch). None of the ops involved (linear, softmax, topk, sigmoid, gather, index,
index_add_, silu, mul, div) keeps anything different on CUDA or in PyTorch 2.x.
"""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

# The same storage-deduplicating saved-tensor hooks, and Qwen2MoeMLP, which is LlamaMLP with a width.
from measure_layers import LlamaMLP as Qwen2MoeMLP
from measure_layers import Recorder, storage_key

torch.set_num_threads(1)

HIDDEN = 64
SEQUENCE = 16


# ---- Mixtral (modeling_mixtral.py) ----------------------------------------------------------------

class MixtralBlockSparseTop2MLP(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.w1 = nn.Linear(hidden, ffn, bias=False)
        self.w2 = nn.Linear(ffn, hidden, bias=False)
        self.w3 = nn.Linear(hidden, ffn, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states):
        current_hidden_states = self.act_fn(self.w1(hidden_states)) * self.w3(hidden_states)
        return self.w2(current_hidden_states)


class MixtralSparseMoeBlock(nn.Module):
    def __init__(self, hidden, ffn, experts, top_k):
        super().__init__()
        self.num_experts = experts
        self.top_k = top_k
        self.gate = nn.Linear(hidden, experts, bias=False)
        self.experts = nn.ModuleList([MixtralBlockSparseTop2MLP(hidden, ffn) for _ in range(experts)])
        self.counts = None

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final_hidden_states = torch.zeros(
            (batch_size * sequence_length, hidden_dim), dtype=hidden_states.dtype, device=hidden_states.device)
        expert_mask = torch.nn.functional.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)
        self.counts = expert_mask.sum(dim=(-1, -2)).tolist()
        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx].squeeze(0))
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        final_hidden_states = final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)
        return final_hidden_states, router_logits


# ---- Qwen2-MoE (modeling_qwen2_moe.py) ------------------------------------------------------------

class Qwen2MoeSparseMoeBlock(nn.Module):
    def __init__(self, hidden, moe_intermediate, shared_intermediate, experts, top_k, norm_topk_prob):
        super().__init__()
        self.num_experts = experts
        self.top_k = top_k
        self.norm_topk_prob = norm_topk_prob
        self.gate = nn.Linear(hidden, experts, bias=False)
        self.experts = nn.ModuleList([Qwen2MoeMLP(hidden, moe_intermediate) for _ in range(experts)])
        self.shared_expert = Qwen2MoeMLP(hidden, shared_intermediate)
        self.shared_expert_gate = nn.Linear(hidden, 1, bias=False)
        self.counts = None

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        if self.norm_topk_prob:
            routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final_hidden_states = torch.zeros(
            (batch_size * sequence_length, hidden_dim), dtype=hidden_states.dtype, device=hidden_states.device)
        expert_mask = torch.nn.functional.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)
        self.counts = expert_mask.sum(dim=(-1, -2)).tolist()
        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        shared_expert_output = self.shared_expert(hidden_states)
        shared_expert_output = F.sigmoid(self.shared_expert_gate(hidden_states)) * shared_expert_output
        final_hidden_states = final_hidden_states + shared_expert_output
        final_hidden_states = final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)
        return final_hidden_states, router_logits


# ---- DeepSeek-V3 (modeling_deepseek_v3.py) --------------------------------------------------------

class DeepseekV3TopkRouter(nn.Module):
    def __init__(self, hidden, experts, top_k, n_group, topk_group, scaling):
        super().__init__()
        self.top_k = top_k
        self.n_routed_experts = experts
        self.routed_scaling_factor = scaling
        self.n_group = n_group
        self.topk_group = topk_group
        self.norm_topk_prob = True
        self.hidden = hidden
        self.weight = nn.Parameter(torch.empty((experts, hidden)))
        self.register_buffer("e_score_correction_bias", torch.zeros(experts))

    @torch.no_grad()
    def get_topk_indices(self, scores):
        scores_for_choice = scores.view(-1, self.n_routed_experts) + self.e_score_correction_bias.unsqueeze(0)
        group_scores = (
            scores_for_choice.view(-1, self.n_group, self.n_routed_experts // self.n_group).topk(2, dim=-1)[0].sum(dim=-1))
        group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = (
            group_mask.unsqueeze(-1).expand(-1, self.n_group, self.n_routed_experts // self.n_group)
            .reshape(-1, self.n_routed_experts))
        scores_for_choice = scores_for_choice.masked_fill(~score_mask.bool(), 0.0)
        return torch.topk(scores_for_choice, k=self.top_k, dim=-1, sorted=False)[1]

    def forward(self, hidden_states):
        hidden_states = hidden_states.view(-1, self.hidden)
        router_logits = F.linear(hidden_states.type(torch.float32), self.weight.type(torch.float32))
        scores = router_logits.sigmoid()
        topk_indices = self.get_topk_indices(scores)
        topk_weights = scores.gather(1, topk_indices)
        if self.norm_topk_prob:
            denominator = topk_weights.sum(dim=-1, keepdim=True) + 1e-20
            topk_weights /= denominator
        topk_weights = topk_weights * self.routed_scaling_factor
        return topk_indices, topk_weights


class DeepseekV3MoE(nn.Module):
    def __init__(self, hidden, moe_intermediate, experts, shared, top_k, n_group, topk_group):
        super().__init__()
        self.experts = nn.ModuleList([Qwen2MoeMLP(hidden, moe_intermediate) for _ in range(experts)])
        self.gate = DeepseekV3TopkRouter(hidden, experts, top_k, n_group, topk_group, 2.5)
        self.shared_experts = Qwen2MoeMLP(hidden, moe_intermediate * shared)
        self.counts = None

    def moe(self, hidden_states, topk_indices, topk_weights):
        final_hidden_states = torch.zeros_like(hidden_states, dtype=topk_weights.dtype)
        expert_mask = torch.nn.functional.one_hot(topk_indices, num_classes=len(self.experts))
        expert_mask = expert_mask.permute(2, 0, 1)
        self.counts = expert_mask.sum(dim=(-1, -2)).tolist()
        for expert_idx in range(len(self.experts)):
            expert = self.experts[expert_idx]
            mask = expert_mask[expert_idx]
            token_indices, weight_indices = torch.where(mask)
            if token_indices.numel() > 0:
                expert_weights = topk_weights[token_indices, weight_indices]
                expert_input = hidden_states[token_indices]
                expert_output = expert(expert_input)
                weighted_output = expert_output * expert_weights.unsqueeze(-1)
                final_hidden_states.index_add_(0, token_indices, weighted_output)
        return final_hidden_states.type(hidden_states.dtype)

    def forward(self, hidden_states):
        residuals = hidden_states
        orig_shape = hidden_states.shape
        topk_indices, topk_weights = self.gate(hidden_states)
        hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
        hidden_states = self.moe(hidden_states, topk_indices, topk_weights).view(*orig_shape)
        return hidden_states + self.shared_experts(residuals), None


# ---- Routing set-up -------------------------------------------------------------------------------

def route_gate(weight, experts):
    """Gate rows along the first `experts` hidden directions, so a token's value on direction e is
    its affinity for expert e."""
    with torch.no_grad():
        weight.zero_()
        for e in range(experts):
            weight[e, e] = 1.0


def routed_input(batch, experts, skewed):
    """Tokens whose two largest affinities are experts (t, t + 1) mod E (balanced) or (0, 1) (skewed)."""
    x = torch.randn(batch, SEQUENCE, HIDDEN) * 0.01
    for t in range(SEQUENCE):
        first, second = (0, 1) if skewed else (t % experts, (t + 1) % experts)
        x[:, t, first] += 10.0
        x[:, t, second] += 9.0
    return x.requires_grad_(True)


def measure(block, experts, batch, skewed=False):
    torch.manual_seed(0)
    x = routed_input(batch, experts, skewed)
    rec = Recorder(list(block.parameters()) + list(block.buffers()))
    with torch.autograd.graph.saved_tensors_hooks(rec.pack, lambda t: t):
        out, _ = block(x)
    out.sum().backward()  # the graph is sound
    input_ptr = storage_key(x)[0]
    new = {k: v for k, v in rec.storages.items() if k != input_ptr}
    return {
        "batch": batch,
        "input_kept": input_ptr in rec.storages,
        "new_bytes": sum(v[0] for v in new.values()),
        "assignments_per_expert": block.counts,
        "storages": sorted([[v[0], list(v[1]), v[2]] for v in new.values()], key=lambda r: (-r[0], r[1])),
    }


def run(name, block, experts, skewed=False, **info):
    block.train()
    two, three = measure(block, experts, 2, skewed), measure(block, experts, 3, skewed)
    per_sample = three["new_bytes"] - two["new_bytes"]
    return {
        "name": name,
        "sequence": SEQUENCE,
        "hidden": HIDDEN,
        "experts": experts,
        **info,
        "per_sample_bytes": per_sample,
        "fixed_bytes": two["new_bytes"] - 2 * per_sample,
        "input_kept": two["input_kept"],
        "assignments_per_expert_batch2": two["assignments_per_expert"],
        "assignments_per_expert_batch3": three["assignments_per_expert"],
        "storages_batch2": two["storages"],
    }


def main():
    torch.manual_seed(0)
    results = {"torch": torch.__version__, "device": "cpu", "dtype": "float32", "blocks": []}

    # Mixtral-style: 4 experts of width 96, top-2, H 64, T 16.
    mixtral = MixtralSparseMoeBlock(HIDDEN, 96, 4, 2)
    route_gate(mixtral.gate.weight, 4)
    results["blocks"].append(run("mixtral", mixtral, 4, top_k=2, expert_intermediate=96))
    results["blocks"].append(run("mixtral_skewed", mixtral, 4, skewed=True, top_k=2, expert_intermediate=96))

    # Qwen2-MoE-style: 8 experts of width 48, top-2 without renormalising, a shared expert of width 128
    # behind a sigmoid gate.
    qwen = Qwen2MoeSparseMoeBlock(HIDDEN, 48, 128, 8, 2, False)
    route_gate(qwen.gate.weight, 8)
    results["blocks"].append(run("qwen2_moe", qwen, 8, top_k=2, expert_intermediate=48, shared_intermediate=128))

    # DeepSeek-V3-style: 8 experts of width 32 in 4 groups (2 groups chosen), top-2, sigmoid scores,
    # renormalised and scaled by 2.5, combined in float32; one shared expert (width 32).
    deepseek = DeepseekV3MoE(HIDDEN, 32, 8, 1, 2, 4, 2)
    route_gate(deepseek.gate.weight, 8)
    results["blocks"].append(run("deepseek_v3", deepseek, 8, top_k=2, expert_intermediate=32, shared_intermediate=32))
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
