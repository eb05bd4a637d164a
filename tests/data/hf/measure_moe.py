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
(Debian's python3-torch 1.13, CPU, float32). Asserted by tests/core/tst_mixtureofexperts.cpp
(moeBlockMatchesPyTorch). None of the ops involved (linear, softmax, topk, sigmoid, gather, index,
index_add_, silu, mul, div) keeps anything different on CUDA or in PyTorch 2.x.

transformers 5 ("grouped" blocks). The experts are one module with 3-D weights (gate_up_proj [E, 2F, H],
down_proj [E, H, F]) and run by integrations/moe.py's grouped_mm_experts_forward, the default
experts_implementation on CUDA with PyTorch >= 2.9: the k T assignments sorted by expert, gathered once,
two torch._grouped_mm calls over all experts, the routing weights multiplied in, the order restored by
indexing and the k rows of each token summed (no index_add_). torch 1.13 has no _grouped_mm; it is
written here as per-expert mm on row slices concatenated, which keeps what derivatives.yaml's
_grouped_mm entry keeps (self only for mat2's gradient, mat2 only for self's; the slices share the
input's storage), and it runs with autocast off because _grouped_mm is on no autocast list (transformers
casts the input to the weight's dtype instead). The routers are the TopKRouter modules (a 3-D-free
F.linear on a gate Parameter, softmax, top-k) and DeepSeek's sigmoid router, whose group-limited choice
is no longer under no_grad: its top-k nodes die with their outputs, so these blocks are measured with
LiveRecorder (only the saved tensors of live nodes). Each is measured trained and frozen (every weight
of the block frozen, its input requiring grad: LoRA on the attention projections), the Qwen3 block also
frozen under CPU autocast (bfloat16), as the LoRA set-ups run.
"""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

# The same storage-deduplicating saved-tensor hooks, and Qwen2MoeMLP, which is LlamaMLP with a width.
from measure_layers import LlamaMLP as Qwen2MoeMLP
from measure_layers import LiveRecorder, Recorder, storage_key

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

def group_limited_top_k(scores_for_choice, n_group, topk_group, top_k):
    """DeepSeek-V3's choice: the top-k experts among the topk_group groups with the best two scores."""
    experts = scores_for_choice.size(-1)
    group_scores = scores_for_choice.view(-1, n_group, experts // n_group).topk(2, dim=-1)[0].sum(dim=-1)
    group_idx = torch.topk(group_scores, k=topk_group, dim=-1, sorted=False)[1]
    group_mask = torch.zeros_like(group_scores)
    group_mask.scatter_(1, group_idx, 1)
    score_mask = group_mask.unsqueeze(-1).expand(-1, n_group, experts // n_group).reshape(-1, experts)
    scores_for_choice = scores_for_choice.masked_fill(~score_mask.bool(), 0.0)
    return torch.topk(scores_for_choice, k=top_k, dim=-1, sorted=False)[1]


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
        return group_limited_top_k(scores_for_choice, self.n_group, self.topk_group, self.top_k)

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


# ---- transformers 5: fused experts and grouped_mm (integrations/moe.py) ----------------------------

def grouped_mm(input, weight, offs):
    """torch._grouped_mm(input [S, K], weight [E, K, N], offs) as per-expert mm on row slices."""
    with torch.autocast("cpu", enabled=False):
        outs, start = [], 0
        for i, end in enumerate(offs.tolist()):
            outs.append(torch.mm(input[start:end], weight[i]))
            start = end
        return torch.cat(outs, dim=0)


class Experts(nn.Module):
    """MixtralExperts / Qwen3MoeExperts / DeepseekV3NaiveMoe with experts_implementation="grouped_mm"."""

    def __init__(self, experts, hidden, ffn):
        super().__init__()
        self.num_experts = experts
        self.gate_up_proj = nn.Parameter(torch.randn(experts, 2 * ffn, hidden) * 0.05)
        self.down_proj = nn.Parameter(torch.randn(experts, hidden, ffn) * 0.05)
        self.act_fn = nn.SiLU()
        self.counts = None

    def _apply_gate(self, gate_up_out):  # _default_apply_gate
        gate, up = gate_up_out.chunk(2, dim=-1)
        return self.act_fn(gate) * up

    def forward(self, hidden_states, top_k_index, top_k_weights):  # grouped_mm_experts_forward
        num_top_k = top_k_index.size(-1)
        num_tokens = hidden_states.size(0)
        hidden_dim = hidden_states.size(-1)
        sample_weights = top_k_weights.reshape(-1)
        expert_ids = top_k_index.reshape(-1)
        expert_ids_g, perm = torch.sort(expert_ids)
        selected_hidden_states_g = hidden_states[perm // num_top_k]
        sample_weights_g = sample_weights[perm]
        tokens_per_expert = torch.histc(expert_ids_g.float(), bins=self.num_experts, min=0, max=self.num_experts - 1)
        self.counts = [int(c) for c in tokens_per_expert.tolist()]
        offsets = torch.cumsum(tokens_per_expert, dim=0, dtype=torch.int32)
        sentinel_mask = (expert_ids_g >= self.num_experts).unsqueeze(-1)
        expert_ids_g.clamp_(max=self.num_experts - 1)
        selected_hidden_states_g.masked_fill_(sentinel_mask, 0.0)
        proj_out = grouped_mm(selected_hidden_states_g.to(self.gate_up_proj.dtype),
                              self.gate_up_proj.transpose(-2, -1), offsets)
        proj_out = self._apply_gate(proj_out)
        proj_out = grouped_mm(proj_out.to(self.down_proj.dtype), self.down_proj.transpose(-2, -1), offsets)
        weighted_out = proj_out * sample_weights_g.unsqueeze(-1)
        weighted_out.masked_fill_(sentinel_mask, 0.0)
        inv_perm = torch.empty_like(perm)
        inv_perm[perm] = torch.arange(perm.size(0))
        weighted_out = weighted_out[inv_perm]
        final_hidden_states = weighted_out.view(num_tokens, num_top_k, hidden_dim).sum(dim=1)
        return final_hidden_states.to(hidden_states.dtype)


class TopKRouter(nn.Module):
    """Qwen3MoeTopKRouter (softmax(dtype=float), optional renormalising) and MixtralTopKRouter (softmax of
    logits.float(), always renormalised)."""

    def __init__(self, hidden, experts, top_k, norm_topk_prob, mixtral):
        super().__init__()
        self.top_k = top_k
        self.norm_topk_prob = norm_topk_prob
        self.mixtral = mixtral
        self.hidden_dim = hidden
        self.weight = nn.Parameter(torch.zeros(experts, hidden))

    def forward(self, hidden_states):
        hidden_states = hidden_states.reshape(-1, self.hidden_dim)
        router_logits = F.linear(hidden_states, self.weight)
        if self.mixtral:
            router_probs = F.softmax(router_logits.float(), dim=-1)
            router_top_value, router_indices = torch.topk(router_probs, self.top_k, dim=-1)
            router_top_value /= router_top_value.sum(dim=-1, keepdim=True)
            return router_logits, router_top_value, router_indices
        router_logits = F.softmax(router_logits, dtype=torch.float, dim=-1)
        router_top_value, router_indices = torch.topk(router_logits, self.top_k, dim=-1)
        if self.norm_topk_prob:
            router_top_value /= router_top_value.sum(dim=-1, keepdim=True)
        router_top_value = router_top_value.to(router_logits.dtype)
        return router_logits, router_top_value, router_indices


class SparseMoeBlock5(nn.Module):
    """MixtralSparseMoeBlock / Qwen3MoeSparseMoeBlock of transformers 5 (no jitter, no shared expert)."""

    def __init__(self, hidden, ffn, experts, top_k, norm_topk_prob, mixtral):
        super().__init__()
        self.gate = TopKRouter(hidden, experts, top_k, norm_topk_prob, mixtral)
        self.experts = Experts(experts, hidden, ffn)

    @property
    def counts(self):
        return self.experts.counts

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        _, routing_weights, selected_experts = self.gate(hidden_states)
        final_hidden_states = self.experts(hidden_states, selected_experts, routing_weights)
        return final_hidden_states.reshape(batch_size, sequence_length, hidden_dim), None


class DeepseekV3MoE5(nn.Module):
    """transformers 5's DeepseekV3MoE: DeepseekV3TopkRouter (F.linear in float32), route_tokens_to_experts
    without no_grad, the fused experts, the shared experts on the block input."""

    def __init__(self, hidden, moe_intermediate, experts, shared, top_k, n_group, topk_group):
        super().__init__()
        self.experts = Experts(experts, hidden, moe_intermediate)
        self.gate = DeepseekV3TopkRouter(hidden, experts, top_k, n_group, topk_group, 2.5)
        self.shared_experts = Qwen2MoeMLP(hidden, moe_intermediate * shared)
        self.n_routed_experts = experts
        self.n_group = n_group
        self.topk_group = topk_group
        self.top_k = top_k
        self.routed_scaling_factor = 2.5

    @property
    def counts(self):
        return self.experts.counts

    def route_tokens_to_experts(self, router_logits):
        router_logits = router_logits.sigmoid()
        router_logits_for_choice = router_logits + self.gate.e_score_correction_bias
        topk_indices = group_limited_top_k(router_logits_for_choice, self.n_group, self.topk_group, self.top_k)
        topk_weights = router_logits.gather(1, topk_indices)
        denominator = topk_weights.sum(dim=-1, keepdim=True) + 1e-20
        topk_weights /= denominator
        topk_weights = topk_weights * self.routed_scaling_factor
        return topk_indices, topk_weights

    def forward(self, hidden_states):
        residuals = hidden_states
        orig_shape = hidden_states.shape
        flat = hidden_states.view(-1, hidden_states.shape[-1])
        router_logits = F.linear(flat.type(torch.float32), self.gate.weight.type(torch.float32))
        topk_indices, topk_weights = self.route_tokens_to_experts(router_logits)
        hidden_states = self.experts(flat, topk_indices, topk_weights).view(*orig_shape)
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


def measure(block, experts, batch, skewed=False, live=False, autocast=False):
    torch.manual_seed(0)
    x = routed_input(batch, experts, skewed)
    params = list(block.parameters()) + list(block.buffers())
    rec = LiveRecorder(params) if live else Recorder(params)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        with torch.autograd.graph.saved_tensors_hooks(rec.pack, rec.unpack if live else lambda t: t):
            out, _ = block(x)
    storages = rec.storages
    out.float().sum().backward()  # the graph is sound
    input_ptr = storage_key(x)[0]
    new = {k: v for k, v in storages.items() if k != input_ptr}
    return {
        "batch": batch,
        "input_kept": input_ptr in storages,
        "new_bytes": sum(v[0] for v in new.values()),
        "assignments_per_expert": block.counts,
        "storages": sorted([[v[0], list(v[1]), v[2]] for v in new.values()], key=lambda r: (-r[0], r[1])),
    }


def run(name, block, experts, skewed=False, live=False, autocast=False, **info):
    block.train()
    two = measure(block, experts, 2, skewed, live, autocast)
    three = measure(block, experts, 3, skewed, live, autocast)
    if live or autocast:
        info = {**info, "live_nodes_only": live, "autocast_bf16": autocast}
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

    # transformers 5, grouped_mm experts, trained and frozen (LoRA elsewhere: the input requires grad).
    def grouped(name, make, experts, **info):
        for frozen in (False, True):
            block = make()
            route_gate(block.gate.weight, experts)
            block.requires_grad_(not frozen)
            suffix = "_frozen" if frozen else ""
            results["blocks"].append(run(name + suffix, block, experts, live=True, frozen=frozen, **info))
            if frozen and name == "qwen3_moe_grouped":
                results["blocks"].append(run(name + suffix + "_amp", block, experts, live=True, autocast=True,
                                             frozen=frozen, **info))

    # Qwen3-MoE-style: 8 experts of width 48, top-2, renormalised.
    grouped("qwen3_moe_grouped", lambda: SparseMoeBlock5(HIDDEN, 48, 8, 2, True, False), 8, top_k=2,
            expert_intermediate=48)
    # Mixtral-style: 4 experts of width 96, top-2.
    grouped("mixtral_grouped", lambda: SparseMoeBlock5(HIDDEN, 96, 4, 2, True, True), 4, top_k=2,
            expert_intermediate=96)
    # DeepSeek-V3-style as above, with the fused experts.
    grouped("deepseek_v3_grouped", lambda: DeepseekV3MoE5(HIDDEN, 32, 8, 1, 2, 4, 2), 8, top_k=2,
            expert_intermediate=32, shared_intermediate=32)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
