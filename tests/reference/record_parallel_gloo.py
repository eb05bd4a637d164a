#!/usr/bin/env python3
"""Per-rank memory references for parallel layouts, measured with real PyTorch (CPU, gloo).

Each case launches `world` CPU processes with torch.multiprocessing.spawn (backend gloo,
MASTER_ADDR=127.0.0.1, a free port). Every rank runs one forward of its part of the module under
torch.autograd.graph.saved_tensors_hooks and counts the bytes of the distinct storages saved for
backward (deduplicated by storage data_ptr; each storage's nbytes counted once). Storages that
belong to parameters are counted apart (saved_param_bytes) and are not in saved_bytes. Each rank
also runs the backward (and, where cheap, checks its numbers against the unsplit computation).

For every entry a second function, expected_<case>(), works out from formulas alone what each rank
should keep; the JSON holds both, and whether they agree.

Usage: /usr/bin/python3 tests/reference/record_parallel_gloo.py [--out PATH]
Writes tests/data/parallel/gloo_reference.json by default. Takes a minute or so on 2 cores.

The parallel layers are written here by hand after Megatron-LM's (tensor_parallel/layers.py,
mappings.py; pipeline_parallel/schedules.py), not imported. torch 1.13's gloo has no
reduce_scatter, _all_gather_base, _reduce_scatter_base or all_to_all (list form); reduce-scatter is
emulated with all_reduce + taking the local chunk; all_to_all_single (with split sizes) works and is
used for the expert dispatch.
"""

import json
import os
import socket
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

F32 = 4
BOOL = 1
I64 = 8

# --------------------------------------------------------------------------------------------
# Measuring saved tensors


def storage_of(t):
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    nbytes = s.nbytes() if callable(getattr(s, "nbytes", None)) else s.size() * s.element_size()
    return s.data_ptr(), int(nbytes)


class SavedMeter:
    """Counts distinct storages packed for backward, split into parameter and activation bytes.

    tag: the current owner (a micro-batch id in the pipeline case); storages are counted per tag."""

    def __init__(self, params):
        self.param_ptrs = {storage_of(p)[0] for p in params}
        self.by_tag = {}
        self.param_saved = {}
        self.tag = None

    def _pack(self, t):
        ptr, nbytes = storage_of(t)
        if ptr in self.param_ptrs:
            self.param_saved[ptr] = nbytes
        else:
            self.by_tag.setdefault(self.tag, {})[ptr] = nbytes
        return t

    def hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)

    def bytes(self, tag=None):
        return sum(self.by_tag.get(tag, {}).values())

    def param_bytes_saved(self):
        return sum(self.param_saved.values())


COMM = {}


def note_comm(key, *tensors):
    """Records the largest total size seen for one kind of collective buffer (the tensors actually
    handed to torch.distributed, or produced by it)."""
    n = sum(t.numel() * t.element_size() for t in tensors)
    COMM[key] = max(COMM.get(key, 0), n)


def param_stats(params):
    params = list(params)
    return sum(p.numel() for p in params), sum(p.numel() * p.element_size() for p in params)


# --------------------------------------------------------------------------------------------
# Hand-written Megatron-style collectives as autograd Functions


class CopyToTP(torch.autograd.Function):
    """Identity forward, all-reduce of the gradient in backward (Megatron copy_to_..._region)."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        g = g.contiguous().clone()
        dist.all_reduce(g)
        return g


class ReduceFromTP(torch.autograd.Function):
    """All-reduce forward (in place on the row-parallel output, as Megatron), identity backward."""

    @staticmethod
    def forward(ctx, x):
        note_comm("all_reduce", x)
        dist.all_reduce(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def _gather_seq(x):
    world = dist.get_world_size()
    parts = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(parts, x.contiguous())
    note_comm("all_gather_out", *parts)
    return torch.cat(parts, dim=0)


def _reduce_scatter_seq(x):
    # gloo in torch 1.13 has no reduce_scatter: all_reduce a copy, keep the local chunk.
    world, rank = dist.get_world_size(), dist.get_rank()
    full = x.contiguous().clone()
    note_comm("reduce_scatter_in", full)
    dist.all_reduce(full)
    return full.chunk(world, dim=0)[rank].contiguous()


class ReduceScatterToSP(torch.autograd.Function):
    """Forward reduce-scatter along the sequence (dim 0), backward all-gather."""

    @staticmethod
    def forward(ctx, x):
        return _reduce_scatter_seq(x)

    @staticmethod
    def backward(ctx, g):
        return _gather_seq(g)


class ColumnLinearSP(torch.autograd.Function):
    """Megatron's LinearWithGradAccumulationAndAsyncCommunication with sequence_parallel: all-gather
    the sequence-sharded input, multiply, save only the shard; backward re-gathers it and
    reduce-scatters the input gradient."""

    @staticmethod
    def forward(ctx, x_shard, weight, bias):
        ctx.save_for_backward(x_shard, weight)
        total = _gather_seq(x_shard)
        return torch.matmul(total, weight.t()) + bias

    @staticmethod
    def backward(ctx, g):
        x_shard, weight = ctx.saved_tensors
        total = _gather_seq(x_shard)
        grad_total = torch.matmul(g, weight)
        g2 = g.reshape(-1, g.shape[-1])
        grad_w = g2.t().matmul(total.reshape(-1, total.shape[-1]))
        grad_b = g2.sum(0)
        return _reduce_scatter_seq(grad_total), grad_w, grad_b


def native_dropout(x, p):
    # torch.native_dropout saves a bool mask (what CUDA's F.dropout does); F.dropout on the CPU
    # in torch 1.13 multiplies by a float noise tensor instead and saves that (4 bytes/element).
    return torch.native_dropout(x, p, True)[0]


# --------------------------------------------------------------------------------------------
# Case 1 and 2: tensor-parallel MLP, with and without the LayerNorm/dropout/residual block,
# with and without sequence parallelism. Layout [s, b, h] as Megatron.


def tp_params(h, f, t, rank, seed=7):
    g = torch.Generator().manual_seed(seed)
    w1 = torch.randn(f, h, generator=g) * 0.1
    b1 = torch.randn(f, generator=g) * 0.1
    w2 = torch.randn(h, f, generator=g) * 0.1
    b2 = torch.randn(h, generator=g) * 0.1
    lnw = 1 + torch.randn(h, generator=g) * 0.1
    lnb = torch.randn(h, generator=g) * 0.1
    fl = f // t
    local = {
        "w1": w1[rank * fl:(rank + 1) * fl].clone(), "b1": b1[rank * fl:(rank + 1) * fl].clone(),
        "w2": w2[:, rank * fl:(rank + 1) * fl].clone(), "b2": b2.clone(),
        "lnw": lnw.clone(), "lnb": lnb.clone(),
    }
    full = {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "lnw": lnw, "lnb": lnb}
    return ({k: v.requires_grad_() for k, v in local.items()}, full)


def run_tp(rank, world, cfg):
    s, b, h, f, t = cfg["seq"], cfg["batch"], cfg["hidden"], cfg["ffn"], world
    block, sp = cfg["block"], cfg["sequence_parallel"]
    p, full = tp_params(h, f, t, rank)
    used = ["w1", "b1", "w2", "b2"] + (["lnw", "lnb"] if block else [])
    params = [p[k] for k in used]
    g = torch.Generator().manual_seed(11)
    x_full = torch.randn(s, b, h, generator=g)
    x = (x_full.chunk(t, 0)[rank] if sp else x_full).clone().requires_grad_()
    drop = cfg.get("dropout", 0.0)

    def mlp(inp):
        if sp:
            a = ColumnLinearSP.apply(inp, p["w1"], p["b1"])
        else:
            a = F.linear(CopyToTP.apply(inp), p["w1"], p["b1"])
        a = F.gelu(a)
        o = F.linear(a, p["w2"])
        o = ReduceScatterToSP.apply(o) if sp else ReduceFromTP.apply(o)
        return o + p["b2"]

    def forward(inp):
        if not block:
            return mlp(inp)
        y = F.layer_norm(inp, (h,), p["lnw"], p["lnb"])
        y = mlp(y)
        if drop > 0:
            y = native_dropout(y, drop) if cfg.get("native_dropout", True) else F.dropout(y, drop, True)
        return inp + y

    meter = SavedMeter(params)
    torch.manual_seed(100 + rank)
    with meter.hooks():
        out = forward(x)
    out.sum().backward()
    n, nb = param_stats(params)
    res = {"params": n, "param_bytes": nb, "saved_bytes": meter.bytes(), "saved_param_bytes":
           meter.param_bytes_saved(), "saved_storages": len(meter.by_tag.get(None, {}))}
    if drop > 0:
        drop = 0.0
        with torch.no_grad():
            out = forward(x)  # the same layout without dropout, checked against the unsplit block
    if True:
        # unsplit check of the forward output
        with torch.no_grad():
            y = F.layer_norm(x_full, (h,), full["lnw"], full["lnb"]) if block else x_full
            y = F.linear(F.gelu(F.linear(y, full["w1"], full["b1"])), full["w2"], full["b2"])
            ref = x_full + y if block else y
            ref = ref.chunk(t, 0)[rank] if sp else ref
        res["matches_unsplit"] = bool(torch.allclose(out.detach(), ref, atol=1e-4))
    res["comm_buffer_bytes"] = dict(COMM)  # forward and backward, largest of each kind
    return res


def expected_tp(cfg, rank):
    """What one rank keeps for backward, from formulas (float32 = 4 bytes)."""
    s, b, h, f, t = cfg["seq"], cfg["batch"], cfg["hidden"], cfg["ffn"], cfg["t"]
    sp, block, drop = cfg["sequence_parallel"], cfg["block"], cfg.get("dropout", 0.0)
    sl = s // t if sp else s  # rows of the replicated parts on this rank
    n_tok = sl * b
    act = 0
    if block:
        act += n_tok * h * F32  # LayerNorm input (the block input x)
        act += 2 * n_tok * F32  # LayerNorm mean and rstd
        act += n_tok * h * F32  # LayerNorm output = column-parallel input (sharded under SP)
    else:
        act += n_tok * h * F32  # column-parallel input (sharded under SP; re-gathered in backward)
    act += s * b * (f // t) * F32  # column output = GELU input
    act += s * b * (f // t) * F32  # GELU output = row-parallel input
    if block and drop > 0:
        act += n_tok * h * (BOOL if cfg.get("native_dropout", True) else F32)  # dropout mask
    params = h * (f // t) + f // t + (f // t) * h + h + (2 * h if block else 0)
    full = s * b * h * F32  # the full-sequence activation every collective here moves
    comm = {"all_gather_out": full, "reduce_scatter_in": full} if sp else {"all_reduce": full}
    return {"params": params, "param_bytes": params * F32, "saved_bytes": act, "comm_buffer_bytes": comm}


# --------------------------------------------------------------------------------------------
# Case 3: pipeline stage, 1F1B and GPipe


def make_stage(h, f, blocks, rank, seed=3):
    g = torch.Generator().manual_seed(seed + 17 * rank)
    ps = []
    for _ in range(blocks):
        ps.append({"lnw": torch.ones(h), "lnb": torch.zeros(h),
                   "w1": torch.randn(f, h, generator=g) * 0.1, "b1": torch.zeros(f),
                   "w2": torch.randn(h, f, generator=g) * 0.1, "b2": torch.zeros(h)})
    for d in ps:
        for v in d.values():
            v.requires_grad_()
    return ps


def stage_forward(ps, x, h):
    for d in ps:
        y = F.layer_norm(x, (h,), d["lnw"], d["lnb"])
        y = F.linear(F.gelu(F.linear(y, d["w1"], d["b1"])), d["w2"], d["b2"])
        x = x + y
    return x


def run_pipeline(rank, world, cfg):
    s, b, h, f, m, nb = cfg["seq"], cfg["batch"], cfg["hidden"], cfg["ffn"], cfg["m"], cfg["blocks_per_stage"]
    p = world
    ps = make_stage(h, f, nb, rank)
    params = [v for d in ps for v in d.values()]
    meter = SavedMeter(params)
    shape = (s, b, h)
    first, last = rank == 0, rank == p - 1
    pending_sends = []
    inputs, outputs = {}, {}
    state = {"fwd": 0, "bwd": 0, "held": {}, "max_bytes": 0, "max_inflight": 0, "trace": []}

    def record():
        cur = sum(meter.bytes(k) for k in state["held"])
        state["trace"].append((len(state["held"]), cur))
        if cur > state["max_bytes"]:
            state["max_bytes"], state["max_inflight"] = cur, len(state["held"])

    def fwd():
        i = state["fwd"]
        state["fwd"] += 1
        if first:
            x = torch.randn(*shape, generator=torch.Generator().manual_seed(1000 + i))
        else:
            x = torch.empty(*shape)
            dist.recv(x, rank - 1)
            note_comm("activation_recv", x)
            x.requires_grad_()
        meter.tag = i
        with meter.hooks():
            out = stage_forward(ps, x, h)
            if last:
                out = out.mean()  # saves nothing for backward
        meter.tag = None
        state["held"][i] = True
        record()
        if not last:
            buf = out.detach().clone()
            note_comm("activation_send", buf)
            pending_sends.append((dist.isend(buf, rank + 1), buf))
            # Megatron's deallocate_output_tensor: keep only the autograd node, drop the data.
            out.data = torch.empty((1,))
        inputs[i], outputs[i] = x, out

    def bwd():
        i = state["bwd"]
        state["bwd"] += 1
        x, out = inputs.pop(i), outputs.pop(i)
        if last:
            grad = torch.ones(())
        else:
            grad = torch.empty(*shape)
            dist.recv(grad, rank + 1)
            note_comm("grad_recv", grad)
        # Bypass the Python shape check (the output's data was freed), as Megatron's custom_backward.
        torch.autograd.Variable._execution_engine.run_backward(
            tensors=(out,), grad_tensors=(grad,), keep_graph=False, create_graph=False, inputs=tuple(),
            allow_unreachable=True, accumulate_grad=True)
        del state["held"][i]
        meter.by_tag.pop(i, None)
        if not first:
            gx = x.grad.detach().clone()
            note_comm("grad_send", gx)
            pending_sends.append((dist.isend(gx, rank - 1), gx))

    if cfg["schedule"] == "1f1b":
        warmup = min(p - rank - 1, m)
        for _ in range(warmup):
            fwd()
        for _ in range(m - warmup):
            fwd()
            bwd()
        for _ in range(warmup):
            bwd()
    else:  # gpipe: all forwards, then all backwards
        for _ in range(m):
            fwd()
        for _ in range(m):
            bwd()
    for w, _ in pending_sends:
        w.wait()
    # unsplit check: every rank builds all stages (deterministic seeds), runs the m micro-batches
    # through them in one process and compares its own stage's parameter gradients.
    full = [make_stage(h, f, nb, r) for r in range(p)]
    for i in range(m):
        y = torch.randn(*shape, generator=torch.Generator().manual_seed(1000 + i))
        for st in full:
            y = stage_forward(st, y, h)
        y.mean().backward()
    mine = [v.grad for d in full[rank] for v in d.values()]
    grads_ok = all(torch.allclose(a.grad, b, atol=1e-5) for a, b in zip(params, mine))
    n, nbytes = param_stats(params)
    per_mb = state["trace"][0][1] if state["trace"] else 0
    return {"params": n, "param_bytes": nbytes, "saved_bytes": state["max_bytes"],
            "saved_bytes_per_microbatch": per_mb, "in_flight": state["max_inflight"],
            "grads_match_unsplit": grads_ok,
            "held_trace": [list(tr) for tr in state["trace"]],
            "comm_buffer_bytes": dict(COMM)}


def expected_pipeline(cfg, rank):
    s, b, h, f, m, p, nb = (cfg["seq"], cfg["batch"], cfg["hidden"], cfg["ffn"], cfg["m"], cfg["p"],
                            cfg["blocks_per_stage"])
    n_tok = s * b
    # per block: LN input, LN mean+rstd, LN output (= fc1 input), fc1 output (= GELU input),
    # GELU output (= fc2 input); the residual add saves nothing.
    per_block = n_tok * h * F32 * 2 + 2 * n_tok * F32 + n_tok * f * F32 * 2
    per_mb = nb * per_block
    in_flight = min(p - rank, m) if cfg["schedule"] == "1f1b" else m
    params = nb * (2 * h + f * h + f + h * f + h)
    act = s * b * h * F32
    comm = {}
    if rank > 0:
        comm.update(activation_recv=act, grad_send=act)
    if rank < p - 1:
        comm.update(activation_send=act, grad_recv=act)
    return {"params": params, "param_bytes": params * F32, "saved_bytes": per_mb * in_flight,
            "saved_bytes_per_microbatch": per_mb, "in_flight": in_flight, "comm_buffer_bytes": comm}


# --------------------------------------------------------------------------------------------
# Case 4: context parallelism, ring attention with logsumexp combination


def _block_attn(q, k, v, scale, mask):
    sc = torch.matmul(q, k.transpose(-1, -2)) * scale
    if mask is not None:
        sc = sc.masked_fill(mask, float("-inf"))
    lse = torch.logsumexp(sc, dim=-1)
    o = torch.matmul(torch.exp(sc - lse.unsqueeze(-1)), v)
    return o, lse


def _causal_mask(r, src, n):
    """Mask for queries of block r against keys of block src (True = masked); None = no mask;
    'skip' = all masked."""
    if src < r:
        return None
    if src > r:
        return "skip"
    return torch.ones(n, n, dtype=torch.bool).triu(1)


def _ring_pass(tensors, key):
    world, rank = dist.get_world_size(), dist.get_rank()
    if world == 1:
        return tensors
    recv = [torch.empty_like(t) for t in tensors]
    sends = [t.contiguous() for t in tensors]
    note_comm(key, *(sends + recv))
    reqs = [dist.isend(t, (rank + 1) % world) for t in sends]
    for t in recv:
        dist.recv(t, (rank - 1) % world)
    for r in reqs:
        r.wait()
    return recv


class RingAttention(torch.autograd.Function):
    """Ring attention: K/V blocks travel around the ring; forward keeps only q, k, v (local),
    the output and the logsumexp; backward re-circulates K/V together with their dK/dV."""

    @staticmethod
    def forward(ctx, q, k, v, causal):
        world, rank = dist.get_world_size(), dist.get_rank()
        n, scale = q.shape[-2], q.shape[-1] ** -0.5
        out, lse = None, None
        kb, vb = k, v
        for step in range(world):
            src = (rank - step) % world
            mask = _causal_mask(rank, src, n) if causal else None
            if not (isinstance(mask, str)):
                o, l = _block_attn(q, kb, vb, scale, mask)
                if out is None:
                    out, lse = o, l
                else:
                    new = torch.logaddexp(lse, l)
                    out = out * torch.exp(lse - new).unsqueeze(-1) + o * torch.exp(l - new).unsqueeze(-1)
                    lse = new
            if step < world - 1:
                kb, vb = _ring_pass([kb, vb], "forward_ring_send_recv")
        ctx.causal = causal
        ctx.save_for_backward(q, k, v, out, lse)
        return out

    @staticmethod
    def backward(ctx, g):
        q, k, v, out, lse = ctx.saved_tensors
        world, rank = dist.get_world_size(), dist.get_rank()
        n, scale = q.shape[-2], q.shape[-1] ** -0.5
        delta = (g * out).sum(-1, keepdim=True)
        dq = torch.zeros_like(q)
        kb, vb, dkb, dvb = k, v, torch.zeros_like(k), torch.zeros_like(v)
        for step in range(world):
            src = (rank - step) % world
            mask = _causal_mask(rank, src, n) if ctx.causal else None
            if not isinstance(mask, str):
                sc = torch.matmul(q, kb.transpose(-1, -2)) * scale
                if mask is not None:
                    sc = sc.masked_fill(mask, float("-inf"))
                pr = torch.exp(sc - lse.unsqueeze(-1))
                dvb = dvb + torch.matmul(pr.transpose(-1, -2), g)
                dp = torch.matmul(g, vb.transpose(-1, -2))
                ds = pr * (dp - delta) * scale
                dq = dq + torch.matmul(ds, kb)
                dkb = dkb + torch.matmul(ds.transpose(-1, -2), q)
            kb, vb, dkb, dvb = _ring_pass([kb, vb, dkb, dvb], "backward_ring_send_recv")
        return dq, dkb, dvb, None


def run_ring(rank, world, cfg):
    b, H, T, d, c, causal = cfg["batch"], cfg["heads"], cfg["seq"], cfg["head_dim"], world, cfg["causal"]
    g = torch.Generator().manual_seed(5)
    qf, kf, vf = (torch.randn(b, H, T, d, generator=g) for _ in range(3))
    q, k, v = (t.chunk(c, dim=2)[rank].clone().requires_grad_() for t in (qf, kf, vf))
    meter = SavedMeter([])
    with meter.hooks():
        out = RingAttention.apply(q, k, v, causal)
    go = torch.randn(b, H, T, d, generator=torch.Generator().manual_seed(6))
    out.backward(go.chunk(c, dim=2)[rank])
    # unsplit reference (plain autograd on this process, measured too)
    qr, kr, vr = (t.clone().requires_grad_() for t in (qf, kf, vf))
    naive = SavedMeter([])
    with naive.hooks():
        sc = torch.matmul(qr, kr.transpose(-1, -2)) * d ** -0.5
        if causal:
            sc = sc.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        ref = torch.matmul(torch.softmax(sc, -1), vr)
    ref.backward(go)
    ok = all(torch.allclose(a, bb.chunk(c, dim=2)[rank], atol=1e-4)
             for a, bb in ((out.detach(), ref.detach()), (q.grad, qr.grad), (k.grad, kr.grad), (v.grad, vr.grad)))
    return {"params": 0, "param_bytes": 0, "saved_bytes": meter.bytes(), "matches_unsplit": ok,
            "unsplit_naive_saved_bytes": naive.bytes(),
            "comm_buffer_bytes": dict(COMM)}


def expected_ring(cfg, rank):
    b, H, T, d, c, causal = cfg["batch"], cfg["heads"], cfg["seq"], cfg["head_dim"], cfg["c"], cfg["causal"]
    n = T // c
    saved = 4 * b * H * n * d * F32 + b * H * n * F32  # q, k, v, out + logsumexp
    # q, k, v; softmax output; the causal bool mask (masked_fill saves it); and `scores * scale`
    # with a Python float saves the wrapped 0-dim float64 scalar (8 bytes) for the gradient.
    naive = 3 * b * H * T * d * F32 + b * H * T * T * F32 + (T * T * BOOL if causal else 0) + 8
    blk = b * H * n * d * F32  # one K (or V) block
    # forward: K and V sent and K and V received per ring step; backward adds dK and dV.
    comm = {"forward_ring_send_recv": 4 * blk, "backward_ring_send_recv": 8 * blk} if c > 1 else {}
    return {"params": 0, "param_bytes": 0, "saved_bytes": saved, "unsplit_naive_saved_bytes": naive,
            "kv_block_bytes": 2 * blk, "comm_buffer_bytes": comm}


# --------------------------------------------------------------------------------------------
# Case 5: expert parallelism, all_to_all_single dispatch


class AllToAll(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, out_splits, in_splits, key):
        ctx.splits = (out_splits, in_splits)
        out = x.new_empty((sum(out_splits),) + tuple(x.shape[1:]))
        x = x.contiguous()
        dist.all_to_all_single(out, x, out_splits, in_splits)
        note_comm(key + "_send", x)
        note_comm(key + "_recv", out)
        return out

    @staticmethod
    def backward(ctx, g):
        out_splits, in_splits = ctx.splits
        gi = g.new_empty((sum(in_splits),) + tuple(g.shape[1:]))
        dist.all_to_all_single(gi, g.contiguous(), in_splits, out_splits)
        return gi, None, None, None


def moe_weights(h, f, E, seed=9):
    g = torch.Generator().manual_seed(seed)
    router = (torch.randn(E, h, generator=g) * 0.01, torch.zeros(E))
    experts = [(torch.randn(f, h, generator=g) * 0.1, torch.randn(f, generator=g) * 0.1,
                torch.randn(h, f, generator=g) * 0.1, torch.randn(h, generator=g) * 0.1) for _ in range(E)]
    return router, experts


def routing_offset(N, E):
    # token n -> experts n % E (logit +20) and (n+1) % E (logit +10): every expert gets N*k/E of every
    # rank's tokens (N divisible by E), whatever the small router logits are.
    off = torch.zeros(N, E)
    ar = torch.arange(N)
    off[ar, ar % E] = 20.0
    off[ar, (ar + 1) % E] = 10.0
    return off


def run_moe(rank, world, cfg):
    s, b, h, f, E, k = cfg["seq"], cfg["batch"], cfg["hidden"], cfg["ffn"], cfg["experts"], cfg["topk"]
    e = world
    El = E // e
    N = s * b
    (rw, rb), experts = moe_weights(h, f, E)
    rw, rb = rw.clone().requires_grad_(), rb.clone().requires_grad_()
    local = [tuple(w.clone().requires_grad_() for w in experts[rank * El + j]) for j in range(El)]
    params = [rw, rb] + [w for ex in local for w in ex]
    x = torch.randn(N, h, generator=torch.Generator().manual_seed(200 + rank)).requires_grad_()
    off = routing_offset(N, E)
    meter = SavedMeter(params)
    with meter.hooks():
        logits = F.linear(x, rw, rb) + off
        probs = torch.softmax(logits, -1)
        gates, idx = torch.topk(probs, k, dim=-1)
        flat_e = idx.reshape(-1)
        order = torch.argsort(flat_e * N * k + torch.arange(N * k), stable=False)  # stable by construction
        tok_sorted = (torch.arange(N * k) // k)[order]
        e_sorted = flat_e[order]
        send = x.index_select(0, tok_sorted)
        counts = torch.bincount(e_sorted, minlength=E)  # per global expert, sorted order
        send_splits = [int(counts[j * El:(j + 1) * El].sum()) for j in range(e)]
        recv_counts = torch.empty(e * El, dtype=torch.int64)
        dist.all_to_all_single(recv_counts, counts.clone(), [El] * e, [El] * e)
        rc = recv_counts.view(e, El)
        recv_splits = [int(r) for r in rc.sum(1)]
        recv = AllToAll.apply(send, recv_splits, send_splits, "dispatch")
        # group received rows (source-major, then local expert) by local expert
        chunks = list(recv.split([int(v) for v in rc.reshape(-1)]))
        outs = [None] * (e * El)
        for j in range(El):
            xin = torch.cat([chunks[src * El + j] for src in range(e)])
            w1, b1, w2, b2 = local[j]
            y = F.linear(F.gelu(F.linear(xin, w1, b1)), w2, b2)
            ys = y.split([int(rc[src, j]) for src in range(e)])
            for src in range(e):
                outs[src * El + j] = ys[src]
        back = torch.cat(outs)
        y_sorted = AllToAll.apply(back, send_splits, recv_splits, "combine")
        g_sorted = gates.reshape(-1).index_select(0, order)
        weighted = y_sorted * g_sorted.unsqueeze(-1)
        out = torch.zeros(N, h).index_add(0, tok_sorted, weighted)
    out.sum().backward()
    # unsplit reference
    with torch.no_grad():
        ref = torch.zeros(N, h)
        for n in range(N):
            for j in range(k):
                w1, b1, w2, b2 = experts[int(idx[n, j])]
                ref[n] += gates[n, j] * F.linear(F.gelu(F.linear(x[n], w1, b1)), w2, b2)
    counts_all = counts.clone()
    dist.all_reduce(counts_all)
    tokens_per_expert = [int(v) for v in counts_all]
    n, nbytes = param_stats(params)
    return {"params": n, "param_bytes": nbytes, "saved_bytes": meter.bytes(),
            "saved_param_bytes": meter.param_bytes_saved(),
            "matches_unsplit": bool(torch.allclose(out.detach(), ref, atol=1e-5)),
            "tokens_per_expert": tokens_per_expert, "send_rows": send_splits, "recv_rows": recv_splits,
            "comm_buffer_bytes": dict(COMM)}


def expected_moe(cfg, rank):
    s, b, h, f, E, k, e = (cfg["seq"], cfg["batch"], cfg["hidden"], cfg["ffn"], cfg["experts"], cfg["topk"],
                           cfg["e"])
    N = s * b
    R = N * k  # rows received per rank: every rank sends N*k/e rows to every rank
    saved = (N * h * F32  # x (router input; index_select saves only the index)
             + N * E * F32  # softmax output
             + N * k * I64  # topk indices
             + N * k * I64  # tok_sorted (index_select and index_add share it)
             + N * k * I64  # order (index_select of the gates)
             + R * h * F32  # expert inputs (cat per local expert)
             + 2 * R * f * F32  # fc1 output (GELU input), GELU output (fc2 input)
             + N * k * h * F32  # combined expert outputs (mul saves them for the gate gradient)
             # index_add: torch 1.13's derivatives.yaml formula for `source` reads source.dim(), so
             # autograd saves the whole source (the weighted rows), not only the index.
             + N * k * h * F32
             + N * k * F32)  # sorted gates (mul saves them for the output gradient)
    params = h * E + E + (E // e) * (h * f + f + f * h + h)
    return {"params": params, "param_bytes": params * F32, "saved_bytes": saved,
            "tokens_per_expert": [e * N * k // E] * E,
            "comm_buffer_bytes": {"dispatch_send": N * k * h * F32, "dispatch_recv": R * h * F32,
                                  "combine_send": R * h * F32, "combine_recv": N * k * h * F32}}


# --------------------------------------------------------------------------------------------
# Driver

RUNNERS = {"tp": run_tp, "pipeline": run_pipeline, "ring": run_ring, "moe": run_moe}
EXPECTED = {"tp": expected_tp, "pipeline": expected_pipeline, "ring": expected_ring, "moe": expected_moe}


def _worker(rank, world, port, case, outdir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    res = RUNNERS[case["kind"]](rank, world, case["sizes"])
    dist.barrier()
    dist.destroy_process_group()
    with open(os.path.join(outdir, "rank%d.json" % rank), "w") as fh:
        json.dump(res, fh)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_case(case):
    world = case["world"]
    with tempfile.TemporaryDirectory() as outdir:
        mp.spawn(_worker, args=(world, free_port(), case, outdir), nprocs=world, join=True)
        ranks = []
        for r in range(world):
            with open(os.path.join(outdir, "rank%d.json" % r)) as fh:
                ranks.append(json.load(fh))
    compared = ("params", "param_bytes", "saved_bytes", "in_flight", "saved_bytes_per_microbatch",
                "unsplit_naive_saved_bytes", "tokens_per_expert", "comm_buffer_bytes")
    out_ranks, agree_all = [], True
    for r, meas in enumerate(ranks):
        exp = EXPECTED[case["kind"]](case["sizes"], r)
        agree = {key: meas.get(key) == exp[key] for key in compared if key in exp}
        agree_all = agree_all and all(agree.values())
        out_ranks.append({"rank": r, "measured": meas, "expected": exp, "agree": agree})
    return {"layout": case["layout"], "kind": case["kind"], "sizes": case["sizes"],
            "torch_version": torch.__version__, "backend": "gloo", "world_size": world,
            "ranks": out_ranks, "all_agree": agree_all, "note": case["note"]}


def cases():
    out = []
    base = {"batch": 2, "seq": 16, "hidden": 32, "ffn": 128, "heads": None, "experts": None, "topk": None,
            "t": 1, "p": 1, "c": 1, "e": 1, "m": 1, "dtype": "float32"}
    note_tp = ("Column-parallel Linear h->4h/t (input saved; under SP only the sequence shard, re-gathered "
               "in backward), GELU saves its input, the row-parallel Linear saves the GELU output; the "
               "all-reduce / reduce-scatter save nothing. Parameters: W1 and b1 sharded, W2 sharded by "
               "columns, b2 (added after the reduction) and LayerNorm replicated.")
    note_block = (" LayerNorm saves its input + mean + rstd (one float each per row); dropout uses "
                  "torch.native_dropout, which saves a bool mask (1 byte/element, as CUDA's F.dropout); "
                  "the residual add saves nothing.")
    for sp in (False, True):
        for block in (False, True):
            for t in (2, 4):
                sz = dict(base, t=t, sequence_parallel=sp, block=block, dropout=0.1 if block else 0.0)
                name = "%s%s" % ("sp_" if sp else "tp_", "mlp_block" if block else "mlp")
                out.append({"layout": name, "kind": "tp", "world": t, "sizes": sz,
                            "note": note_tp + (note_block if block else "") +
                            (" gloo has no reduce_scatter in torch 1.13: emulated by all_reduce + local "
                             "chunk (memory-transient only)." if sp else "")})
    # F.dropout on the CPU: torch 1.13 saves a float32 noise tensor (4 bytes/element), not a bool mask.
    sz = dict(base, t=2, sequence_parallel=False, block=True, dropout=0.1, native_dropout=False)
    out.append({"layout": "tp_mlp_block_cpu_F_dropout", "kind": "tp", "world": 2, "sizes": sz,
                "note": "As tp_mlp_block but with F.dropout: on the CPU torch 1.13 takes the non-fused path "
                        "(input * bernoulli noise) and saves the float32 noise, 4 bytes/element; CUDA's "
                        "fused native_dropout saves a 1-byte bool mask."})
    for sched in ("1f1b", "gpipe"):
        sz = dict(base, p=4, m=8, blocks_per_stage=2, schedule=sched)
        out.append({"layout": "pipeline_" + sched, "kind": "pipeline", "world": 4, "sizes": sz,
                    "note": "Each stage: 2 pre-LN residual blocks x + W2 GELU(W1 LN(x)). Per micro-batch "
                            "per block: LN input, mean, rstd, LN output, fc1 output, GELU output. The "
                            "stage output is freed after its send (Megatron's deallocate_output_tensor) "
                            "and the backward runs through the engine directly; the last stage's loss is "
                            "out.mean(), which saves nothing. saved_bytes is the maximum over the "
                            "schedule of the bytes held by the micro-batches whose backward has not "
                            "run; in_flight is the number of those micro-batches at that maximum."})
    for c in (1, 2, 4):
        for causal in (False, True):
            sz = dict(base, batch=2, seq=64, heads=4, head_dim=16, hidden=64, ffn=None, c=c, causal=causal)
            out.append({"layout": "ring_attention" + ("_causal" if causal else ""), "kind": "ring",
                        "world": c, "sizes": sz,
                        "note": "Ring attention as one autograd Function: forward keeps q, k, v (the local "
                                "T/c block), the output and the logsumexp (flash-attention style); K/V "
                                "blocks travel around the ring (c-1 steps forward; c steps backward with "
                                "dK/dV, which return to their owner). c=1 is the unsplit computation. "
                                "unsplit_naive_saved_bytes: plain autograd attention on the whole "
                                "sequence on one process (q, k, v, softmax probabilities, and the causal "
                                "bool mask). Causality changes no saved size. The first hand formula for "
                                "the naive case was 8 bytes short: `scores * scale` with a Python float "
                                "saves the wrapped 0-dim float64 scalar (checked alone); now counted."})
    for e in (1, 2, 4):
        sz = dict(base, batch=2, seq=16, hidden=32, ffn=64, experts=8, topk=2, e=e)
        out.append({"layout": "moe_expert_parallel", "kind": "moe", "world": e, "sizes": sz,
                    "note": "Router Linear h->E (replicated), softmax, top-2; each rank holds E/e experts "
                            "(Linear h->f, GELU, Linear f->h). Routing fixed by logit offsets (token n to "
                            "experts n%E and (n+1)%E): every expert receives N*k/E rows of every rank. "
                            "Dispatch and combine with dist.all_to_all_single and split sizes (gloo has "
                            "all_to_all_single in torch 1.13, not the list all_to_all). The combine mul "
                            "saves both the expert outputs and the gates; index_select / index_add save "
                            "int64 indices. The first hand formula was N*k*h*4 bytes short: index_add "
                            "also saves its source (torch 1.13's derivative reads source.dim()); checked "
                            "alone and now counted. Per-rank saved bytes do not depend on e when routing "
                            "is balanced: each rank still processes N*k rows, only the experts differ."})
    return out


def main():
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "parallel",
                            "gloo_reference.json")
    if "--out" in sys.argv:
        out_path = sys.argv[sys.argv.index("--out") + 1]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    entries = []
    for case in cases():
        if only and case["kind"] != only:
            continue
        entry = run_case(case)
        print("%-28s world=%d agree=%s saved=%s" % (entry["layout"], entry["world_size"], entry["all_agree"],
              [r["measured"]["saved_bytes"] for r in entry["ranks"]]), flush=True)
        entries.append(entry)
    doc = {"generator": "tests/reference/record_parallel_gloo.py", "torch_version": torch.__version__,
           "units": "bytes; params are element counts; float32 everywhere",
           "entries": entries}
    with open(out_path, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    checks = [r["measured"].get(key, True) for e in entries for r in e["ranks"]
              for key in ("matches_unsplit", "grads_match_unsplit")]
    if not all(e["all_agree"] for e in entries) or not all(checks):
        print("record_parallel_gloo.py: some measured figures differ from the hand formulas, or a "
              "layout's numbers differ from the unsplit computation (see the JSON)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
