#!/usr/bin/python3
"""Measured reference suite for Headroom (issue 6).

Builds each reference network in PyTorch, runs real training steps on the CPU and writes what
PyTorch actually keeps in memory to tests/reference/measurements.json, so the C++ tests can compare
Headroom's estimates against measured figures without needing torch.

What is measured, per network and precision policy (fp32, and torch.autocast("cpu", bfloat16) for
some networks):

* parameter and buffer counts and bytes;
* optimizer-state bytes after one step() of every optimizer Headroom offers (full-size state
  tensors; the scalar `step` entries are recorded apart);
* the bytes autograd saves for backward: every saved tensor is captured through
  torch.autograd.graph.saved_tensors_hooks (pack order = forward order), and the autograd graph is
  walked from the loss so each captured tensor is tied to the node and attribute that saved it
  (e.g. ConvolutionBackward0._saved_input). Storages are de-duplicated (each storage's full nbytes
  counted once); parameters, buffers, the input batch and the labels are classified apart; only
  storages referenced by a node reachable from the loss count. Measured at several batch sizes, so
  the per-sample slope and the batch-independent part are both known (and linearity is checked);
* the peak of CPU allocator usage during one full first training step (Adam), from the profiler's
  memory events;
* the rules of thumb people use today (cs231n / summary tools), for comparison.

CPU torch 1.13 and the CUDA PyTorch 2.x Headroom models differ in five places (dropout mask, attention,
mean's saved input, log_sigmoid's buffer, recurrent layers); the first four are applied explicitly from the per-tensor
records, the recurrent internals are split out (see ADJUSTMENTS below and README.md), and both the raw
and the adjusted figures are written.

Training strategies (issue 7, `strategies` in the output): frozen layers (requires_grad_(False))
and per-block activation checkpointing (torch.utils.checkpoint, use_reentrant=True), measured the
same way; for checkpointing also one block's recomputed activations, standalone and inside a real
checkpointed backward pass (see measure_strategy_case and README.md).

Regenerate: /usr/bin/python3 tests/reference/measure.py --out tests/reference/measurements.json
Only the strategy cases (keeps `networks`):
            /usr/bin/python3 tests/reference/measure.py --strategies --out tests/reference/measurements.json
Tables from the committed file, without torch (any python3): --table (README.md's) and
--accuracy [--headroom tst_reference.log] (docs/accuracy.md's, which tst_referenceaccuracy checks).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
THREADS = 2
RULE_BATCH = 32  # the batch docs/accuracy.md compares the rules of thumb at (rules_of_thumb.totals)

# --------------------------------------------------------------------------------------------------
# Tables from an existing measurements.json (no torch needed: this part runs before torch is imported)
# --------------------------------------------------------------------------------------------------

ADJUSTMENT_LABELS = (("dropout_mask", "dropout mask"), ("attention_sdpa", "SDPA"), ("mean_input", "mean input"),
                     ("log_sigmoid_buffer", "log_sigmoid buffer"))


def adjustment_parts(run):
    """The non-zero CPU -> CUDA adjustments of a run, per sample: ["dropout mask -2,304", ...]."""
    adj = run["adjustments"]
    return [f"{label} {adj[key]['bytes_per_sample']:+,}" for key, label in ADJUSTMENT_LABELS
            if adj.get(key, {}).get("bytes_per_sample")]


def compared_activations(run):
    """The per-sample activation bytes tst_referencenetworks compares with Headroom: the CUDA-adjusted figure, or
    for a network with recurrent layers everything but what those layers alone keep."""
    if run["activation_bytes_per_sample_cuda"] is not None:
        return run["activation_bytes_per_sample_cuda"]
    return run["activation_bytes_per_sample_outside_recurrent"]


def read_headroom_log(path):
    """Headroom's figures from the tst_reference* tests' output ("... <tag>: measured M, estimated E, error ..."),
    as {tag: (measured, estimated)}; tags are "network precision" or a strategy case name."""
    found = {}
    if path is None:
        return found
    with open(path) as f:
        for line in f:
            m = re.search(r"\) ([^()]+?): measured (\d+), estimated (\d+)", line)
            if m:
                found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return found


def _headroom_cells(tag, measured, headroom):
    got = headroom.get(tag)
    if got is None:
        return "?", "?"
    if got[0] != measured:
        raise SystemExit(f"{tag}: the log's measured figure {got[0]:,} is not this file's {measured:,}")
    return f"{got[1]:,}", f"{100.0 * (got[1] - measured) / measured:+.2f} %"


PEAK_TABLE_HEADER = (
    "| network | batch | compared | first step: measured (B) | first step: simulated (B) | first step: difference "
    "| steady step: measured (B) | steady step: simulated (B) | steady step: difference | steady peak at, measured "
    "| steady peak at, simulated |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|")
MAX_BATCH_TABLE_HEADER = (
    "| network | rule of thumb | old sum of worst cases | simulated peak | measured | simulated vs measured "
    "| simulated peak at | simulated, through the measured batches |\n|---|---:|---:|---:|---:|---:|---|---:|")


def read_headroom_rows(path, marker):
    """The Markdown rows tst_referencesteps logs after `marker` ("peak table row:", "max batch row:"): the step-peak
    and max-batch tables are computed by the test from measurements.json and Headroom's simulation."""
    rows = []
    if path is None:
        return rows
    with open(path) as f:
        for line in f:
            at = line.find(marker)
            if at >= 0:
                rows.append(line[at + len(marker):].strip())
    return rows


def step_tables(headroom_log):
    """docs/accuracy.md's step-peak and max-batch tables, from a log of the tst_reference* tests (without one: headers only)."""
    peaks = read_headroom_rows(headroom_log, "peak table row:")
    batches = read_headroom_rows(headroom_log, "max batch row:")
    return "\n".join([PEAK_TABLE_HEADER, *peaks, "", MAX_BATCH_TABLE_HEADER, *batches])


def accuracy_tables(doc, headroom):
    """docs/accuracy.md's three tables (activations, rules of thumb, strategies); tst_referenceaccuracy checks
    the document against measurements.json and Headroom's analysis. Headroom's columns come from a
    log of the tst_reference* tests (--headroom); without one they are "?"."""
    out = ["| network | precision | parameters (= PyTorch) | raw CPU (B/sample) | CPU → CUDA (B/sample) "
           "| measured (B/sample) | Headroom (B/sample) | error |",
           "|---|---|---:|---:|---|---:|---:|---:|"]
    for n in doc["networks"]:
        for r in n["runs"]:
            parts = adjustment_parts(r)
            if r["activation_bytes_per_sample_cuda"] is None:
                parts.append(f"LSTM internals {-r['recurrent']['internal_bytes_per_sample']:+,} (not compared)")
            measured = compared_activations(r)
            hr, err = _headroom_cells(f"{n['name']} {r['precision']}", measured, headroom)
            out.append(f"| {n['name']} | {r['precision']} | {n['parameters']['total']:,} "
                       f"| {r['activation_bytes_per_sample_raw']:,} | {'; '.join(parts) or '-'} | {measured:,} "
                       f"| {hr} | {err} |")
    mib = 2**20
    out += ["", "| network | layer outputs (elements/sample) | rule, momentum SGD (MiB) | measured, momentum SGD (MiB) "
            "| rule / measured | rule, Adam (MiB) | measured, Adam (MiB) | rule / measured |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n in doc["networks"]:
        rot = n["rules_of_thumb"]
        t = rot["totals"][str(RULE_BATCH)]
        out.append(f"| {n['name']} | {rot['activation_elements_per_sample_all_layers']:,} "
                   f"| {t['rule_sgd'] / mib:,.1f} | {t['measured_momentum'] / mib:,.1f} "
                   f"| {t['rule_sgd'] / t['measured_momentum']:.2f}× "
                   f"| {t['rule_adam'] / mib:,.1f} | {t['measured_adam'] / mib:,.1f} "
                   f"| {t['rule_adam'] / t['measured_adam']:.2f}× |")
    out += ["", "| case | kind | trainable / parameters | measured (B/sample) | Headroom (B/sample) | error "
            "| without the strategy, measured (B/sample) |",
            "|---|---|---:|---:|---:|---:|---:|"]
    base = {n["name"]: n for n in doc["networks"]}
    for c in doc.get("strategies", []):
        cm = c["compare_with_headroom"]
        measured = cm["activationBytesPerSample"]
        if c["kind"] == "checkpoint":
            k = c["checkpoint"]
            cell = (f"{measured:,} = {k['saved_after_forward_bytes_per_sample']:,} + "
                    f"{k['recomputed_block_bytes_per_sample']:,}")
            without = cm["uncheckpointedActivationBytesPerSample"]
        else:
            cell = f"{measured:,}"
            without = base[c["baseline_network"]]["runs"][0]["activation_bytes_per_sample_cuda"]
        hr, err = _headroom_cells(c["name"], measured, headroom)
        out.append(f"| {c['name']} | {c['kind']} | {cm['trainableParams']:,} / {cm['totalParams']:,} | {cell} "
                   f"| {hr} | {err} | {without:,} |")
    return "\n".join(out)


def markdown_table(doc):
    """The README's table of findings, from a measurements.json document."""
    def mib(n):
        return "-" if n is None else f"{n:,}"

    rows = ["| network | precision | parameters | saved raw (B/sample) | saved CUDA-adjusted (B/sample) | fixed (B) "
            "| adjustments (B/sample) | loss (B/sample) | rule of thumb activations x2 (B/sample) | Adam state (B) "
            "| model file check |",
            "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    for n in doc["networks"]:
        if "runs" not in n:
            rows.append(f"| {n['name']} | skipped: {n.get('skipped')} ||||||||||")
            continue
        chk = n.get("model_file_check", {})
        status = chk.get("status", "")
        if status == "ok":
            status = "params match" + (", saved bytes match" if chk.get("saved_match") else
                                       (", saved bytes DIFFER" if "saved_match" in chk else ""))
        for r in n["runs"]:
            parts = adjustment_parts(r)
            if r["recurrent"]["calls"]:
                parts.append(f"none (LSTM internals {mib(r['recurrent']['internal_bytes_per_sample'])} not comparable)")
            cuda = r["activation_bytes_per_sample_cuda"]
            rows.append(
                f"| {n['name']} | {r['precision']} | {n['parameters']['total']:,} | {mib(r['activation_bytes_per_sample_raw'])} "
                f"| {mib(cuda) if cuda is not None else 'n/a (LSTM)'} | {r['activation_bytes_fixed']:,} | {'; '.join(parts) or '-'} "
                f"| {mib(r['loss_activation_bytes_per_sample'])} "
                f"| {mib(n['rules_of_thumb']['activation_bytes_per_sample_rule'])} "
                f"| {mib(r['optimizer_state_bytes']['adam'])} | {status if r['precision'] == 'fp32' else ''} |")
    rows += ["", f"At batch {RULE_BATCH}, fp32, in MiB (measured = weights + buffers + gradients + optimizer state + CUDA-adjusted "
             "activations + input + labels; no transient buffers, no CUDA context):", "",
             "| network | activations per sample: all layers / weighted+pool (elements) | measured saved (B/sample) "
             "| rule, SGD | measured, SGD | rule, Adam | rule, Adam, weighted+pool | measured, Adam |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n in doc["networks"]:
        if "runs" not in n:
            continue
        rot = n["rules_of_thumb"]
        t = rot["totals"][str(RULE_BATCH)]
        r = n["runs"][0]
        saved = r["activation_bytes_per_sample_cuda"]
        if saved is None:
            saved = r["activation_bytes_per_sample_raw"]
        rows.append(f"| {n['name']} | {rot['activation_elements_per_sample_all_layers']:,} / "
                    f"{rot['activation_elements_per_sample_weighted_and_pool']:,} | {saved:,} "
                    f"| {t['rule_sgd'] / 2**20:,.1f} | {t['measured_sgd'] / 2**20:,.1f} | {t['rule_adam'] / 2**20:,.1f} "
                    f"| {t['rule_adam_weighted_and_pool'] / 2**20:,.1f} | {t['measured_adam'] / 2**20:,.1f} |")
    return "\n".join(rows)


def strategies_table(doc):
    """The README's table of the training-strategy cases."""
    base = {n["name"]: n for n in doc.get("networks", [])}
    rows = ["| case | kind | parameters / trainable | saved raw (B/sample) | saved CUDA-adjusted (B/sample) "
            "| one block recomputed (B/sample) | compared with Headroom (B/sample) | without the strategy (B/sample) "
            "| Adam state (B) | model file check |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in doc.get("strategies", []):
        r, cm, chk = c["run"], c["compare_with_headroom"], c["model_file_check"]
        if c["kind"] == "checkpoint":
            k = c["checkpoint"]
            block, without = f"{k['recomputed_block_bytes_per_sample']:,}", f"{k['uncheckpointed_bytes_per_sample']:,}"
        else:
            b = base.get(c.get("baseline_network"))
            block = "-"
            without = f"{b['runs'][0]['activation_bytes_per_sample_cuda']:,} ({b['name']})" if b else "-"
        status = "params match" + (", saved bytes match" if chk.get("saved_match") else ", saved bytes DIFFER") \
            if chk.get("status") == "ok" else chk.get("status", "")
        rows.append(f"| {c['name']} | {c['kind']} | {cm['totalParams']:,} / {cm['trainableParams']:,} "
                    f"| {r['activation_bytes_per_sample_raw']:,} | {r['activation_bytes_per_sample_cuda']:,} | {block} "
                    f"| {cm['activationBytesPerSample']:,} | {without} | {cm['optimizer_state_bytes']['adam']:,} | {status} |")
    return "\n".join(rows)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "tests/reference/measurements.json"))
    ap.add_argument("--only", nargs="*", help="measure only these networks (names)")
    ap.add_argument("--no-peak", action="store_true", help="skip the profiler peak measurement")
    ap.add_argument("--no-timeline", action="store_true", help="skip the step-timeline measurement")
    ap.add_argument("--timeline-only", action="store_true",
                    help="measure only the step timelines and replace `step_timeline` in the existing --out file")
    ap.add_argument("--fp32-only", action="store_true", help="skip the autocast runs")
    ap.add_argument("--table", metavar="JSON", help="print the README tables of an existing measurements file and "
                                                    "exit (no torch needed)")
    ap.add_argument("--accuracy", metavar="JSON", help="print docs/accuracy.md's tables of an existing measurements "
                                                       "file and exit (no torch needed)")
    ap.add_argument("--headroom", metavar="LOG", help="with --accuracy: Headroom's figures from a log of the tst_reference* tests")
    ap.add_argument("--strategies", action="store_true",
                    help="measure only the training-strategy cases (frozen layers, checkpointing) and replace the "
                         "`strategies` section of the existing --out file, leaving `networks` untouched")
    return ap.parse_args()


def print_tables(args):
    """--table / --accuracy: True if one was asked for (and printed)."""
    if args.table:
        with open(args.table) as f:
            doc = json.load(f)
        print(markdown_table(doc))
        if doc.get("strategies"):
            print()
            print(strategies_table(doc))
        return True
    if args.accuracy:
        with open(args.accuracy) as f:
            doc = json.load(f)
        print(accuracy_tables(doc, read_headroom_log(args.headroom)))
        print()
        print(step_tables(args.headroom))
        return True
    return False


if __name__ == "__main__" and print_tables(parse_args()):
    sys.exit(0)

# Everything below measures, and needs Debian's python3-torch and python3-torchvision.
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.utils.checkpoint  # noqa: E402
import torchvision  # noqa: E402

# --------------------------------------------------------------------------------------------------
# Headroom model files -> PyTorch modules
# --------------------------------------------------------------------------------------------------


def _pair(v, n=2):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class PositionalEmbedding(nn.Module):
    """A learned position table added to its input: [B, T, D] -> [B, T, D] (GPT-2 style wpe).

    The table is a parameter sliced to the sequence length; slicing and adding save nothing for
    backward (the gradient of x + table[:T] needs no tensor)."""

    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim) * 0.02)

    def forward(self, x):
        return x + self.weight[: x.shape[1]]


def causal_mask(t: int) -> torch.Tensor:
    """The float -inf mask nn.Transformer.generate_square_subsequent_mask returns (a constant: not
    an activation, and baddbmm does not save it)."""
    return torch.triu(torch.full((t, t), float("-inf")), diagonal=1)


class SelfAttention(nn.Module):
    """Headroom's MultiheadAttention layer: self-attention on [B, T, E], output [B, T, E]."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, need_weights=True, is_causal=False):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, dropout=dropout, bias=bias, batch_first=True)
        self.need_weights = need_weights
        self.is_causal = is_causal

    def forward(self, x):
        mask = causal_mask(x.shape[1]) if self.is_causal else None
        return self.attn(x, x, x, attn_mask=mask, need_weights=self.need_weights)[0]


class EncoderLayer(nn.Module):
    """Headroom's TransformerEncoderLayer: nn.TransformerEncoderLayer with an optional causal mask."""

    def __init__(self, d_model, is_causal=False, **kw):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model, **kw)
        self.is_causal = is_causal
        self.batch_first = kw.get("batch_first", False)

    def forward(self, x):
        t = x.shape[1] if self.batch_first else x.shape[0]
        return self.layer(x, src_mask=causal_mask(t) if self.is_causal else None)


class Recurrent(nn.Module):
    """Headroom's LSTM/GRU: the full output sequence [B, T, D x hidden] (per sample [T, ...])."""

    def __init__(self, kind, input_size, batch_first=False, **kw):
        super().__init__()
        self.rnn = (nn.LSTM if kind == "LSTM" else nn.GRU)(input_size, batch_first=True, **kw)
        self.batch_first = batch_first

    def forward(self, x):
        # Per-sample shapes in Headroom have no batch axis, so the batched tensor is always
        # [B, T, D]; batch_first only changes how PyTorch lays it out, not what is saved.
        return self.rnn(x)[0]


class _Fn(nn.Module):
    """Headroom's functional kinds (merges, arithmetic, reductions, views, padding), written as a PyTorch
    user writes them: `a + b`, `x * gamma`, `torch.cat`, `x.permute(...)`, `F.pad`, `a @ b`. A kind with a
    `parameter` owns it here, shaped [1, *parameter] (a batch axis of 1) as nn.Parameter(torch.zeros(1, ...))
    usually is. Axes count the batch axis as in the model file; shape lists are per sample."""

    def __init__(self, kind, a=None, dtype=torch.float32):
        super().__init__()
        self.kind = kind
        self.a = dict(a or {})
        shape = self.a.get("parameter")
        self.weight = nn.Parameter(torch.ones([1] + list(shape))) if shape is not None else None

    def forward(self, *xs):
        k, a = self.kind, self.a
        b = xs[0].shape[0]
        if k == "Concat":
            parts = ([self.weight.expand(b, *self.weight.shape[1:])] if self.weight is not None else []) + list(xs)
            return torch.cat(parts, dim=a.get("dim", 1))
        if k in ("Add", "Sub", "Mul", "Div"):
            operands = list(xs) + ([self.weight] if self.weight is not None else []) + \
                ([a["scalar"]] if a.get("scalar") is not None else [])
            out = operands[0]
            for y in operands[1:]:
                out = {"Add": lambda p, q: p + q, "Sub": lambda p, q: p - q, "Mul": lambda p, q: p * q,
                       "Div": lambda p, q: p / q}[k](out, y)
            return out
        x = xs[0]
        if k == "MatMul":
            return torch.matmul(xs[0], xs[1])
        if k == "Pow":
            return torch.pow(x, a.get("exponent", 2.0))
        if k == "Sqrt":
            return torch.sqrt(x)
        if k == "Exp":
            return torch.exp(x)
        if k == "Neg":
            return torch.neg(x)
        if k == "Abs":
            return torch.abs(x)
        if k == "Clamp":
            return torch.clamp(x, min=a.get("min"), max=a.get("max"))
        if k in ("Mean", "Sum", "Amax"):
            dims = a["dim"] if isinstance(a["dim"], list) else [a["dim"]]
            fn = {"Mean": torch.mean, "Sum": torch.sum, "Amax": torch.amax}[k]
            return fn(x, dim=dims, keepdim=a.get("keepdim", False))
        if k == "Permute":
            return x.permute(*a["dims"])
        if k == "Transpose":
            return x.transpose(a["dim0"], a["dim1"])
        if k == "Reshape":
            return x.reshape(b, *a["shape"])
        if k == "View":
            return x.view(b, *a["shape"])
        if k == "Unflatten":
            return x.unflatten(a["dim"], a["unflattened_size"])
        if k == "Squeeze":
            if a.get("dim") is not None:
                return x.squeeze(a["dim"])
            for d in reversed(range(1, x.dim())):  # never the batch axis, whatever the batch size
                if x.shape[d] == 1:
                    x = x.squeeze(d)
            return x
        if k == "Unsqueeze":
            return x.unsqueeze(a["dim"])
        if k == "Contiguous":
            return x.contiguous()
        if k == "Expand":
            size = a["size"]
            for _ in range(len(size) - (x.dim() - 1)):
                x = x.unsqueeze(1)
            return x.expand(b, *size)
        if k == "Narrow":
            return x.narrow(a["dim"], a["start"], a["length"])
        if k == "Slice":
            index = [slice(None)] * x.dim()
            index[a["dim"]] = slice(a.get("start", 0), a.get("end"), a.get("step", 1))
            return x[tuple(index)]
        if k == "Select":
            return x.select(a["dim"], a["index"])
        if k == "Pad":
            return F.pad(x, a["pad"], mode=a.get("mode", "constant"), value=a.get("value", 0.0)) \
                if a.get("mode", "constant") == "constant" else F.pad(x, a["pad"], mode=a["mode"])
        raise AssertionError(k)


_FUNCTIONAL = {"Add", "Sub", "Mul", "Div", "Concat", "MatMul", "Pow", "Sqrt", "Exp", "Neg", "Abs", "Clamp", "Mean",
               "Sum", "Amax", "Permute", "Transpose", "Reshape", "View", "Unflatten", "Squeeze", "Unsqueeze",
               "Contiguous", "Expand", "Narrow", "Slice", "Select", "Pad"}


def _padding_list(padding, n):
    """A ConstantPadNd-style padding (one int or 2N ints) as F.pad's list."""
    return list(padding) if isinstance(padding, (list, tuple)) else [padding] * (2 * n)


class HeadroomNet(nn.Module):
    """A PyTorch module built from a Headroom model file (format headroom-model, version 1).

    Layers run in file order; `inputs` name earlier layers ("input" = the network input, absent =
    the previous layer); Repeat blocks are unrolled with fresh parameters per repetition. Sizes the
    format leaves out (in_channels, in_features, ...) are taken from a trial forward pass."""

    def __init__(self, spec: dict):
        super().__init__()
        self.spec = spec
        inp = spec["input"]
        self.input_shape = list(inp["shape"])
        self.input_dtype = inp.get("dtype", "float32")
        self.loss = spec.get("loss", "cross_entropy")
        self.mods = nn.ModuleList()
        self.ops = []  # (key, module index, [input keys])
        self._named = {}
        self._embeddings = {}
        # "checkpoint": true on a Repeat: each iteration is one torch.utils.checkpoint segment
        # (use_reentrant=True, the 1.13 default), as (first op, end op, input key, output key)
        self.segments = []
        self.checkpointing = True
        example = self.example_input(2)
        env = {"input": example}
        with torch.no_grad():
            last = self._build(spec["layers"], env, "input", "", {})
        self.output_key = last
        # free intermediate results as soon as their last consumer ran
        last_use = {}
        for i, (_, _, ins) in enumerate(self.ops):
            for k in ins:
                last_use[k] = i
        self.free_after = [[k for k in ins if last_use[k] == i and k != self.output_key] for i, (_, _, ins) in enumerate(self.ops)]

    def example_input(self, batch):
        if self.input_dtype == "int64":
            return torch.randint(0, 10, [batch] + self.input_shape)
        return torch.randn([batch] + self.input_shape)

    def _build(self, layers, env, prev, prefix, local):
        for i, layer in enumerate(layers):
            t = layer["type"]
            name = layer.get("name")
            if t == "Repeat":
                rname = name or f"{prefix}layers.{i}"
                first_mod = len(self.mods)
                for r in range(int(layer["times"])):
                    inner = {"repeat_input": prev}
                    start, before = len(self.ops), prev
                    prev = self._build(layer["layers"], env, prev, f"{rname}.{r}.", inner)
                    if layer.get("checkpoint"):
                        self.segments.append((start, len(self.ops), before, prev))
                if layer.get("frozen"):
                    for m in self.mods[first_mod:]:
                        m.requires_grad_(False)
                if name:
                    local[name] = prev
                continue
            ins = layer.get("inputs")
            if ins is None:
                keys = [prev]
            else:
                keys = [local[n] if n in local else ("input" if n == "input" else self._named[n]) for n in ins]
            key = f"{prefix}{name}" if name else f"{prefix}#{i}"
            xs = [env[k] for k in keys]
            module = self._make(t, layer, xs)
            if layer.get("frozen"):
                module.requires_grad_(False)
            env[key] = module(*xs)
            self.mods.append(module)
            self.ops.append((key, len(self.mods) - 1, keys))
            if name:
                local[name] = key
                if not prefix:
                    self._named[name] = key
            prev = key
        return prev

    def _make(self, t, a, xs):
        x = xs[0]
        nd = int(t[-2]) if len(t) > 2 and t[-1] == "d" and t[-2] in "123" else None
        if t in ("Conv1d", "Conv2d", "Conv3d"):
            pad = a.get("padding", 0)
            cls = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}[nd]
            return cls(x.shape[1], a["out_channels"], _pair(a["kernel_size"], nd), stride=_pair(a.get("stride", 1), nd),
                       padding=pad if isinstance(pad, str) else _pair(pad, nd), dilation=_pair(a.get("dilation", 1), nd),
                       groups=a.get("groups", 1), bias=a.get("bias", True), padding_mode=a.get("padding_mode", "zeros"))
        if t in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
            cls = {1: nn.ConvTranspose1d, 2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}[nd]
            return cls(x.shape[1], a["out_channels"], _pair(a["kernel_size"], nd), stride=_pair(a.get("stride", 1), nd),
                       padding=_pair(a.get("padding", 0), nd), output_padding=_pair(a.get("output_padding", 0), nd),
                       groups=a.get("groups", 1), bias=a.get("bias", True), dilation=_pair(a.get("dilation", 1), nd))
        if t == "Linear":
            lin = nn.Linear(x.shape[-1], a["out_features"], bias=a.get("bias", True))
            if a.get("tied_to"):
                emb = self._embeddings[a["tied_to"]]
                assert emb.weight.shape == lin.weight.shape, "tied Linear/Embedding shapes differ"
                lin.weight = emb.weight
            return lin
        if t in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"):
            cls = getattr(nn, t)
            instance = t.startswith("Instance")
            return cls(x.shape[1], eps=a.get("eps", 1e-5), momentum=a.get("momentum", 0.1),
                       affine=a.get("affine", not instance), track_running_stats=a.get("track_running_stats", not instance))
        if t == "LayerNorm":
            ln = nn.LayerNorm(a.get("normalized_shape", [x.shape[-1]]), eps=a.get("eps", 1e-5),
                              elementwise_affine=a.get("elementwise_affine", True))
            if ln.elementwise_affine and not a.get("bias", True):
                ln.register_parameter("bias", None)
            return ln
        if t == "GroupNorm":
            return nn.GroupNorm(a["num_groups"], x.shape[1], eps=a.get("eps", 1e-5), affine=a.get("affine", True))
        if t in ("ReLU", "ReLU6", "SiLU", "Hardswish", "Hardsigmoid", "Mish", "SELU"):
            return getattr(nn, t)(inplace=a.get("inplace", False))
        if t == "LeakyReLU":
            return nn.LeakyReLU(a.get("negative_slope", 0.01), inplace=a.get("inplace", False))
        if t in ("ELU", "CELU"):
            return getattr(nn, t)(a.get("alpha", 1.0), inplace=a.get("inplace", False))
        if t == "Hardtanh":
            return nn.Hardtanh(a.get("min_val", -1.0), a.get("max_val", 1.0), inplace=a.get("inplace", False))
        if t == "Softplus":
            return nn.Softplus(a.get("beta", 1.0), a.get("threshold", 20.0))
        if t == "PReLU":
            return nn.PReLU(a.get("num_parameters", 1), a.get("init", 0.25))
        if t == "GELU":
            return nn.GELU(approximate=a.get("approximate", "none"))
        if t in ("Sigmoid", "Tanh", "LogSigmoid", "Identity"):
            return getattr(nn, t)()
        if t == "Softmax":
            return nn.Softmax(dim=a.get("dim", -1))
        if t in ("MaxPool1d", "MaxPool2d", "MaxPool3d"):
            return getattr(nn, t)(_pair(a["kernel_size"], nd),
                                  stride=_pair(a["stride"], nd) if a.get("stride") is not None else None,
                                  padding=_pair(a.get("padding", 0), nd), dilation=_pair(a.get("dilation", 1), nd),
                                  ceil_mode=a.get("ceil_mode", False))
        if t in ("AvgPool1d", "AvgPool2d", "AvgPool3d"):
            kw = dict(stride=_pair(a["stride"], nd) if a.get("stride") is not None else None,
                      padding=_pair(a.get("padding", 0), nd), ceil_mode=a.get("ceil_mode", False),
                      count_include_pad=a.get("count_include_pad", True))
            if nd > 1:
                kw["divisor_override"] = a.get("divisor_override")
            return getattr(nn, t)(_pair(a["kernel_size"], nd), **kw)
        if t.startswith("AdaptiveAvgPool") or t.startswith("AdaptiveMaxPool"):
            return getattr(nn, t)(_pair(a["output_size"], nd))
        if t in ("ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
                 "CircularPad1d", "CircularPad2d", "CircularPad3d"):
            mode = "circular" if t.startswith("Circular") else "constant"
            return _Fn("Pad", dict(pad=_padding_list(a["padding"], nd), mode=mode, value=a.get("value", 0.0)))
        if t in ("ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
                 "ReplicationPad3d"):
            return getattr(nn, t)(_padding_list(a["padding"], nd))
        if t == "Upsample":
            return nn.Upsample(size=a.get("size"), scale_factor=a.get("scale_factor"), mode=a.get("mode", "nearest"),
                               align_corners=a.get("align_corners"),
                               recompute_scale_factor=a.get("recompute_scale_factor"))
        if t in ("UpsamplingNearest2d", "UpsamplingBilinear2d"):
            return getattr(nn, t)(size=a.get("size"), scale_factor=a.get("scale_factor"))
        if t == "PixelShuffle":
            return nn.PixelShuffle(a["upscale_factor"])
        if t == "PixelUnshuffle":
            return nn.PixelUnshuffle(a["downscale_factor"])
        if t == "Flatten":
            return nn.Flatten(a.get("start_dim", 1), a.get("end_dim", -1))
        if t == "Dropout":
            return nn.Dropout(a.get("p", 0.5), inplace=a.get("inplace", False))
        if t == "Embedding":
            emb = nn.Embedding(a["num_embeddings"], a["embedding_dim"])
            if a.get("name"):
                self._embeddings[a["name"]] = emb
            return emb
        if t == "PositionalEmbedding":
            return PositionalEmbedding(a["num_embeddings"], x.shape[-1])
        if t == "MultiheadAttention":
            return SelfAttention(x.shape[-1], a["num_heads"], dropout=a.get("dropout", 0.0), bias=a.get("bias", True),
                                 need_weights=a.get("need_weights", True), is_causal=a.get("is_causal", False))
        if t == "TransformerEncoderLayer":
            return EncoderLayer(x.shape[-1], is_causal=a.get("is_causal", False), nhead=a["nhead"],
                                dim_feedforward=a.get("dim_feedforward", 2048), dropout=a.get("dropout", 0.1),
                                activation=a.get("activation", "relu"), layer_norm_eps=a.get("layer_norm_eps", 1e-5),
                                batch_first=True, norm_first=a.get("norm_first", False))
        if t in ("LSTM", "GRU"):
            return Recurrent(t, x.shape[-1], batch_first=a.get("batch_first", False), hidden_size=a["hidden_size"],
                             num_layers=a.get("num_layers", 1), bias=a.get("bias", True), dropout=a.get("dropout", 0.0),
                             bidirectional=a.get("bidirectional", False))
        if t in _FUNCTIONAL:
            return _Fn(t, a)
        raise ValueError(f"layer type {t!r} is not supported by the reference builder")

    def forward(self, x):
        env = {"input": x}
        segments = {s[0]: s for s in self.segments} if self.checkpointing else {}
        i = 0
        while i < len(self.ops):
            seg = segments.get(i)
            if seg is None:
                key, mi, ins = self.ops[i]
                env[key] = self.mods[mi](*[env[k] for k in ins])
                for k in self.free_after[i]:
                    env.pop(k, None)
                i += 1
                continue
            start, end, in_key, out_key = seg

            def run(h, start=start, end=end, in_key=in_key, out_key=out_key, outer=dict(env)):
                loc = dict(outer)
                loc[in_key] = h
                for key, mi, ins in self.ops[start:end]:
                    loc[key] = self.mods[mi](*[loc[k] for k in ins])
                return loc[out_key]

            env[out_key] = torch.utils.checkpoint.checkpoint(run, env[in_key], use_reentrant=True)
            for j in range(start, end):
                for k in self.free_after[j]:
                    if k != out_key:
                        env.pop(k, None)
            i = end
        return env[self.output_key]


def load_model_file(rel: str) -> dict | None:
    p = REPO / rel
    if not p.exists():
        return None
    with open(p) as f:
        return json.load(f)


# --------------------------------------------------------------------------------------------------
# Reference networks written directly in PyTorch
# --------------------------------------------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(784, 512), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(512, 256), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(256, 10))

    def forward(self, x):
        return self.net(x)


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def conv_bn_relu(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class BNCNN(nn.Module):
    """Conv-BN-ReLU blocks with MaxPool, one AvgPool2d and a global AdaptiveAvgPool2d(1), on 3x32x32."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            *conv_bn_relu(3, 32), nn.MaxPool2d(2),
            *conv_bn_relu(32, 64), nn.MaxPool2d(2),
            *conv_bn_relu(64, 128), nn.AvgPool2d(2),
            *conv_bn_relu(128, 256), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(256, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class TransformerLM(nn.Module):
    """Token + learned position embeddings, pre-norm GELU encoder layers with a causal mask, final
    LayerNorm, linear head. (On PyTorch 2.x nn.TransformerEncoder detects the causal mask and passes
    is_causal to scaled-dot-product attention.)"""

    VOCAB, D, HEADS, LAYERS, FF, T = 5000, 256, 4, 4, 1024, 128

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(self.VOCAB, self.D)
        self.pos = PositionalEmbedding(self.T, self.D)
        layer = nn.TransformerEncoderLayer(self.D, self.HEADS, self.FF, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, self.LAYERS, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(self.D)
        self.head = nn.Linear(self.D, self.VOCAB)

    def forward(self, idx):
        x = self.pos(self.tok(idx))
        x = self.encoder(x, mask=causal_mask(idx.shape[1]))
        return self.head(self.norm(x))


class LSTMLM(nn.Module):
    VOCAB, EMB, HIDDEN, LAYERS, T = 5000, 128, 256, 2, 64

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(self.VOCAB, self.EMB)
        self.lstm = nn.LSTM(self.EMB, self.HIDDEN, num_layers=self.LAYERS, batch_first=True)
        self.head = nn.Linear(self.HIDDEN, self.VOCAB)

    def forward(self, idx):
        out, _ = self.lstm(self.emb(idx))
        return self.head(out)


# --- issue 13: the operator vocabulary of real networks -----------------------------------------------


class C3DSmall(nn.Module):
    """A small C3D-style video classifier on 8 frames of 32x32: Conv3d-BN3d blocks with MaxPool3d, AvgPool3d
    and a global AdaptiveAvgPool3d(1); ELU in place."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(3, 16, 3, padding=1), nn.BatchNorm3d(16), nn.ReLU(inplace=True), nn.MaxPool3d((1, 2, 2)),
            nn.Conv3d(16, 32, 3, padding=1), nn.BatchNorm3d(32), nn.ELU(inplace=True), nn.MaxPool3d(2),
            nn.Conv3d(32, 64, 3, padding=1), nn.BatchNorm3d(64), nn.ReLU(inplace=True), nn.AvgPool3d(2),
            nn.Conv3d(64, 64, 3, padding=1), nn.ReLU(inplace=True), nn.AdaptiveAvgPool3d(1))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class AudioCNN(nn.Module):
    """A 1-D CNN on raw audio (4,000 samples): a strided Conv1d front end, BatchNorm1d and InstanceNorm1d,
    Mish, CELU and SELU, MaxPool1d and AvgPool1d, then average and max pooling over time concatenated."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 32, 80, stride=4), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(32, 32, 3), nn.InstanceNorm1d(32, affine=True, track_running_stats=True), nn.Mish(), nn.MaxPool1d(4),
            nn.Conv1d(32, 64, 3), nn.BatchNorm1d(64), nn.CELU(), nn.AvgPool1d(2),
            nn.Conv1d(64, 64, 3), nn.InstanceNorm1d(64), nn.SELU(inplace=True))
        self.avg = nn.AdaptiveAvgPool1d(1)
        self.max = nn.AdaptiveMaxPool1d(1)
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        h = self.features(x)
        return self.head(torch.cat([self.avg(h), self.max(h)], dim=1).flatten(1))


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNetSmall(nn.Module):
    """A two-level U-Net on 3x62x62 (milesial/Pytorch-UNet's structure): a ConvTranspose2d up-step whose
    output F.pad brings to the skip's size (30 -> 31), a bilinear Upsample up-step, skips concatenated."""

    def __init__(self):
        super().__init__()
        self.inc = double_conv(3, 16)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), double_conv(16, 32))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), double_conv(32, 64))
        self.up1 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.conv1 = double_conv(64, 32)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv2 = double_conv(48, 16)
        self.outc = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        u = self.up1(x3)
        dy, dx = x2.shape[2] - u.shape[2], x2.shape[3] - u.shape[3]
        u = F.pad(u, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        u = self.conv1(torch.cat([x2, u], dim=1))
        u = self.conv2(torch.cat([x1, self.up2(u)], dim=1))
        return self.outc(u)


class ESPCN(nn.Module):
    """ESPCN super-resolution (Shi et al. 2016) with a space-to-depth stem: PixelUnshuffle(2), three
    convolutions with tanh, PixelShuffle(4): 1x64x64 -> 1x128x128."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.PixelUnshuffle(2), nn.Conv2d(4, 64, 5, padding=2), nn.Tanh(),
                                 nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(), nn.Conv2d(32, 16, 3, padding=1),
                                 nn.PixelShuffle(4))

    def forward(self, x):
        return self.net(x)


class ConvLayer(nn.Sequential):
    """pytorch/examples fast_neural_style: reflection padding, then the convolution."""

    def __init__(self, cin, cout, k, stride=1, pad=nn.ReflectionPad2d):
        super().__init__(pad(k // 2), nn.Conv2d(cin, cout, k, stride))


class ResidualBlock(nn.Module):
    def __init__(self, c, reflect_in_conv=False):
        super().__init__()
        # the same reflection padding written as the convolution's padding_mode in one block
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, padding_mode="reflect") if reflect_in_conv else ConvLayer(c, c, 3)
        self.in1 = nn.InstanceNorm2d(c, affine=True)
        self.conv2 = ConvLayer(c, c, 3)
        self.in2 = nn.InstanceNorm2d(c, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.in2(self.conv2(self.relu(self.in1(self.conv1(x))))) + x


class StyleTransferNet(nn.Module):
    """Johnson et al.'s transformer network as pytorch/examples writes it (fast_neural_style), at half width
    with two residual blocks, on 3x64x64: reflection padding, InstanceNorm2d, nearest upsampling; one
    up-step pads by replication and one InstanceNorm tracks running statistics."""

    def __init__(self):
        super().__init__()
        self.conv1, self.in1 = ConvLayer(3, 16, 9), nn.InstanceNorm2d(16, affine=True)
        self.conv2, self.in2 = ConvLayer(16, 32, 3, 2), nn.InstanceNorm2d(32, affine=True)
        self.conv3, self.in3 = ConvLayer(32, 64, 3, 2), nn.InstanceNorm2d(64, affine=True)
        self.res1, self.res2 = ResidualBlock(64, reflect_in_conv=True), ResidualBlock(64)
        self.up1 = nn.Upsample(scale_factor=2, mode="nearest")
        self.deconv1 = ConvLayer(64, 32, 3)
        self.in4 = nn.InstanceNorm2d(32, affine=True, track_running_stats=True)
        self.up2 = nn.Upsample(scale_factor=2, mode="nearest")
        self.deconv2 = ConvLayer(32, 16, 3, pad=nn.ReplicationPad2d)
        self.in5 = nn.InstanceNorm2d(16, affine=True)
        self.deconv3 = ConvLayer(16, 3, 9)
        self.relu = nn.ReLU()

    def forward(self, x):
        y = self.relu(self.in1(self.conv1(x)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res2(self.res1(y))
        y = self.relu(self.in4(self.deconv1(self.up1(y))))
        y = self.relu(self.in5(self.deconv2(self.up2(y))))
        return self.deconv3(y)


class SqueezeExcite(nn.Module):
    """torchvision's SqueezeExcitation: global average, two 1x1 convolutions, a gate that scales x."""

    def __init__(self, c, squeeze, activation=nn.ReLU, gate=nn.Hardsigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1, self.activation = nn.Conv2d(c, squeeze, 1), activation()
        self.fc2, self.scale_activation = nn.Conv2d(squeeze, c, 1), gate()

    def forward(self, x):
        return x * self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))


class SEBasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1, act=None):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        self.act1 = act if act is not None else nn.Hardswish()
        self.conv2, self.bn2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        self.se = SqueezeExcite(cout, cout // 4)
        self.shortcut = nn.Sequential() if stride == 1 and cin == cout else \
            nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        self.act2 = nn.Hardswish(inplace=True)

    def forward(self, x):
        out = self.se(self.bn2(self.conv2(self.act1(self.bn1(self.conv1(x))))))
        return self.act2(out + self.shortcut(x))


class SEResNet(nn.Module):
    """A small SE-ResNet on 3x32x32: basic blocks with squeeze-excitation (Hardsigmoid gate, a Mul),
    Hardswish (in place after the residual add), PReLU in the last block."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.layer1 = SEBasicBlock(16, 16)
        self.layer2 = SEBasicBlock(16, 32, 2)
        self.layer3 = SEBasicBlock(32, 64, 2, act=nn.PReLU(64))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(self.pool(self.layer3(self.layer2(self.layer1(self.stem(x))))).flatten(1))


class HandAttention(nn.Module):
    """timm's Attention with the batch axis kept first: qkv reshaped and permuted to [B, 3, heads, N, d],
    q @ k^T scaled, softmax, attention dropout, @ v, heads merged by transpose + reshape."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.attn_drop = nn.Dropout(0.1)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(0, 2, 3, 1, 4)
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
        attn = self.attn_drop(((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1))
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


class LayerScale(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gamma = nn.Parameter(1e-5 * torch.ones(dim))

    def forward(self, x):
        return x * self.gamma


class ViTBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.attn, self.ls1 = nn.LayerNorm(dim), HandAttention(dim, heads), LayerScale(dim)
        self.norm2, self.ls2 = nn.LayerNorm(dim), LayerScale(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.ls1(self.attn(self.norm1(x)))
        return x + self.ls2(self.mlp(self.norm2(x)))


class ViTTiny(nn.Module):
    """A ViT on 3x32x32 with 4x4 patches (64 tokens + a class token, width 64, 4 heads, 2 blocks): patch
    embedding flattened and transposed, a learned class token concatenated and a learned position table
    added, hand-written attention, layer scale, GELU(tanh), the class token's output to the head."""

    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, 64, 4, 4)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, 64))
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, 65, 64))
        self.blocks = nn.Sequential(ViTBlock(64, 4), ViTBlock(64, 4))
        self.norm, self.head = nn.LayerNorm(64), nn.Linear(64, 10)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


class InvertedResidual(nn.Module):
    """MobileNetV3's / EfficientNet's block: 1x1 expansion, depthwise convolution, squeeze-excitation,
    1x1 projection, residual when the shape allows. `hand_silu` writes the expansion's SiLU as
    x * x.sigmoid(), as exported graphs show it."""

    def __init__(self, cin, expanded, cout, k, stride, act, se_act, se_gate, hand_silu=False):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(cin, expanded, 1, bias=False), nn.BatchNorm2d(expanded))
        self.expand_act = None if hand_silu else act()
        self.depthwise = nn.Sequential(nn.Conv2d(expanded, expanded, k, stride, k // 2, groups=expanded, bias=False),
                                       nn.BatchNorm2d(expanded), act())
        self.se = SqueezeExcite(expanded, max(8, cin // 4), se_act, se_gate)
        self.project = nn.Sequential(nn.Conv2d(expanded, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        h = self.expand(x)
        h = h * h.sigmoid() if self.expand_act is None else self.expand_act(h)
        h = self.project(self.se(self.depthwise(h)))
        return h + x if self.residual else h


class MobileEfficientNet(nn.Module):
    """A MobileNetV3 / EfficientNet mix on 3x64x64: a Hardswish stem (in place), a MobileNetV3 block
    (Hardswish, ReLU squeeze, Hardsigmoid gate), two EfficientNet MBConv blocks (SiLU, SiLU squeeze,
    Sigmoid gate; one with SiLU written as x * sigmoid(x)), MobileNetV3's head (Hardswish, Dropout)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish(inplace=True))
        self.blocks = nn.Sequential(
            InvertedResidual(16, 64, 16, 3, 1, nn.Hardswish, nn.ReLU, nn.Hardsigmoid),
            InvertedResidual(16, 64, 24, 5, 2, nn.SiLU, nn.SiLU, nn.Sigmoid),
            InvertedResidual(24, 96, 24, 3, 1, nn.SiLU, nn.SiLU, nn.Sigmoid, hand_silu=True))
        self.head = nn.Sequential(nn.Conv2d(24, 96, 1, bias=False), nn.BatchNorm2d(96), nn.Hardswish(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 128), nn.Hardswish(),
                                  nn.Dropout(0.2), nn.Linear(128, 10))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


class HandLayerNorm(nn.Module):
    """LayerNorm as ONNX opsets below 17 write it: mean, sub, pow, mean, add, sqrt, div, mul, add."""

    def __init__(self, d):
        super().__init__()
        self.weight, self.bias = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))

    def forward(self, x):
        d = x - x.mean(-1, keepdim=True)
        return d / torch.sqrt(d.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight + self.bias


class TokenOps(nn.Module):
    """Token features [16, 32] through operators as exported graphs show them: a LayerNorm written out, a
    numerically stable softmax written out (amax, sub, exp, sum, div), abs / neg / clamp, the token mean."""

    def __init__(self):
        super().__init__()
        self.fc1, self.norm, self.fc2, self.head = nn.Linear(32, 64), HandLayerNorm(64), nn.Linear(64, 64), nn.Linear(64, 10)

    def forward(self, x):
        h = self.norm(self.fc1(x))
        e = torch.exp(h - torch.amax(h, dim=-1, keepdim=True))
        h = self.fc2(e / torch.sum(e, dim=-1, keepdim=True))
        h = torch.clamp(torch.neg(torch.abs(h)), min=-3.0)
        return self.head(h.mean(1))


def tv(name):
    def make():
        return getattr(torchvision.models, name)(weights=None)
    return make


# name, builder, model file, input shape, input dtype, classes/vocab, loss, batches, precisions, notes
NETWORKS = [
    dict(name="mlp", build=MLP, model_file="tests/reference/models/mlp.json", input=[1, 28, 28], classes=10,
         batches=[2, 4, 8, 32], precisions=["fp32", "amp-bf16"],
         description="MLP 784-512-256-10, ReLU, Dropout(0.2), on 1x28x28 (Flatten first)"),
    dict(name="lenet5", build=LeNet5, model_file="resources/presets/lenet5.json", input=[1, 32, 32], classes=10,
         batches=[2, 4, 8, 32], precisions=["fp32"],
         description="LeNet-5: Conv 6@5 ReLU MaxPool2, Conv 16@5 ReLU MaxPool2, Flatten, Linear 120 ReLU Linear 84 ReLU Linear 10"),
    dict(name="bn_cnn", build=BNCNN, model_file="tests/reference/models/bn_cnn.json", input=[3, 32, 32], classes=10,
         batches=[2, 4, 8], precisions=["fp32", "amp-bf16"],
         description="Conv-BN-ReLU(inplace) x4 with MaxPool2d, AvgPool2d and AdaptiveAvgPool2d(1), Linear 10, on 3x32x32"),
    dict(name="captcha_cnn", build=None, model_file="resources/presets/captcha_cnn.json", input=None, classes=None,
         batches=[2, 4, 8], precisions=["fp32"],
         description="the captcha CNN of the Korean Q&A, built from its Headroom preset",
         published=dict(source="/work/shared/seeds/minibatch-memory-qa.ko.txt (accepted answer)", parameters=19_072_984,
                        activations_per_sample=532_752, input_elements_per_sample=9_000, batch=128)),
    dict(name="alexnet", build=tv("alexnet"), model_file="resources/presets/alexnet.json", input=[3, 224, 224],
         classes=1000, batches=[1, 2, 4], precisions=["fp32"], description="torchvision alexnet(weights=None)"),
    dict(name="vgg16", build=tv("vgg16"), model_file="resources/presets/vgg16.json", input=[3, 224, 224],
         classes=1000, batches=[1, 2, 4], precisions=["fp32"], description="torchvision vgg16(weights=None)"),
    dict(name="resnet18", build=tv("resnet18"), model_file="resources/presets/resnet18.json", input=[3, 224, 224],
         classes=1000, batches=[1, 2, 4], precisions=["fp32", "amp-bf16"], description="torchvision resnet18(weights=None)"),
    dict(name="resnet50", build=tv("resnet50"), model_file="resources/presets/resnet50.json", input=[3, 224, 224],
         classes=1000, batches=[1, 2, 4], precisions=["fp32"], description="torchvision resnet50(weights=None)"),
    dict(name="mobilenet_v2", build=tv("mobilenet_v2"), model_file="resources/presets/mobilenet_v2.json",
         input=[3, 224, 224], classes=1000, batches=[1, 2, 4], precisions=["fp32"],
         description="torchvision mobilenet_v2(weights=None)"),
    dict(name="densenet121", build=tv("densenet121"), model_file="tests/reference/models/densenet121.json",
         input=[3, 224, 224], classes=1000, batches=[1, 2, 4], precisions=["fp32"],
         description="torchvision densenet121(weights=None) (memory_efficient=False)"),
    dict(name="transformer_lm", build=TransformerLM, model_file="tests/reference/models/transformer_lm.json",
         input=[TransformerLM.T], input_dtype="int64", classes=TransformerLM.VOCAB, batches=[1, 2, 4],
         precisions=["fp32", "amp-bf16"],
         description="Embedding 5000x256 + learned positions (T=128), 4 x TransformerEncoderLayer(d=256, 4 heads, "
                     "ff 1024, dropout 0.1, gelu, batch_first, norm_first) with a causal mask, LayerNorm, Linear 5000; "
                     "cross-entropy on all positions"),
    dict(name="lstm_lm", build=LSTMLM, model_file="tests/reference/models/lstm_lm.json", input=[LSTMLM.T],
         input_dtype="int64", classes=LSTMLM.VOCAB, batches=[2, 4, 8], precisions=["fp32"],
         description="Embedding 5000x128, 2-layer LSTM(256, batch_first), Linear 5000 on T=64; cross-entropy on all positions"),
    # issue 13: the operator vocabulary of real networks
    dict(name="c3d_video", build=C3DSmall, model_file="tests/reference/models/c3d_video.json", input=[3, 8, 32, 32],
         classes=10, batches=[2, 4, 8], precisions=["fp32"], description=C3DSmall.__doc__.split("\n")[0]),
    dict(name="audio_cnn", build=AudioCNN, model_file="tests/reference/models/audio_cnn.json", input=[1, 4000],
         classes=10, batches=[2, 4, 8], precisions=["fp32"], description=AudioCNN.__doc__.split("\n")[0]),
    dict(name="unet_small", build=UNetSmall, model_file="tests/reference/models/unet_small.json", input=[3, 62, 62],
         classes=2, loss="mse", batches=[2, 4, 8], precisions=["fp32"], description=UNetSmall.__doc__.split("\n")[0]),
    dict(name="espcn", build=ESPCN, model_file="tests/reference/models/espcn.json", input=[1, 64, 64], classes=1,
         loss="mse", batches=[2, 4, 8], precisions=["fp32"], description=ESPCN.__doc__.split("\n")[0]),
    dict(name="style_transfer", build=StyleTransferNet, model_file="tests/reference/models/style_transfer.json",
         input=[3, 64, 64], classes=3, loss="mse", batches=[2, 4, 8], precisions=["fp32"],
         description=StyleTransferNet.__doc__.split("\n")[0]),
    dict(name="se_resnet", build=SEResNet, model_file="tests/reference/models/se_resnet.json", input=[3, 32, 32],
         classes=10, batches=[2, 4, 8], precisions=["fp32"], description=SEResNet.__doc__.split("\n")[0]),
    dict(name="vit_tiny", build=ViTTiny, model_file="tests/reference/models/vit_tiny.json", input=[3, 32, 32],
         classes=10, batches=[2, 4, 8], precisions=["fp32"], description=ViTTiny.__doc__.split("\n")[0]),
    dict(name="mobile_efficientnet", build=MobileEfficientNet, model_file="tests/reference/models/mobile_efficientnet.json",
         input=[3, 64, 64], classes=10, batches=[2, 4, 8], precisions=["fp32"],
         description=MobileEfficientNet.__doc__.split("\n")[0]),
    dict(name="token_ops", build=TokenOps, model_file="tests/reference/models/token_ops.json", input=[16, 32],
         classes=10, batches=[2, 4, 8], precisions=["fp32"], description=TokenOps.__doc__.split("\n")[0]),
    dict(name="volume_autoencoder", build=None, model_file="tests/reference/models/volume_autoencoder.json",
         input=None, classes=None, batches=[2, 4, 8], precisions=["fp32"],
         description="a 3-D encoder-decoder built from its model file: Conv3d, InstanceNorm3d, MaxPool3d, "
                     "ConvTranspose3d, trilinear Upsample, AdaptiveMaxPool3d, Concat; MSE"),
    dict(name="signal_decoder", build=None, model_file="tests/reference/models/signal_decoder.json",
         input=None, classes=None, batches=[2, 4, 8], precisions=["fp32"],
         description="a 1-D decoder built from its model file: ConvTranspose1d, Hardtanh, linear Upsample, "
                     "Softplus, ReplicationPad1d, LogSigmoid, MaxPool1d, AdaptiveAvgPool1d and AdaptiveMaxPool2d"),
    dict(name="image_ops", build=None, model_file="tests/reference/models/image_ops.json",
         input=None, classes=None, batches=[2, 4, 8], precisions=["fp32"],
         description="2-D padding, resampling and shape operators built from its model file: every padding "
                     "module and mode, every Upsample mode, PixelShuffle, views and copies (Permute, Reshape, "
                     "View, Unflatten, Squeeze, Unsqueeze, Expand, Narrow, Slice, Contiguous), Sub, Div, Pow"),
]

# --------------------------------------------------------------------------------------------------
# Saved-for-backward measurement
# --------------------------------------------------------------------------------------------------

VIEW_LIKE = {
    "TBackward0", "ViewBackward0", "PermuteBackward0", "TransposeBackward0", "ExpandBackward0", "UnsqueezeBackward0",
    "SqueezeBackward0", "SqueezeBackward1", "AliasBackward0", "ReshapeAliasBackward0", "SliceBackward0",
    "SelectBackward0", "UnbindBackward0", "SplitBackward0", "UnsafeSplitBackward0", "UnsafeViewBackward0",
}
DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
               torch.int64: "int64", torch.int32: "int32", torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8"}


def dtype_name(dt):
    return DTYPE_NAMES.get(dt, str(dt).replace("torch.", ""))


def storage_of(t):
    s = t.storage()
    return s.data_ptr(), s.nbytes()


def param_origin(t):
    """'copy' if t is (a view of) a dtype cast of a leaf parameter (autocast's cached weight
    copies), 'param' if a view of a parameter, None otherwise."""
    fn = t.grad_fn
    via_copy = False
    while fn is not None:
        name = fn.name()
        if name == "torch::autograd::AccumulateGrad":
            return "copy" if via_copy else "param"
        if name == "ToCopyBackward0" or name in VIEW_LIKE:
            via_copy = via_copy or name == "ToCopyBackward0"
            nxt = [f for f, _ in fn.next_functions if f is not None]
            if len(nxt) != 1:
                return None
            fn = nxt[0]
            continue
        return None
    return None


class Probe:
    """Captures saved tensors and the module context they were saved in."""

    def __init__(self, model):
        self.model = model
        self.stack = []  # (path, type name, call id)
        self.records = []
        self.tensors = {}
        self.current = None
        self.unpacks = 0
        self.calls = []  # per module call of interest: MHA / LSTM / GRU
        self.handles = []
        self.param_keys = {storage_of(p)[0] for p in model.parameters()}
        self.buffer_keys = {storage_of(b)[0] for b in model.buffers() if b.numel() > 0}
        self.input_key = None
        self.label_key = None
        for path, m in model.named_modules():
            self.handles.append(m.register_forward_pre_hook(self._pre(path or "<root>", type(m).__name__)))
            self.handles.append(m.register_forward_hook(self._post()))

    def _pre(self, path, tname):
        def hook(module, args):
            call = None
            if isinstance(module, (nn.MultiheadAttention, nn.LSTM, nn.GRU)):
                x = args[0]
                call = len(self.calls)
                info = dict(kind=tname, path=path, input_keys=[storage_of(a)[0] for a in args if torch.is_tensor(a)])
                if isinstance(module, nn.MultiheadAttention):
                    b, t = (x.shape[0], x.shape[1]) if module.batch_first else (x.shape[1], x.shape[0])
                    info.update(batch=b, seq=t, embed=module.embed_dim, heads=module.num_heads, dropout=module.dropout)
                self.calls.append(info)
            self.stack.append((path, tname, call))
        return hook

    def _post(self):
        def hook(module, args, out):
            path, tname, call = self.stack.pop()
            if call is not None:
                o = out[0] if isinstance(out, tuple) else out
                self.calls[call]["output_dtype"] = dtype_name(o.dtype)
                # False for a call that builds no graph (frozen with no input needing gradients, or
                # the no-grad forward of a reentrant checkpoint segment): it keeps nothing on any device
                self.calls[call]["requires_grad"] = bool(o.requires_grad)
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()

    def push(self, path):
        self.stack.append((path, path, None))

    def pop(self):
        self.stack.pop()

    def classify(self, t, key):
        if key in self.param_keys:
            return "parameter"
        if key in self.buffer_keys:
            return "buffer"
        if key == self.input_key:
            return "input"
        if key == self.label_key:
            return "labels"
        origin = param_origin(t)
        if origin == "copy":
            return "autocast_weight_copy"
        if origin == "param":
            return "parameter"
        return "activation"

    def pack(self, t):
        rid = len(self.records)
        key, nbytes = storage_of(t)
        top = self.stack[-1] if self.stack else ("<top>", "<top>", None)
        calls = [c for (_, _, c) in self.stack if c is not None]
        self.records.append(dict(
            key=key, storage_nbytes=nbytes, itemsize=t.element_size(), tensor_numel=t.numel(),
            dtype=dtype_name(t.dtype), shape=list(t.shape), module=top[0], module_type=top[1],
            in_modules=[p for (p, _, _) in self.stack], calls=calls, cls=self.classify(t, key), savers=[]))
        self.tensors[rid] = t
        return rid

    def unpack(self, rid):
        self.unpacks += 1
        if self.current is not None:
            self.records[rid]["savers"].append(self.current)
        return self.tensors[rid]

    def walk(self, root):
        """Visits every node reachable from the loss and reads its saved attributes, which calls
        unpack() for every hooked saved tensor: that ties records to (node, attribute)."""
        seen = set()
        order = []
        stack = [root]
        while stack:
            n = stack.pop()
            if n is None or n in seen:
                continue
            seen.add(n)
            order.append(n)
            for f, _ in n.next_functions:
                stack.append(f)
        unhooked = []
        for n in order:
            if isinstance(n, torch.autograd.function.BackwardCFunction):
                # a Python autograd.Function (torch.utils.checkpoint's CheckpointFunction): what it
                # keeps is ctx.save_for_backward's tensors, read through saved_tensors (unpack hook)
                self.current = (n.name(), "saved_tensors")
                mark = self.unpacks
                v = n.saved_tensors
                got = self.unpacks - mark
                self.current = None
                tensors = [x for x in v if torch.is_tensor(x)]
                if tensors and got < len(tensors):
                    for x in tensors:
                        k, nb = storage_of(x)
                        unhooked.append(dict(node=n.name(), attr="saved_tensors", key=k, nbytes=nb, dtype=dtype_name(x.dtype)))
                continue
            for a in dir(n):
                if not a.startswith("_saved_"):
                    continue
                self.current = (n.name(), a[len("_saved_"):])
                mark = self.unpacks
                v = getattr(n, a)
                got = self.unpacks - mark
                self.current = None
                if torch.is_tensor(v):
                    tensors = [v]
                elif isinstance(v, (list, tuple)):
                    tensors = [x for x in v if torch.is_tensor(x)]
                else:
                    tensors = []
                if tensors and got < len(tensors):
                    for x in tensors:
                        k, nb = storage_of(x)
                        unhooked.append(dict(node=n.name(), attr=a, key=k, nbytes=nb, dtype=dtype_name(x.dtype)))
        cast = {}
        for n in order:
            if n.name() != "ToCopyBackward0":
                continue
            for f, _ in n.next_functions:
                if f is not None and f.name() == "torch::autograd::AccumulateGrad":
                    cast[id(f.variable)] = f.variable.numel()
        self.cast_parameter_elements = sum(cast.values())
        return len(order), unhooked


def storage_summary(probe):
    """Groups the captured records by storage; returns {key: storage info}, reachable only."""
    storages = {}
    for r in probe.records:
        if not r["savers"]:
            continue  # saved by a node the loss does not reach: freed with the forward graph
        s = storages.get(r["key"])
        if s is None:
            s = storages[r["key"]] = dict(key=r["key"], nbytes=r["storage_nbytes"], itemsize=r["itemsize"],
                                          dtype=r["dtype"], cls=r["cls"], records=[])
        s["records"].append(r)
    return storages


def attention_sdpa_bytes(call, itemsize):
    """What PyTorch >= 2.1 CUDA keeps for one nn.MultiheadAttention self-attention call with
    need_weights=False, run through scaled_dot_product_attention (flash or memory-efficient):
    torch/nn/functional.py multi_head_attention_forward + derivatives.yaml
    (_scaled_dot_product_{flash,efficient}_attention save query, key, value, output, logsumexp)."""
    b, t, e, h = call["batch"], call["seq"], call["embed"], call["heads"]
    lse_len = t if itemsize == 2 else math.ceil(t / 32) * 32  # flash: [B,H,T]; mem-efficient pads T to 32
    return {
        "query, key, value (views of the in-projection output made contiguous as [3,T,B,E])": 3 * b * t * e * itemsize,
        "attention output [B,H,T,E/H]": b * t * e * itemsize,
        "logsumexp [B,H,T] float32": b * h * lse_len * 4,
    }


ATTENTION_CORE = {
    ("DivBackward0", "other"),      # q / sqrt(head_dim): a 0-dim float64 wrapped number
    ("BaddbmmBackward0", "batch1"),  # q scaled
    ("BaddbmmBackward0", "batch2"),  # k^T
    ("BmmBackward0", "self"),        # attention probabilities (after dropout)
    ("BmmBackward0", "mat2"),        # v
    ("SoftmaxBackward0", "result"),  # attention probabilities
    ("MulBackward0", "other"),       # dropout noise on the probabilities
}


def group_key(r):
    saver = r["savers"][0]
    return f"{saver[0]}.{saver[1]}|{r['dtype']}"


def analyse_storages(probe, precision):
    storages = storage_summary(probe)
    out = dict(activation=0, input=0, labels=0, parameter=0, buffer=0, autocast_weight_copy=0)
    groups = {}
    modules = {}
    dropout_delta = 0
    dropout_items = {}
    attention_removed = 0
    attention_removed_groups = {}
    recurrent_internal = 0
    loss_bytes = 0
    mean_delta = 0
    mean_items = {}
    logsig_delta = 0
    by_dtype = {}  # adjusted bytes per dtype

    def add_dtype(d, n):
        by_dtype[d] = by_dtype.get(d, 0) + n

    for s in storages.values():
        out[s["cls"]] += s["nbytes"]
        if s["cls"] != "activation":
            continue
        first = s["records"][0]
        gk = group_key(first)
        g = groups.setdefault(gk, dict(bytes=0, storages=0))
        g["bytes"] += s["nbytes"]
        g["storages"] += 1
        modules[first["module"]] = modules.get(first["module"], 0) + s["nbytes"]
        if all("loss" in r["in_modules"] for r in s["records"]):
            loss_bytes += s["nbytes"]
        # (3) a storage only mean.dim keeps (AdaptiveAvgPool2d(1) calls input.mean((-1, -2))): torch 1.13
        # saves mean's input (MeanBackward1._saved_self), PyTorch 2.x saves its sizes and numel only
        if all(all(tuple(sv) == ("MeanBackward1", "self") for sv in r["savers"]) for r in s["records"]):
            mean_delta -= s["nbytes"]
            k = f"MeanBackward1.self|{s['dtype']} -> nothing"
            mean_items[k] = mean_items.get(k, 0) - s["nbytes"]
            continue
        # (5) log_sigmoid_forward's `buffer`: input-sized on the CPU, empty on CUDA (log_sigmoid_forward_cuda)
        if all(all(tuple(sv) == ("LogSigmoidBackward0", "buffer") for sv in r["savers"]) for r in s["records"]):
            logsig_delta -= s["nbytes"]
            continue
        # (1) CPU dropout noise (float, input dtype) -> CUDA native_dropout's bool mask
        if any(r["module_type"] == "Dropout" and any(sv == ("MulBackward0", "other") for sv in r["savers"])
               for r in s["records"]):
            elems = s["nbytes"] // s["itemsize"]
            delta = elems - s["nbytes"]
            dropout_delta += delta
            k = f"MulBackward0.other|{s['dtype']} -> bool mask"
            dropout_items[k] = dropout_items.get(k, 0) + delta
            add_dtype("bool", elems)
            continue
        # (2) the math attention core inside nn.MultiheadAttention -> SDPA (flash / memory-efficient):
        # storages saved only by the core's nodes (q/sqrt(d) scalar, QK^T, softmax, dropout, PV) inside
        # one call, and not one of the call's inputs. The in- and out-projections' saved inputs stay:
        # PyTorch 2.x saves the same tensors there.
        mha_calls = [set(c for c in r["calls"] if probe.calls[c]["kind"] == "MultiheadAttention") for r in s["records"]]
        if all(mha_calls) and all(all(tuple(sv) in ATTENTION_CORE for sv in r["savers"]) for r in s["records"]):
            call_ids = set.intersection(*mha_calls)
            if call_ids and all(s["key"] not in probe.calls[c]["input_keys"] for c in call_ids):
                attention_removed += s["nbytes"]
                attention_removed_groups[gk] = attention_removed_groups.get(gk, 0) - s["nbytes"]
                continue
        # (4) recurrent internals: recorded, not adjusted
        rnn_calls = [set(c for c in r["calls"] if probe.calls[c]["kind"] in ("LSTM", "GRU")) for r in s["records"]]
        if all(rnn_calls):
            call_ids = set.intersection(*rnn_calls)
            if call_ids and all(s["key"] not in probe.calls[c]["input_keys"] for c in call_ids):
                recurrent_internal += s["nbytes"]
        add_dtype(s["dtype"], s["nbytes"])
    attention_added = {}
    for c in probe.calls:
        if c["kind"] != "MultiheadAttention" or not c.get("requires_grad", True):
            continue
        itemsize = 2 if c.get("output_dtype") in ("bfloat16", "float16") else 4
        for k, v in attention_sdpa_bytes(c, itemsize).items():
            attention_added[k] = attention_added.get(k, 0) + v
            add_dtype("float32" if "logsumexp" in k else c.get("output_dtype", "float32"), v)
    attention_delta = -attention_removed + sum(attention_added.values())
    adjusted = out["activation"] + dropout_delta + attention_delta + mean_delta + logsig_delta
    return dict(
        raw=out["activation"], adjusted=adjusted, classes=out, groups=groups, modules=modules, loss=loss_bytes,
        dropout=dict(delta=dropout_delta, items=dropout_items),
        attention=dict(delta=attention_delta, removed=attention_removed, removed_groups=attention_removed_groups,
                       added=attention_added, calls=sum(1 for c in probe.calls if c["kind"] == "MultiheadAttention" and c.get("requires_grad", True))),
        mean=dict(delta=mean_delta, items=mean_items),
        log_sigmoid=dict(delta=logsig_delta),
        recurrent_internal=recurrent_internal, by_dtype=by_dtype,
        recurrent_calls=sum(1 for c in probe.calls if c["kind"] in ("LSTM", "GRU")),
        storages=len(storages))


def make_batch(net, batch, model, device=None):
    """A random batch and its labels (on `device`, where `model` must be for an MSE loss; default the CPU)."""
    if net.get("input_dtype") == "int64":
        x = torch.randint(0, net["classes"], [batch] + net["input"], device=device)
    else:
        x = torch.randn([batch] + net["input"], device=device)
    if net["loss"] == "mse":
        with torch.no_grad():
            y = torch.randn_like(model(x).float())
    elif net.get("input_dtype") == "int64":
        y = torch.randint(0, net["classes"], [batch] + net["input"], device=device)
    else:
        y = torch.randint(0, net["classes"], [batch], device=device)
    return x, y


def compute_loss(net, out, y):
    if net["loss"] == "mse":
        return F.mse_loss(out, y)
    if out.dim() > 2:
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    return F.cross_entropy(out, y)


def autocast_ctx(precision):
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "amp-bf16")


def measure_saved(net, model, batch, precision):
    """One forward + loss with every saved tensor captured, graph walk, analysis, then backward."""
    x, y = make_batch(net, batch, model)
    probe = Probe(model)
    probe.input_key = storage_of(x)[0]
    probe.label_key = storage_of(y)[0]
    model.zero_grad(set_to_none=True)
    with torch.autograd.graph.saved_tensors_hooks(probe.pack, probe.unpack):
        with autocast_ctx(precision):
            out = model(x)
            probe.push("loss")
            loss = compute_loss(net, out, y)
            probe.pop()
    nodes, unhooked = probe.walk(loss.grad_fn)
    res = analyse_storages(probe, precision)
    res["graph_nodes"] = nodes
    # every parameter autocast cast to bf16 (the cast cache holds them until autocast exits;
    # the ones some node saved stay until backward)
    res["cast_parameter_bytes"] = probe.cast_parameter_elements * 2
    res["unhooked"] = unhooked
    res["input_batch_bytes"] = x.numel() * x.element_size()
    res["label_batch_bytes"] = y.numel() * y.element_size()
    res["output_dtype"] = dtype_name(out.dtype)
    loss.backward()
    res["gradient_bytes"] = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    probe.remove()
    probe.tensors.clear()
    del probe, out, loss
    gc.collect()
    return res


def fit(batches, values):
    """Slope and intercept through the two smallest batches of the list that are >= 2 if possible;
    the residual at every other batch says whether the bytes are exactly affine."""
    bs = sorted(batches)
    pick = [b for b in bs if b >= 2][:2] if len([b for b in bs if b >= 2]) >= 2 else bs[:2]
    b1, b2 = pick
    v1, v2 = values[b1], values[b2]
    slope = (v2 - v1) / (b2 - b1)
    fixed = v1 - slope * b1
    residuals = {str(b): values[b] - (fixed + slope * b) for b in bs}
    if slope == int(slope):
        slope = int(slope)
    if fixed == int(fixed):
        fixed = int(fixed)
    return slope, fixed, residuals


# --------------------------------------------------------------------------------------------------
# Optimizers
# --------------------------------------------------------------------------------------------------

OPTIMIZERS = [
    ("sgd", torch.optim.SGD, dict(lr=0.01)),
    ("momentum", torch.optim.SGD, dict(lr=0.01, momentum=0.9)),
    ("nesterov", torch.optim.SGD, dict(lr=0.01, momentum=0.9, nesterov=True)),
    ("adam", torch.optim.Adam, dict(lr=1e-3)),
    ("adamw", torch.optim.AdamW, dict(lr=1e-3)),
    ("adam-amsgrad", torch.optim.Adam, dict(lr=1e-3, amsgrad=True)),
    ("rmsprop", torch.optim.RMSprop, dict(lr=1e-3)),
    ("rmsprop-momentum", torch.optim.RMSprop, dict(lr=1e-3, momentum=0.9)),
    ("rmsprop-centered", torch.optim.RMSprop, dict(lr=1e-3, momentum=0.9, centered=True)),
    ("adagrad", torch.optim.Adagrad, dict(lr=1e-2)),
    ("adadelta", torch.optim.Adadelta, dict()),
    ("adamax", torch.optim.Adamax, dict(lr=2e-3)),
]


REAL_STEP_MAX_PARAMS = 12_000_000
REAL_STEP_ALWAYS = ("momentum", "adam")


def _state_of(opt):
    keys = set()
    state_bytes = 0
    step_bytes = 0
    step_tensors = 0
    step_numbers = 0
    seen = set()
    for p, st in opt.state.items():
        for k, v in st.items():
            if k == "step":
                if torch.is_tensor(v):
                    step_tensors += 1
                    step_bytes += v.numel() * v.element_size()
                else:
                    step_numbers += 1
                continue
            if not torch.is_tensor(v):
                continue  # SGD without momentum stores momentum_buffer = None
            keys.add(f"{k}:{dtype_name(v.dtype)}")
            ident = id(v) if v.is_meta else storage_of(v)[0]
            if ident not in seen:
                seen.add(ident)
                state_bytes += v.numel() * v.element_size() if v.is_meta else storage_of(v)[1]
    return dict(state_keys=sorted(keys), state_tensor_bytes=state_bytes, step_tensors=step_tensors,
                step_tensor_bytes=step_bytes, step_python_numbers=step_numbers)


def step_every_optimizer(model, log):
    """One step of every optimizer on the gradients in place (zeros where a trainable parameter has
    none), then clears them: (optimizer-state bytes by optimizer, per-optimizer detail)."""
    t1 = time.time()
    for p in model.parameters():
        if p.requires_grad and p.grad is None:
            p.grad = torch.zeros_like(p)
    state, detail = measure_optimizers(model)
    model.zero_grad(set_to_none=True)
    log(f"    optimizers: adam {state['adam']:,} B ({time.time() - t1:.1f}s)")
    return state, detail


def measure_optimizers(model):
    """Each optimizer takes one step() and its state is counted. On the real parameters (with the
    gradients in place) when the network has at most REAL_STEP_MAX_PARAMS parameters, or for
    REAL_STEP_ALWAYS; otherwise (this CPU needs ~0.2 us per element per optimizer step) the same
    step() runs on meta-device copies of the parameters (same shapes and dtypes, no data), which
    creates the same state tensors. Both are done where affordable and must agree."""
    params = [p for p in model.parameters() if p.requires_grad]
    n = sum(p.numel() for p in params)
    meta = []
    for p in params:
        mp = nn.Parameter(torch.empty_like(p, device="meta"))
        mp.grad = torch.empty_like(mp)
        meta.append(mp)
    full = {}
    detail = {}
    for name, cls, kw in OPTIMIZERS:
        opt = cls(meta, **kw)
        opt.step()
        m = _state_of(opt)
        del opt
        d = dict(torch_class=cls.__name__, kwargs=kw)
        if n <= REAL_STEP_MAX_PARAMS or name in REAL_STEP_ALWAYS:
            opt = cls(params, **kw)
            opt.step()
            r = _state_of(opt)
            del opt
            gc.collect()
            d.update(r, method="real step() on the CPU parameters",
                     meta_step_agrees=m["state_tensor_bytes"] == r["state_tensor_bytes"] and m["state_keys"] == r["state_keys"])
        else:
            d.update(m, method=f"step() on meta-device copies of the parameters (network above "
                               f"{REAL_STEP_MAX_PARAMS:,} parameters; real steps only for {', '.join(REAL_STEP_ALWAYS)})")
        d["bytes_per_trainable_parameter"] = d["state_tensor_bytes"] / n
        full[name] = d["state_tensor_bytes"]
        detail[name] = d
    return full, detail


# --------------------------------------------------------------------------------------------------
# Peak allocator usage (CPU profiler memory events)
# --------------------------------------------------------------------------------------------------


def measure_peak(net, model, batch):
    """Fresh Adam, gradients unset: one full first step (forward, loss, backward, step) under
    torch.profiler with profile_memory=True. The profiler reports every c10 CPU allocation and free
    (+/- bytes); their running sum from the start of the step is the memory the step adds on top of
    what existed before (parameters, buffers, the batch). oneDNN/OpenBLAS internal scratch buffers
    do not go through the c10 allocator and are not seen."""
    from torch.profiler import ProfilerActivity, profile, record_function

    model.zero_grad(set_to_none=True)
    x, y = make_batch(net, batch, model)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with record_function("hr_forward"):
            out = model(x)
            loss = compute_loss(net, out, y)
        with record_function("hr_backward"):
            loss.backward()
        del out, loss
        with record_function("hr_step"):
            opt.step()
    events = list(prof.profiler.kineto_results.events())
    phases = {}
    for e in events:
        if e.name() in ("hr_forward", "hr_backward", "hr_step"):
            phases[e.name()] = (e.start_us(), e.start_us() + e.duration_us())
    mem = [(e.start_us(), i, e.nbytes()) for i, e in enumerate(events) if e.name() == "[memory]"]
    mem.sort()
    run = 0
    peak = 0
    peak_t = None
    at = {}
    for t, _, nb in mem:
        run += nb
        if run > peak:
            peak, peak_t = run, t
        for ph, (s, e) in phases.items():
            if t <= e:
                at[ph] = run
    peak_phase = next((ph for ph, (s, e) in phases.items() if peak_t is not None and s <= peak_t <= e), None)
    grads = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    res = dict(batch=batch, optimizer="adam", peak_bytes_above_start=peak, peak_phase=peak_phase,
               bytes_above_start_at_end_of={k: at.get(k) for k in ("hr_forward", "hr_backward", "hr_step")},
               memory_events=len(mem), gradient_bytes=grads)
    model.zero_grad(set_to_none=True)
    del opt, prof, events
    gc.collect()
    return res


# --------------------------------------------------------------------------------------------------
# Live bytes through training steps (issue 15: the peak of a real step)
# --------------------------------------------------------------------------------------------------

TIMELINE_PHASES = ("forward", "backward", "step")

# CPU kernels whose implementation allocates temporaries inside the op that CUDA's kernels do not: oneDNN
# convolution reorders its output and gradients through channel-padded blocked buffers (nChw8c/16c), the
# slow (im2col) convolutions keep column buffers, and the CPU batch norm backward makes a scratch copy.
# CUDA's cuDNN kernels allocate their results (and a cuDNN workspace, which Headroom does not model:
# measure_cuda.py records it). Inside these ops the adjusted live bytes are capped at what the op has
# left allocated when it returns (its results); outside them raw and adjusted agree.
CPU_KERNEL_TEMPORARY_OPS = {
    "aten::mkldnn_convolution", "aten::convolution_backward", "aten::mkldnn_convolution_backward",
    "aten::_slow_conv2d_forward", "aten::_slow_conv2d_backward", "aten::slow_conv3d_forward",
    "aten::slow_conv_transpose2d", "aten::slow_conv_transpose3d", "aten::slow_conv_dilated2d",
    "aten::slow_conv_dilated3d", "aten::native_batch_norm", "aten::native_batch_norm_backward",
}


class ModuleScopes:
    """Wraps every module's forward in a profiler scope "hr_module:<path>", so memory events can be tied to
    the module running (and, through autograd sequence numbers, backward nodes to their module)."""

    def __init__(self, model):
        from torch.autograd.profiler import record_function
        self.stack = []
        self.handles = []
        for path, m in model.named_modules():
            if not path:
                continue

            def pre(module, args, path=path):
                rf = record_function("hr_module:" + path)
                rf.__enter__()
                self.stack.append(rf)

            def post(module, args, out):
                self.stack.pop().__exit__(None, None, None)

            self.handles.append(m.register_forward_pre_hook(pre))
            self.handles.append(m.register_forward_hook(post))

    def remove(self):
        for h in self.handles:
            h.remove()


def _innermost(scopes, t):
    """The innermost (latest-starting) scope (start, end, value) containing time t, or None."""
    best = None
    for start, end, value in scopes:
        if start <= t <= end and (best is None or start >= best[0]):
            best = (start, end, value)
    return best[2] if best else None


def measure_step_timeline(net, model, batch, optimizer="adam"):
    """Two training steps under torch.profiler(profile_memory=True): the first (no optimizer state yet)
    and a steady one. Each step is opt.zero_grad(set_to_none=True) (PyTorch 2.x's default), forward and
    loss, backward, opt.step(); the loop keeps no reference to the output or the loss after backward.
    The running sum of the c10 allocator's +/- events from the start of profiling is the memory the steps
    add to what existed before (parameters, buffers, the batch and its labels). Per step: the peak, its
    phase and module, each phase's peak, and the live bytes right after the forward pass (the loss
    included). torch 1.13 on the CPU runs the for-loop optimizer and sums branch gradients out of place;
    the tst_reference* tests apply those and the other documented CPU differences to Headroom's simulation."""
    from torch.profiler import ProfilerActivity, profile, record_function

    opt_cls, kwargs = {name: (cls, kw) for name, cls, kw in OPTIMIZERS}[optimizer]
    model.zero_grad(set_to_none=True)
    x, y = make_batch(net, batch, model)
    opt = opt_cls([p for p in model.parameters() if p.requires_grad], **kwargs)
    scopes = ModuleScopes(model)
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        for step in (1, 2):
            opt.zero_grad(set_to_none=True)
            with record_function(f"hr_s{step}_forward"):
                out = model(x)
                loss = compute_loss(net, out, y)
                del out
            with record_function(f"hr_s{step}_backward"):
                loss.backward()
            del loss
            with record_function(f"hr_s{step}_step"):
                opt.step()
    scopes.remove()
    events = list(prof.profiler.kineto_results.events())
    order = sorted(range(len(events)), key=lambda i: (events[i].start_us(), i))
    phases = {}
    modules = []
    nodes = []
    seq_module = {}
    for i in order:
        e = events[i]
        name, start, end = e.name(), e.start_us(), e.start_us() + e.duration_us()
        if name.startswith("hr_s") and name[5:] in ("_forward", "_backward", "_step"):
            phases[(int(name[4]), name[6:])] = (start, end)
        elif name.startswith("hr_module:"):
            modules.append((start, end, name[len("hr_module:"):]))
        elif name.startswith("autograd::engine::evaluate_function: "):
            nodes.append((start, end, e.sequence_nr()))
    for i in order:
        e = events[i]
        if e.sequence_nr() >= 0 and not e.name().startswith("autograd::") and e.name() != "[memory]":
            m = _innermost(modules, e.start_us())
            if m is not None and e.sequence_nr() not in seq_module:
                seq_module[e.sequence_nr()] = m
    # The outermost calls of the CPU kernels with temporaries, and what each leaves allocated.
    kernels = []
    for i in order:
        e = events[i]
        if e.name() in CPU_KERNEL_TEMPORARY_OPS:
            start, end = e.start_us(), e.start_us() + e.duration_us()
            if not any(s0 <= start and end <= e0 for s0, e0, _ in kernels):
                kernels = [k for k in kernels if not (start <= k[0] and k[1] <= end)]
                kernels.append((start, end, e.name()))
    kernels.sort()
    mem = [(events[i].start_us(), i, events[i].nbytes()) for i in order if events[i].name() == "[memory]"]
    net = [0] * len(kernels)
    inside = [None] * len(mem)
    k = 0
    for n, (t, _, nb) in enumerate(mem):
        while k < len(kernels) and kernels[k][1] < t:
            k += 1
        if k < len(kernels) and kernels[k][0] <= t <= kernels[k][1]:
            inside[n] = k
            net[k] += nb
    run = 0
    raw_run = 0
    cumulative = [0] * len(kernels)
    removed = 0
    steps = {s: dict(step=s, peak_bytes=0, peak_phase=None, peak_module=None,
                     phase_peaks={p: 0 for p in TIMELINE_PHASES}, live_after_forward=None, start_bytes=None,
                     raw_phase_peaks={p: 0 for p in TIMELINE_PHASES})
             for s in (1, 2)}
    for n, (t, _, nb) in enumerate(mem):
        raw_run += nb
        excess = 0
        if inside[n] is not None:
            kk = inside[n]
            cumulative[kk] += nb
            excess = max(0, cumulative[kk] - max(net[kk], 0))
        run = raw_run - excess
        removed = max(removed, excess)
        for (s, p), (start, end) in phases.items():
            st = steps[s]
            if p == "forward" and st["start_bytes"] is None and t >= start:
                st["start_bytes"] = run - nb
            if p == "forward" and t <= end:
                st["live_after_forward"] = run
            if not (start <= t <= end):
                continue
            st["phase_peaks"][p] = max(st["phase_peaks"][p], run)
            st["raw_phase_peaks"][p] = max(st["raw_phase_peaks"][p], raw_run)
            if run > st["peak_bytes"]:
                st["peak_bytes"] = run
                st["peak_phase"] = p
                if p == "forward":
                    st["peak_module"] = _innermost(modules, t)
                elif p == "backward":
                    seq = _innermost(nodes, t)
                    st["peak_module"] = seq_module.get(seq, f"backward node {seq}")
                else:
                    st["peak_module"] = "optimizer"
    model.zero_grad(set_to_none=True)
    del opt, prof, events
    gc.collect()
    return dict(batch=batch, optimizer=optimizer, implementation="for-loop (torch 1.13 CPU default)",
                steps=[steps[1], steps[2]], memory_events=len(mem),
                cpu_kernel_temporaries=dict(calls=len(kernels), largest_removed_bytes=removed))


# --------------------------------------------------------------------------------------------------
# Rules of thumb
# --------------------------------------------------------------------------------------------------

WEIGHTED_OR_POOL = (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d,
                    nn.Linear, nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d,
                    nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d, nn.AdaptiveMaxPool1d,
                    nn.AdaptiveMaxPool2d, nn.AdaptiveMaxPool3d, nn.Embedding, nn.LSTM, nn.GRU, nn.MultiheadAttention)


def layer_output_counts(net, model):
    """Sum of every leaf module's output elements per sample (what summary tools such as
    torchsummary add up; nn.MultiheadAttention and LSTM count as leaves), and the cs231n-style sum
    over weighted layers and pooling only (activations folded into the layer before)."""
    leaves = []
    for _, m in model.named_modules():
        if isinstance(m, (nn.MultiheadAttention, nn.LSTM, nn.GRU)) or (len(list(m.children())) == 0 and not isinstance(m, _Fn)):
            leaves.append(m)
    counts = dict(all=0, weighted_and_pool=0, modules=0)
    batch = 2

    def hook(m, args, out):
        o = out[0] if isinstance(out, tuple) else out
        if not torch.is_tensor(o):
            return
        n = o.numel() // batch
        counts["all"] += n
        counts["modules"] += 1
        if isinstance(m, WEIGHTED_OR_POOL):
            counts["weighted_and_pool"] += n

    hs = [m.register_forward_hook(hook) for m in set(leaves)]
    if net.get("input_dtype") == "int64":
        x = torch.randint(0, net["classes"], [batch] + net["input"])
    else:
        x = torch.randn([batch] + net["input"])
    with torch.no_grad():
        model(x)
    for h in hs:
        h.remove()
    return counts


def rules_of_thumb(net, params, counts, measured, batches):
    input_ps = math.prod(net["input"]) * (8 if net.get("input_dtype") == "int64" else 4)
    rot = dict(
        source="cs231n 'Computational considerations' and the accepted answer in /work/shared/seeds/"
               "minibatch-memory-qa.ko.txt: parameters x 3 (x 4 with Adam) x 4 bytes + activations x 2 x 4 bytes "
               "x batch + input x 4 bytes x batch",
        parameters=params,
        parameter_bytes_x3=params * 3 * 4,
        parameter_bytes_x4_adam=params * 4 * 4,
        activation_elements_per_sample_all_layers=counts["all"],
        activation_elements_per_sample_weighted_and_pool=counts["weighted_and_pool"],
        counted_modules=counts["modules"],
        activation_bytes_per_sample_rule=counts["all"] * 2 * 4,
        activation_bytes_per_sample_rule_weighted_and_pool=counts["weighted_and_pool"] * 2 * 4,
        input_bytes_per_sample=input_ps,
        totals={},
    )
    published = net.get("published")
    extra = [published["batch"]] if published else []
    for b in sorted(set(batches + [RULE_BATCH] + extra)):
        t = dict(
            rule_sgd=rot["parameter_bytes_x3"] + (rot["activation_bytes_per_sample_rule"] + input_ps) * b,
            rule_adam=rot["parameter_bytes_x4_adam"] + (rot["activation_bytes_per_sample_rule"] + input_ps) * b,
            rule_sgd_weighted_and_pool=rot["parameter_bytes_x3"]
            + (rot["activation_bytes_per_sample_rule_weighted_and_pool"] + input_ps) * b,
            rule_adam_weighted_and_pool=rot["parameter_bytes_x4_adam"]
            + (rot["activation_bytes_per_sample_rule_weighted_and_pool"] + input_ps) * b,
        )
        if measured is not None:
            # measured counterpart, allocator-visible tensors only (no transient, no CUDA context)
            base = measured["weights"] + measured["gradients"] + measured["fixed"] + \
                (measured["per_sample"] + measured["input_per_sample"]) * b
            t.update(measured_sgd=base + measured["state"]["sgd"], measured_momentum=base + measured["state"]["momentum"],
                     measured_adam=base + measured["state"]["adam"])
        rot["totals"][str(b)] = t
    if published:
        # the Q&A's own figures through its own rule: parameters x 3 x 4 + activations x 2 x 4 x batch + input
        b = published["batch"]
        rule = published["parameters"] * 3 * 4 + published["activations_per_sample"] * 2 * 4 * b \
            + published["input_elements_per_sample"] * 4 * b
        rot["published_network"] = dict(published, rule_bytes=rule, rule_mib=round(rule / 2**20, 2))
    return rot


# --------------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------------


def counts_of(model):
    params = list(model.parameters())
    bufs = list(model.buffers())
    by_dtype = {}
    for b in bufs:
        d = dtype_name(b.dtype)
        by_dtype[d] = by_dtype.get(d, 0) + b.numel() * b.element_size()
    return dict(
        total=sum(p.numel() for p in params),
        trainable=sum(p.numel() for p in params if p.requires_grad),
        bytes=sum(p.numel() * p.element_size() for p in params),
    ), dict(elements=sum(b.numel() for b in bufs), bytes=sum(b.numel() * b.element_size() for b in bufs), by_dtype=by_dtype)


def run_precision(net, model, precision, log):
    results = {}
    for b in net["batches"]:
        t0 = time.time()
        torch.manual_seed(1000 + b)
        r = measure_saved(net, model, b, precision)
        results[b] = r
        log(f"    {precision} batch {b}: raw {r['raw']:,} adjusted {r['adjusted']:,} B "
            f"({r['storages']} storages, {r['graph_nodes']} nodes, {time.time() - t0:.1f}s)")
    bs = net["batches"]
    raw_slope, raw_fixed, raw_res = fit(bs, {b: results[b]["raw"] for b in bs})
    adj_slope, adj_fixed, adj_res = fit(bs, {b: results[b]["adjusted"] for b in bs})
    wc_slope, wc_fixed, _ = fit(bs, {b: results[b]["classes"]["autocast_weight_copy"] for b in bs})
    loss_slope, loss_fixed, _ = fit(bs, {b: results[b]["loss"] for b in bs})
    rec_slope, rec_fixed, _ = fit(bs, {b: results[b]["recurrent_internal"] for b in bs})
    drop_slope, drop_fixed, _ = fit(bs, {b: results[b]["dropout"]["delta"] for b in bs})
    att_slope, att_fixed, _ = fit(bs, {b: results[b]["attention"]["delta"] for b in bs})

    all_groups = sorted(set().union(*[results[b]["groups"].keys() for b in bs]))
    groups = []
    for g in all_groups:
        vals = {b: results[b]["groups"].get(g, {}).get("bytes", 0) for b in bs}
        s, f, _ = fit(bs, vals)
        node_attr, dt = g.split("|")
        node, attr = node_attr.split(".", 1)
        groups.append(dict(grad_fn=node, saved=attr, dtype=dt, bytes_per_sample=s, bytes_fixed=f,
                           storages={str(b): results[b]["groups"].get(g, {}).get("storages", 0) for b in bs},
                           bytes={str(b): vals[b] for b in bs}))
    groups.sort(key=lambda g: -g["bytes_per_sample"])
    dtype_split = {}
    for g in groups:
        dtype_split[g["dtype"]] = dtype_split.get(g["dtype"], 0) + g["bytes_per_sample"]
    dtype_split_adjusted = {}
    for d in sorted(set().union(*[results[b]["by_dtype"].keys() for b in bs])):
        s_, f_, _ = fit(bs, {b: results[b]["by_dtype"].get(d, 0) for b in bs})
        dtype_split_adjusted[d] = dict(bytes_per_sample=s_, bytes_fixed=f_)
    mean_slope, mean_fixed, _ = fit(bs, {b: results[b]["mean"]["delta"] for b in bs})
    logsig_slope, logsig_fixed, _ = fit(bs, {b: results[b]["log_sigmoid"]["delta"] for b in bs})
    all_mods = sorted(set().union(*[results[b]["modules"].keys() for b in bs]))
    modules = {}
    for m in all_mods:
        s, f, _ = fit(bs, {b: results[b]["modules"].get(m, 0) for b in bs})
        modules[m] = dict(bytes_per_sample=s, bytes_fixed=f)

    first_b = sorted(bs)[0]
    r0 = results[first_b]
    out = dict(
        precision=precision,
        batch_sizes=bs,
        activation_bytes_per_sample_raw=raw_slope,
        activation_bytes_fixed_raw=raw_fixed,
        activation_bytes_per_sample_cuda=adj_slope,
        activation_bytes_fixed=adj_fixed,
        linear_fit_residual_bytes=dict(raw=raw_res, adjusted=adj_res),
        loss_activation_bytes_per_sample=loss_slope,
        loss_activation_bytes_fixed=loss_fixed,
        input_bytes_per_sample=r0["input_batch_bytes"] // first_b,
        label_bytes_per_sample=r0["label_batch_bytes"] // first_b,
        autocast_weight_copy_bytes_saved=wc_fixed if precision != "fp32" else 0,
        autocast_weight_copy_bytes_per_sample=wc_slope,
        autocast_cast_parameter_bytes=r0["cast_parameter_bytes"],
        output_dtype=r0["output_dtype"],
        saved_bytes_by_batch={str(b): dict(raw=results[b]["raw"], adjusted=results[b]["adjusted"],
                                           input=results[b]["classes"]["input"], labels=results[b]["classes"]["labels"],
                                           parameters_saved=results[b]["classes"]["parameter"],
                                           buffers_saved=results[b]["classes"]["buffer"],
                                           autocast_weight_copies_saved=results[b]["classes"]["autocast_weight_copy"],
                                           storages=results[b]["storages"], graph_nodes=results[b]["graph_nodes"],
                                           gradient_bytes=results[b]["gradient_bytes"])
                              for b in bs},
        adjustments=dict(
            dropout_mask=dict(bytes_per_sample=drop_slope, bytes_fixed=drop_fixed,
                              items_at_batch={str(b): results[b]["dropout"]["items"] for b in bs}),
            attention_sdpa=dict(bytes_per_sample=att_slope, bytes_fixed=att_fixed, calls=r0["attention"]["calls"],
                                removed_at_batch={str(b): results[b]["attention"]["removed_groups"] for b in bs},
                                added_at_batch={str(b): results[b]["attention"]["added"] for b in bs}),
            mean_input=dict(bytes_per_sample=mean_slope, bytes_fixed=mean_fixed,
                            items_at_batch={str(b): results[b]["mean"]["items"] for b in bs}),
            log_sigmoid_buffer=dict(bytes_per_sample=logsig_slope, bytes_fixed=logsig_fixed),
        ),
        recurrent=dict(calls=r0["recurrent_calls"], internal_bytes_per_sample=rec_slope, internal_bytes_fixed=rec_fixed,
                       cuda_comparable=r0["recurrent_calls"] == 0),
        saved_bytes_per_sample_by_dtype_raw=dtype_split,
        saved_bytes_by_dtype_cuda=dtype_split_adjusted,
        groups=groups,
        modules=modules,
        unhooked_saved_tensors=r0["unhooked"],
    )
    if r0["recurrent_calls"]:
        out["activation_bytes_per_sample_cuda"] = None
        out["activation_bytes_per_sample_cpu_unfused_recurrent"] = adj_slope
        out["activation_bytes_per_sample_outside_recurrent"] = adj_slope - rec_slope
    return out, results[first_b]["gradient_bytes"]


def check_model_file(net, ref_model, ref_counts, log):
    spec = load_model_file(net["model_file"])
    if spec is None:
        return dict(status="missing", note=f"{net['model_file']} does not exist yet")
    try:
        torch.manual_seed(0)
        built = HeadroomNet(spec)
    except Exception as e:  # report, do not fail the suite
        return dict(status="unbuildable", error=f"{type(e).__name__}: {e}")
    p, b = counts_of(built)
    res = dict(status="ok", params_total=p["total"], params_trainable=p["trainable"], buffer_elements=b["elements"],
               params_match=p["total"] == ref_counts[0]["total"] and p["trainable"] == ref_counts[0]["trainable"],
               buffers_match=b["elements"] == ref_counts[1]["elements"],
               input=spec["input"], loss=spec.get("loss"))
    if not res["params_match"]:
        res["status"] = "mismatch"
    return res, built


def build_network(net):
    """The PyTorch module of a NETWORKS entry, in training mode (None if its model file is missing). A
    network built from its model file gets its input shape and dtype, loss and classes filled into `net`."""
    torch.manual_seed(0)
    if net["build"] is None:
        spec = load_model_file(net["model_file"])
        if spec is None:
            return None
        model = HeadroomNet(spec)
        net["input"] = model.input_shape
        net["input_dtype"] = model.input_dtype
        net["loss"] = model.loss
        with torch.no_grad():
            o = model(model.example_input(2))
        net["classes"] = o.shape[-1]
        net["built_from_model_file"] = True
    else:
        model = net["build"]()
        net.setdefault("loss", "cross_entropy")
    return model.train()


def measure_network(net, args, log):
    t0 = time.time()
    model = build_network(net)
    if model is None:
        log(f"  {net['name']}: {net['model_file']} missing, skipped")
        return dict(name=net["name"], model_file=net["model_file"], skipped="model file missing")
    pc, bc = counts_of(model)
    log(f"  {net['name']}: {pc['total']:,} parameters, {bc['elements']:,} buffer elements")

    entry = dict(
        name=net["name"],
        description=net["description"],
        model_file=net["model_file"],
        pytorch_module="built from the model file by measure.py (HeadroomNet)" if net.get("built_from_model_file")
        else (f"torchvision.models.{net['name']}(weights=None)" if net["build"].__name__ == "make"
              else f"measure.py {net['build'].__name__}"),
        input=dict(shape=net["input"], dtype=net.get("input_dtype", "float32")),
        loss=net["loss"],
        parameters=pc,
        buffers=bc,
        gradient_bytes=pc["trainable"] * 4,
    )

    counts = layer_output_counts(net, model)

    runs = []
    state = detail = None
    for precision in net["precisions"]:
        if precision != "fp32" and args.fp32_only:
            continue
        run, grad_bytes = run_precision(net, model, precision, log)
        if state is None:
            # gradients of the last batch are in place: one step of each optimizer
            state, detail = step_every_optimizer(model, log)
        run["optimizer_state_bytes"] = state
        run["gradient_bytes_measured"] = grad_bytes
        if precision != "fp32":
            run["optimizer_state_note"] = "autocast keeps parameters, gradients and optimizer state in float32: " \
                                          "same state as fp32 (measured once)"
        runs.append(run)
    entry["optimizer_state_detail"] = detail

    if not args.no_timeline:
        t1 = time.time()
        entry["step_timeline"] = []
        for b in net.get("timeline_batches", net["batches"][:3]):
            r = measure_step_timeline(net, model, b)
            entry["step_timeline"].append(r)
            s1, s2 = r["steps"]
            log(f"    step timeline batch {b}: first {s1['peak_bytes']:,} ({s1['peak_phase']}, {s1['peak_module']}), "
                f"steady {s2['peak_bytes']:,} ({s2['peak_phase']}, {s2['peak_module']})")
        log(f"    step timelines ({time.time() - t1:.1f}s)")

    if not args.no_peak:
        pb = [b for b in net["batches"] if b >= 2][0]
        t1 = time.time()
        entry["cpu_peak"] = measure_peak(net, model, pb)
        entry["cpu_peak"]["note"] = ("CPU allocator only (c10 allocations seen by the profiler); CPU kernels' "
                                     "temporaries differ from CUDA's, so this is a plausibility figure, not a target")
        log(f"    peak (adam, batch {pb}): {entry['cpu_peak']['peak_bytes_above_start']:,} B above start "
            f"in {entry['cpu_peak']['peak_phase']} ({time.time() - t1:.1f}s)")

    fp32 = runs[0]
    measured = dict(weights=pc["bytes"] + bc["bytes"], gradients=pc["trainable"] * 4,
                    per_sample=fp32["activation_bytes_per_sample_cuda"] if fp32["activation_bytes_per_sample_cuda"] is not None
                    else fp32["activation_bytes_per_sample_raw"],
                    fixed=fp32["activation_bytes_fixed"], state=state,
                    input_per_sample=fp32["input_bytes_per_sample"] + fp32["label_bytes_per_sample"])
    entry["rules_of_thumb"] = rules_of_thumb(net, pc["total"], counts, measured, net["batches"])
    entry["runs"] = runs

    # the model file, built by measure.py: parameter check and saved-bytes check at one batch
    if net.get("built_from_model_file"):
        entry["model_file_check"] = dict(status="reference is built from the model file")
    else:
        chk = check_model_file(net, model, (pc, bc), log)
        if isinstance(chk, tuple):
            chk, built = chk
            b = sorted(net["batches"])[0]
            try:
                rb = measure_saved(net, built, b, "fp32")
                rm = fp32["saved_bytes_by_batch"][str(b)]
                chk["saved_check_batch"] = b
                chk["saved_raw_model_file_build"] = rb["raw"]
                chk["saved_raw_reference"] = rm["raw"]
                chk["saved_match"] = rb["raw"] == rm["raw"]
                chk["saved_adjusted_model_file_build"] = rb["adjusted"]
                chk["saved_adjusted_reference"] = rm["adjusted"]
            except Exception as e:
                chk["saved_check_error"] = f"{type(e).__name__}: {e}"
            del built
        entry["model_file_check"] = chk
        log(f"    model file: {json.dumps({k: v for k, v in chk.items() if k not in ('input',)})}")
    entry["seconds"] = round(time.time() - t0, 1)
    del model
    gc.collect()
    return entry


# --------------------------------------------------------------------------------------------------
# Training strategies (issue 7): frozen layers and activation checkpointing
# --------------------------------------------------------------------------------------------------


def _frozen(build, *paths):
    """`build()` with requires_grad_(False) on the named submodules ("" = the whole module)."""
    def make():
        m = build()
        for path in paths:
            m.get_submodule(path).requires_grad_(False)
        return m
    make.__name__ = f"{build.__name__}, requires_grad_(False) on {', '.join(p or 'everything' for p in paths)}"
    return make


def resnet18_frozen_backbone():
    """torchvision ResNet-18, everything but the classifier frozen (linear probing)."""
    m = torchvision.models.resnet18(weights=None)
    m.requires_grad_(False)
    m.fc.requires_grad_(True)
    return m


class CheckpointedStack(nn.Module):
    """stem -> identical blocks -> head; with `checkpointing`, each block is one
    torch.utils.checkpoint segment (use_reentrant=True, torch 1.13's default: the segment runs
    under no_grad in forward, CheckpointFunction saves only its tensor inputs, and backward re-runs
    the block with grad enabled). `on_recompute(i, h)` is called when block i is re-run in backward."""

    def __init__(self):
        super().__init__()
        self.checkpointing = True
        self.on_recompute = None
        self.block_inputs = {}

    def block_count(self):
        return len(self.blocks)

    def call_block(self, i, h):
        return self.blocks[i](h)

    def run_block(self, i, h):
        self.block_inputs[i] = list(h.shape)
        if self.checkpointing and torch.is_grad_enabled() and self.on_recompute is not None:
            self.on_recompute(i, h)
        return self.call_block(i, h)

    def forward(self, x):
        h = self.stem(x)
        for i in range(self.block_count()):
            if self.checkpointing:
                h = torch.utils.checkpoint.checkpoint(lambda t, i=i: self.run_block(i, t), h, use_reentrant=True)
            else:
                h = self.run_block(i, h)
        return self.head(h)


class MLPStack(CheckpointedStack):
    """Flatten, Linear 784-256, ReLU, then 6 identical feed-forward blocks [Linear 256-1024, ReLU,
    Linear 1024-256, ReLU], Linear 10. (A stack of plain [Linear, ReLU] blocks gains nothing from
    checkpointing: each block keeps one tensor, its ReLU output, which is the next block's input
    and so exactly what a checkpoint keeps.)"""
    WIDTH, HIDDEN, DEPTH = 256, 1024, 6

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Flatten(), nn.Linear(784, self.WIDTH), nn.ReLU())
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(self.WIDTH, self.HIDDEN), nn.ReLU(), nn.Linear(self.HIDDEN, self.WIDTH), nn.ReLU())
            for _ in range(self.DEPTH))
        self.head = nn.Linear(self.WIDTH, 10)


class CNNStack(CheckpointedStack):
    """Conv 3-32 3x3, BN, ReLU(inplace), then 4 identical blocks [Conv 32-32 3x3, BN, ReLU(inplace)],
    Flatten, Linear 10, on 3x32x32."""
    C, DEPTH = 32, 4

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(*conv_bn_relu(3, self.C))
        self.blocks = nn.ModuleList(nn.Sequential(*conv_bn_relu(self.C, self.C)) for _ in range(self.DEPTH))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(self.C * 32 * 32, 10))


class CheckpointedTransformerLM(TransformerLM):
    """TransformerLM with each nn.TransformerEncoderLayer one checkpoint segment (the causal mask is
    made inside the segment, so it is not a saved input; nn.TransformerEncoder's forward is the
    same loop over its layers)."""

    def __init__(self):
        super().__init__()
        self.checkpointing = True
        self.on_recompute = None
        self.block_inputs = {}

    def block_count(self):
        return len(self.encoder.layers)

    def call_block(self, i, h):
        return self.encoder.layers[i](h, src_mask=causal_mask(h.shape[1]))

    run_block = CheckpointedStack.run_block

    def forward(self, idx):
        h = self.pos(self.tok(idx))
        for i in range(self.block_count()):
            if self.checkpointing:
                h = torch.utils.checkpoint.checkpoint(lambda t, i=i: self.run_block(i, t), h, use_reentrant=True)
            else:
                h = self.run_block(i, h)
        return self.head(self.norm(h))


_TLM_DESC = ("TransformerLM (Embedding 5000x256, learned positions T=128, 4 pre-norm GELU encoder layers, 4 heads, "
             "ff 1024, dropout 0.1, causal, LayerNorm, Linear 5000)")

# kind "frozen": the model file marks the same layers "frozen": true; analysed with default options.
# kind "checkpoint": the model file marks the blocks "checkpoint": true; analysed with
# AnalysisOptions.checkpointing = PerBlock. `after_blocks`: top-level modules that run after the
# last checkpointed block (their saved tensors are freed before the first recomputation).
STRATEGY_CASES = [
    dict(name="resnet18_frozen_backbone", kind="frozen", build=resnet18_frozen_backbone,
         model_file="tests/reference/models/resnet18_frozen_backbone.json", baseline="resnet18",
         input=[3, 224, 224], classes=1000, batches=[2, 4],
         description="torchvision resnet18(weights=None), requires_grad_(False) on everything but fc (linear probe)"),
    dict(name="mlp_frozen_first", kind="frozen", build=_frozen(MLP, "net.1"),
         model_file="tests/reference/models/mlp_frozen_first.json", baseline="mlp",
         input=[1, 28, 28], classes=10, batches=[2, 4, 8],
         description="the reference MLP (784-512-256-10, Dropout 0.2) with its first Linear (net.1) frozen"),
    dict(name="transformer_lm_frozen_embedding", kind="frozen", build=_frozen(TransformerLM, "tok"),
         model_file="tests/reference/models/transformer_lm_frozen_embedding.json", baseline="transformer_lm",
         input=[TransformerLM.T], input_dtype="int64", classes=TransformerLM.VOCAB, batches=[2, 4],
         description=_TLM_DESC + " with the token embedding frozen"),
    dict(name="transformer_lm_frozen_lower", kind="frozen",
         build=_frozen(TransformerLM, "tok", "pos", "encoder.layers.0", "encoder.layers.1"),
         model_file="tests/reference/models/transformer_lm_frozen_lower.json", baseline="transformer_lm",
         input=[TransformerLM.T], input_dtype="int64", classes=TransformerLM.VOCAB, batches=[2, 4],
         description=_TLM_DESC + " with the embeddings and the lower two encoder layers frozen"),
    dict(name="transformer_lm_checkpoint", kind="checkpoint", build=CheckpointedTransformerLM,
         model_file="tests/reference/models/transformer_lm_checkpoint.json", baseline="transformer_lm",
         input=[TransformerLM.T], input_dtype="int64", classes=TransformerLM.VOCAB, batches=[2, 4],
         after_blocks=["norm", "head", "loss"],
         description=_TLM_DESC + ", each encoder layer a torch.utils.checkpoint segment (use_reentrant=True)"),
    dict(name="mlp_stack_checkpoint", kind="checkpoint", build=MLPStack,
         model_file="tests/reference/models/mlp_stack_checkpoint.json", baseline=None,
         input=[1, 28, 28], classes=10, batches=[2, 4, 8], after_blocks=["head", "loss"],
         description="MLP stack: Flatten, Linear 784-256, ReLU, 6 x [Linear 256-1024, ReLU, Linear 1024-256, ReLU] each a checkpoint segment "
                     "(use_reentrant=True), Linear 10"),
    dict(name="cnn_stack_checkpoint", kind="checkpoint", build=CNNStack,
         model_file="tests/reference/models/cnn_stack_checkpoint.json", baseline=None,
         input=[3, 32, 32], classes=10, batches=[2, 4, 8], after_blocks=["head", "loss"],
         description="CNN stack on 3x32x32: Conv 32 3x3, BN, ReLU(inplace), 4 x [Conv 32 3x3, BN, ReLU(inplace)] each a "
                     "checkpoint segment (use_reentrant=True), Flatten, Linear 10"),
]


def measure_block_saved(model, i, batch, precision):
    """Block i run normally (grad enabled) on a fresh input that requires grad: the tensors its
    recomputation in backward re-materialises. The block's input is excluded (the checkpoint keeps
    it already; the recomputation runs on a detached alias of the same storage)."""
    shape = [batch] + model.block_inputs[i][1:]
    x = torch.randn(shape, requires_grad=True)
    probe = Probe(model)
    probe.input_key = storage_of(x)[0]
    with torch.autograd.graph.saved_tensors_hooks(probe.pack, probe.unpack):
        with autocast_ctx(precision):
            out = model.call_block(i, x)
        root = out.float().sum()  # SumBackward0 keeps only sizes
    probe.walk(root.grad_fn)
    res = analyse_storages(probe, precision)
    root.backward()
    probe.remove()
    probe.tensors.clear()
    model.zero_grad(set_to_none=True)
    del probe, out, root
    gc.collect()
    return res


def measure_recompute_in_situ(net, model, batch):
    """A real checkpointed step: forward, loss, then backward under a pack hook that sees every
    tensor the recomputed segments save, grouped per segment (storages counted once; parameters,
    buffers (BatchNorm's running statistics) and the segment's own kept input excluded). Raw CPU bytes."""
    model.zero_grad(set_to_none=True)
    x, y = make_batch(net, batch, model)
    params = {storage_of(p)[0] for p in model.parameters()} | {storage_of(b)[0] for b in model.buffers() if b.numel()}
    segments = []

    def on_recompute(i, h):
        segments.append(dict(block=i, input_key=storage_of(h)[0], storages={}))

    def pack(t):
        if segments:
            k, nb = storage_of(t)
            seg = segments[-1]
            if k not in params and k != seg["input_key"]:
                seg["storages"][k] = nb
        return t

    model.on_recompute = on_recompute
    out = model(x)
    loss = compute_loss(net, out, y)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss.backward()
    model.on_recompute = None
    model.zero_grad(set_to_none=True)
    return [dict(block=s["block"], saved_bytes=sum(s["storages"].values()), storages=len(s["storages"]))
            for s in segments]


def measure_strategy_case(case, log):
    t0 = time.time()
    net = dict(case)
    net.setdefault("loss", "cross_entropy")
    torch.manual_seed(0)
    model = net["build"]()
    model.train()
    pc, bc = counts_of(model)
    log(f"  {net['name']}: {pc['total']:,} parameters, {pc['trainable']:,} trainable")
    entry = dict(name=net["name"], kind=net["kind"], description=net["description"], model_file=net["model_file"],
                 pytorch_module=f"measure.py {net['build'].__name__}", baseline_network=net.get("baseline"),
                 input=dict(shape=net["input"], dtype=net.get("input_dtype", "float32")), loss=net["loss"],
                 analysis_options=dict(precision="fp32",
                                       checkpointing="per-block" if net["kind"] == "checkpoint" else "none"),
                 parameters=pc, buffers=bc)

    run, grad_bytes = run_precision(net, model, "fp32", log)
    if not getattr(measure_strategy_case, "skip_timeline", False):
        entry["step_timeline"] = [measure_step_timeline(net, model, b) for b in net["batches"]]
        log("    step timelines: " + ", ".join(f"batch {r['batch']} steady peak {r['steps'][1]['peak_bytes']:,} "
                                               f"({r['steps'][1]['peak_phase']}, {r['steps'][1]['peak_module']})"
                                               for r in entry["step_timeline"]))
    state, detail = step_every_optimizer(model, log)
    run["optimizer_state_bytes"] = state
    run["gradient_bytes_measured"] = grad_bytes
    entry["optimizer_state_keys"] = {k: v["state_keys"] for k, v in detail.items()}
    entry["gradient_bytes"] = grad_bytes
    compare = dict(totalParams=pc["total"], trainableParams=pc["trainable"], bufferElements=bc["elements"],
                   optimizer_state_bytes=state)

    if net["kind"] == "frozen":
        compare["activationBytesPerSample"] = run["activation_bytes_per_sample_cuda"]
        compare["activationBytesFixed"] = run["activation_bytes_fixed"]
    else:
        # (a) what stays after forward: the kept segment inputs and the activations outside the blocks
        a = run["activation_bytes_per_sample_cuda"]
        a_fixed = run["activation_bytes_fixed"]
        # (b) one block run normally: what its recomputation re-materialises
        blocks = []
        bs = net["batches"]
        for i in range(model.block_count()):
            res = {b: measure_block_saved(model, i, b, "fp32") for b in bs}
            raw_s, raw_f, _ = fit(bs, {b: res[b]["raw"] for b in bs})
            adj_s, adj_f, res_adj = fit(bs, {b: res[b]["adjusted"] for b in bs})
            blocks.append(dict(block=i, raw_bytes_per_sample=raw_s, raw_bytes_fixed=raw_f,
                               cuda_bytes_per_sample=adj_s, cuda_bytes_fixed=adj_f,
                               raw_by_batch={str(b): res[b]["raw"] for b in bs},
                               dropout_adjustment_by_batch={str(b): res[b]["dropout"]["delta"] for b in bs},
                               attention_adjustment_by_batch={str(b): res[b]["attention"]["delta"] for b in bs},
                               mean_input_adjustment_by_batch={str(b): res[b]["mean"]["delta"] for b in bs}))
        largest = max(blocks, key=lambda r: r["cuda_bytes_per_sample"])
        # the same recomputation seen inside a real checkpointed backward pass
        b0 = sorted(bs)[0]
        torch.manual_seed(2000)
        in_situ = measure_recompute_in_situ(net, model, b0)
        in_situ_ok = all(s["saved_bytes"] == blocks[s["block"]]["raw_by_batch"][str(b0)] for s in in_situ) \
            and sorted(s["block"] for s in in_situ) == list(range(len(blocks)))
        # what the layers after the last block keep: freed before the first recomputation
        after = sum(v["bytes_per_sample"] for m, v in run["modules"].items()
                    if m.split(".")[0] in net["after_blocks"])
        # the same network without checkpointing
        model.checkpointing = False
        plain, _ = run_precision(net, model, "fp32", log)
        model.checkpointing = True
        entry["checkpoint"] = dict(
            segments=len(blocks),
            saved_after_forward_bytes_per_sample=a,
            saved_after_forward_bytes_fixed=a_fixed,
            recomputed_block_bytes_per_sample=largest["cuda_bytes_per_sample"],
            recomputed_block_bytes_fixed=largest["cuda_bytes_fixed"],
            blocks=blocks,
            in_situ_recompute_at_batch=dict(batch=b0, segments=in_situ, equals_block_measurement=in_situ_ok),
            headroom_rule_bytes_per_sample=a + largest["cuda_bytes_per_sample"],
            headroom_rule_bytes_fixed=a_fixed + largest["cuda_bytes_fixed"],
            after_blocks_modules=net["after_blocks"],
            after_blocks_bytes_per_sample=after,
            backward_peak_saved_bytes_per_sample=a - after + largest["cuda_bytes_per_sample"],
            uncheckpointed_bytes_per_sample_raw=plain["activation_bytes_per_sample_raw"],
            uncheckpointed_bytes_per_sample=plain["activation_bytes_per_sample_cuda"],
            uncheckpointed_bytes_fixed=plain["activation_bytes_fixed"],
            uncheckpointed_adjustments=plain["adjustments"],
            combination=(
                "saved_after_forward (a) is what autograd holds when backward starts: every segment's input "
                "(CheckpointFunction.save_for_backward) plus what the layers outside the segments keep. Backward "
                "re-runs one segment at a time with grad enabled; while it does, that segment's activations (b = "
                "recomputed_block, the block run normally minus its input, which is the kept input's storage) are "
                "alive too, and are freed when its backward ends. Headroom's per-block figure is a + b (the largest "
                "block). The true high-water mark of saved tensors is lower by what the layers after the last "
                "segment kept (after_blocks, already freed when the last segment is recomputed first): "
                "backward_peak_saved = a - after_blocks + b. in_situ_recompute_at_batch confirms b inside a real "
                "checkpointed backward (raw CPU bytes per recomputed segment)."),
        )
        log(f"    checkpoint: after forward {a:,} + one block {largest['cuda_bytes_per_sample']:,} = "
            f"{a + largest['cuda_bytes_per_sample']:,} B/sample (uncheckpointed "
            f"{plain['activation_bytes_per_sample_cuda']:,}); in situ {'agrees' if in_situ_ok else 'DIFFERS'}")
        compare["activationBytesPerSample"] = a + largest["cuda_bytes_per_sample"]
        compare["activationBytesFixed"] = a_fixed + largest["cuda_bytes_fixed"]
        compare["uncheckpointedActivationBytesPerSample"] = plain["activation_bytes_per_sample_cuda"]
    entry["compare_with_headroom"] = compare
    entry["run"] = run

    # the model file built into PyTorch (HeadroomNet honours "frozen" and "checkpoint")
    chk = check_model_file(net, model, (pc, bc), log)
    if isinstance(chk, tuple):
        chk, built = chk
        b = sorted(net["batches"])[0]
        try:
            rb = measure_saved(net, built, b, "fp32")
            rm = run["saved_bytes_by_batch"][str(b)]
            chk.update(saved_check_batch=b, saved_raw_model_file_build=rb["raw"], saved_raw_reference=rm["raw"],
                       saved_match=rb["raw"] == rm["raw"], saved_adjusted_model_file_build=rb["adjusted"],
                       saved_adjusted_reference=rm["adjusted"], checkpoint_segments=len(built.segments))
        except Exception as e:
            chk["saved_check_error"] = f"{type(e).__name__}: {e}"
        del built
    entry["model_file_check"] = chk
    log(f"    model file: {json.dumps({k: v for k, v in chk.items() if k not in ('input',)})}")
    entry["seconds"] = round(time.time() - t0, 1)
    del model
    gc.collect()
    return entry


STRATEGIES_CONVENTION = (
    "strategies[]: frozen layers (requires_grad_(False)) and activation checkpointing "
    "(torch.utils.checkpoint, use_reentrant=True), fp32, measured exactly like networks[] (run = the same record "
    "as networks[].runs[]); compare_with_headroom holds the figures tst_referencenetworks.cpp compares with "
    "analyze(model file, analysis_options): parameters and optimizer state exactly, activationBytesPerSample "
    "(and for checkpointing uncheckpointedActivationBytesPerSample) within 3 %. For checkpointing, "
    "activationBytesPerSample = checkpoint.saved_after_forward + checkpoint.recomputed_block (see "
    "checkpoint.combination)")

ADJUSTMENTS = {
    "dropout_mask": (
        "CPU nn.Dropout (torch 1.13 at::dropout -> _dropout_impl, because is_fused_kernel_acceptable() is CUDA-only) "
        "multiplies by a noise tensor of the input's dtype and size and MulBackward0 saves it (_saved_other). CUDA "
        "uses native_dropout, whose NativeDropoutBackward0 saves a bool mask (1 byte/element). Applied to every "
        "storage saved as MulBackward0.other inside an nn.Dropout module: bytes -> elements x 1. The dropout "
        "output itself is unchanged (the next layer saves it on both devices)."),
    "attention_sdpa": (
        "torch 1.13 nn.MultiheadAttention (and so nn.TransformerEncoderLayer in training) runs the explicit math path "
        "(torch/nn/functional.py multi_head_attention_forward): q/sqrt(d) (BTE, saved by baddbmm as batch1), contiguous "
        "k (batch2) and v (bmm mat2), softmax probabilities (B x heads x T x T, saved), dropout noise on them (B x heads "
        "x T x T, input dtype) and the dropped-out probabilities (B x heads x T x T, saved by bmm). PyTorch >= 2.1 on CUDA "
        "with need_weights=False and is_causal (nn.TransformerEncoder detects the causal mask) calls "
        "scaled_dot_product_attention, flash (16-bit) or memory-efficient (fp32) kernels, whose backward nodes save query, "
        "key, value (views of one contiguous [3,T,B,E] in-projection copy), the output [B,heads,T,E/heads] and a float32 "
        "logsumexp [B,heads,T] (memory-efficient pads T to a multiple of 32); dropout is regenerated from a Philox seed, "
        "no mask or probabilities are kept. Applied per nn.MultiheadAttention call: every storage saved only by the math "
        "core's nodes (DivBackward0.other, BaddbmmBackward0.batch1/batch2, SoftmaxBackward0.result, MulBackward0.other, "
        "BmmBackward0.self/mat2) inside the call, and not one of the call's inputs, is removed; then 3BTE + BTE bytes of "
        "the attention dtype and 4 x B x heads x T bytes are added. The in- and out-projection Linear inputs are kept "
        "as measured (both versions save the same tensors there). The two Philox scalars are not counted."),
    "mean_input": (
        "torch 1.13's mean.dim (which AdaptiveAvgPool2d(1) calls: adaptive_avg_pool2d with a 1x1 output computes "
        "input.mean((-1, -2), keepdim=True) on both versions) saves its whole input (MeanBackward1._saved_self, "
        "observed). PyTorch 2.x derivatives.yaml has 'self: mean_backward(grad, self.sym_sizes(), dim, "
        "self.sym_numel(), keepdim)', and its tools/autograd/load_derivatives.py saves self.sym_sizes() and "
        "self.sym_numel() as values (self_sym_sizes, self_sym_numel), so 2.x keeps no tensor there. Applied to every "
        "storage whose only savers are MeanBackward1.self: its bytes are removed. A storage some other node keeps "
        "too (ResNet's last ReLU output, which the ReLU keeps) is unchanged."),
    "log_sigmoid_buffer": (
        "log_sigmoid_forward returns (output, buffer) and LogSigmoidBackward0 saves self and buffer. The CPU kernel "
        "fills buffer with an input-sized tensor (torch 1.13, observed); the CUDA kernel returns at::empty({0}) and "
        "ignores it (aten/src/ATen/native/cuda/Activation.cpp, log_sigmoid_forward_cuda: 'buffer is only used by CPU "
        "dispatch'). Applied to every storage whose only savers are LogSigmoidBackward0.buffer: its bytes are removed."),
    "recurrent": (
        "Not adjusted. CPU LSTM/GRU in torch 1.13 are unfused (per-step, per-gate tensors saved by sigmoid/tanh/mul "
        "nodes); cuDNN keeps one reserve buffer instead, whose size Headroom documents separately. The raw CPU "
        "figure is recorded, with the part saved inside the recurrent module split out "
        "(recurrent.internal_bytes_per_sample: storages saved only inside the nn.LSTM/nn.GRU call that are not "
        "its input) so the rest of the network stays comparable: activation_bytes_per_sample_outside_recurrent "
        "(the adjusted figure minus those) is what tst_referencenetworks compares; activation_bytes_per_sample_cuda is "
        "null for such networks."),
    "never_adjusted": "Nothing else is adjusted: every other figure is what torch 1.13 on the CPU saves.",
}


def main():
    args = parse_args()
    if print_tables(args):
        return

    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    start = time.time()
    cpu_start = time.process_time()

    def log(msg):
        print(msg, flush=True)

    command = "/usr/bin/python3 " + " ".join([os.path.relpath(sys.argv[0], REPO) if os.path.isabs(sys.argv[0])
                                               else sys.argv[0]] + sys.argv[1:])
    cases = [c for c in STRATEGY_CASES if not args.only or c["name"] in args.only]
    if args.strategies:
        with open(args.out) as f:
            doc = json.load(f)
        old_cases = {c["name"]: c for c in doc.get("strategies", [])}
        for case in cases:
            log(f"{case['name']}")
            old_cases[case["name"]] = measure_strategy_case(case, log)
        doc["strategies"] = [old_cases[c["name"]] for c in STRATEGY_CASES if c["name"] in old_cases]
        doc["strategies_generated"] = dict(
            date=datetime.date.today().isoformat(), command=command, torch=torch.__version__,
            torchvision=torchvision.__version__, python=platform.python_version(), threads=THREADS,
            runtime_seconds=round(time.time() - start, 1), cpu_seconds=round(time.process_time() - cpu_start, 1),
            note="only the `strategies` section was measured by this command; `networks` is from `generated`")
        doc["conventions"]["strategies"] = STRATEGIES_CONVENTION
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        log(f"wrote {args.out} in {time.time() - start:.0f}s")
        return

    nets = [n for n in NETWORKS if not args.only or n["name"] in args.only]
    entries = []
    for net in nets:
        log(f"{net['name']}")
        entries.append(measure_network(dict(net), args, log))
    strategy_entries = []
    for case in cases:
        log(f"{case['name']}")
        strategy_entries.append(measure_strategy_case(case, log))

    doc = dict(
        format="headroom-reference-measurements",
        version=1,
        generated=dict(
            date=datetime.date.today().isoformat(),
            command=command,
            torch=torch.__version__,
            torch_config_version=(torch.__config__.show().split("TORCH_VERSION=")[1].split(",")[0]
                                  if "TORCH_VERSION=" in torch.__config__.show() else None),
            torchvision=torchvision.__version__,
            python=platform.python_version(),
            platform=f"{platform.system()} {platform.machine()}; Debian python3-torch (CPU only)",
            threads=THREADS,
            runtime_seconds=round(time.time() - start, 1),
            cpu_seconds=round(time.process_time() - cpu_start, 1),
        ),
        conventions=dict(
            bytes="all byte counts are exact integers from storage nbytes; per-sample and fixed parts are the "
                  "slope and intercept through the two smallest batch sizes >= 2; linear_fit_residual_bytes gives "
                  "the deviation at every measured batch (0 = exactly affine)",
            activations="storages saved for backward by autograd nodes reachable from the loss, each counted once "
                        "with its full nbytes; excluding parameters, buffers, the input batch (input_bytes_per_sample) "
                        "and the labels (label_bytes_per_sample); the loss's saved tensors are included "
                        "(loss_activation_bytes_per_sample)",
            activation_bytes_per_sample_cuda="the raw CPU figure with the adjustments below applied; null when the "
                                             "network has recurrent layers (see recurrent)",
            groups="per (grad_fn, saved attribute, dtype): the bytes of the storages whose first saver (in forward "
                   "order) is that node attribute; a storage saved by several nodes counts once, with its first saver",
            modules="per module path, the bytes first saved while that module was running (diagnostic)",
            optimizer_state_bytes="bytes of the full-size state tensors after one step(); scalar `step` entries are "
                                  "in optimizer_state_detail (step_tensor_bytes), not in this figure",
            autocast="precision amp-bf16 = torch.autocast('cpu', dtype=torch.bfloat16) around forward and loss; "
                     "autocast_weight_copy_bytes_saved = bf16 weight copies saved for backward (batch-independent, "
                     "excluded from activations)",
            rules_of_thumb="activation_elements_per_sample_all_layers = sum of output elements of every leaf module "
                           "(torchsummary style); totals use parameters x 3 (rule_sgd: weights, gradients and one "
                           "state tensor, cs231n's 'momentum, Adagrad, or RMSProp') or x 4 (rule_adam) x 4 bytes + "
                           "(activations x 2 x 4 + input x 4) x batch; measured_sgd (plain SGD, no state), "
                           "measured_momentum and measured_adam = weights + buffers + gradients + that optimizer's "
                           "state + (adjusted activations + input + labels) x batch + the fixed activation bytes, "
                           "without transient or CUDA overhead (networks with recurrent layers: the raw CPU "
                           "activations)",
        ),
        adjustments=ADJUSTMENTS,
        networks=entries,
        strategies=strategy_entries,
    )
    doc["conventions"]["strategies"] = STRATEGIES_CONVENTION
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    log(f"wrote {args.out} in {time.time() - start:.0f}s")


if __name__ == "__main__":
    main()
