#!/usr/bin/python3
"""Sweep torchvision classification models through torch.onnx.export and `headroom estimate` (issue 34).

For each model: torchvision's parameter count, and the bytes autograd saves per sample in training mode
(torch.autograd.graph.saved_tensors_hooks at batch 4 and 2, (b4 - b2) / 2, each storage once;
parameters, buffers and the input excluded; no loss). Then each export (opsets, dynamic batch on the
input only or on input and output, training or eval mode) is imported with
`headroom estimate FILE --loss none --json`: imports or is refused with the reason, parameters equal?,
activation bytes per sample against the measurement.

torch 1.13 on the CPU differs from the PyTorch 2.x on CUDA that Headroom models in two ways that matter
here (docs/accuracy.md, tests/reference/Torch113Cpu.cpp, measure.py's adjustments): `mean`
(adaptive_avg_pool2d(1)) keeps its input, dropout keeps a float noise tensor where CUDA keeps a bool mask,
and nn.MultiheadAttention runs its math path (q, k, v and the T x T probabilities) where PyTorch 2.x calls
scaled_dot_product_attention (q, k, v, the output and a float32 log-sum-exp padded to 32). The
"CUDA-equivalent" column applies the three (storages kept only by MeanBackward1; 3 bytes per element of
each Dropout's input; the attention core's storages replaced by measure.py's attention_sdpa_bytes).
Eval-mode exports have BatchNorm folded and Dropout dropped by torch, so their figures are expected
to be lower (docs/onnx-import.md, "Eval-mode exports").

Run with Debian's torch 1.13 (CPU):
  /usr/bin/python3 tests/reference/onnx_sweep.py --headroom build/app/headroom \\
      --models resnet18 mobilenet_v2 shufflenet_v2_x1_0 squeezenet1_0 vit_b_16 \\
      --json sweep.json --markdown sweep.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

# What torch 1.13's math attention keeps inside nn.MultiheadAttention (measure.py's ATTENTION_CORE).
ATTENTION_CORE = {("DivBackward0", "_saved_other"), ("BaddbmmBackward0", "_saved_batch1"),
                  ("BaddbmmBackward0", "_saved_batch2"), ("BmmBackward0", "_saved_self"),
                  ("BmmBackward0", "_saved_mat2"), ("SoftmaxBackward0", "_saved_result"),
                  ("MulBackward0", "_saved_other")}

SAMPLE = ["resnet18", "mobilenet_v2", "shufflenet_v2_x1_0", "squeezenet1_0", "vit_b_16"]


def build(name):
    import torchvision

    return getattr(torchvision.models, name)(weights=None)


def input_size(name):
    return 299 if name == "inception_v3" else 224


def measure(name):
    """Parameters and saved bytes per sample (raw torch 1.13 CPU, and CUDA-equivalent)."""
    import torch

    torch.manual_seed(0)
    model = build(name).train()
    params = sum(p.numel() for p in model.parameters())
    excluded = {p.storage().data_ptr() for p in model.parameters()}
    excluded |= {b.storage().data_ptr() for b in model.buffers()}
    dropout_elements = []

    def on_dropout(module, inputs, output):
        if module.p > 0 and module.training:
            dropout_elements.append(inputs[0].numel())

    hooks = [m.register_forward_hook(on_dropout) for m in model.modules() if isinstance(m, torch.nn.Dropout)]
    attention = {"inside": False, "sdpa": 0}

    def watched(module, forward):  # torchvision calls it with keywords, which forward hooks do not see
        def run(*args, **kwargs):
            q = args[0] if args else kwargs["query"]
            b, t = (q.shape[0], q.shape[1]) if module.batch_first else (q.shape[1], q.shape[0])
            e, h = module.embed_dim, module.num_heads
            # measure.py's attention_sdpa_bytes, float32: q, k, v, the output, the log-sum-exp padded to 32
            attention["sdpa"] += 4 * b * t * e * 4 + b * h * ((t + 31) // 32 * 32) * 4
            attention["inside"] = True
            try:
                return forward(*args, **kwargs)
            finally:
                attention["inside"] = False
        return run

    for m in model.modules():
        if isinstance(m, torch.nn.MultiheadAttention):
            m.forward = watched(m, m.forward)

    def saved(batch):
        size = input_size(name)
        x = torch.randn(batch, 3, size, size)
        storages, in_attention = {}, set()
        attention["sdpa"] = 0

        def pack(t):
            s = t.storage()
            if s.data_ptr() not in excluded and s.data_ptr() != x.storage().data_ptr():
                storages[s.data_ptr()] = s.nbytes()
                if attention["inside"]:
                    in_attention.add(s.data_ptr())
            return t

        dropout_elements.clear()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = model(x)
        if isinstance(out, tuple) or hasattr(out, "logits"):
            out = out[0] if isinstance(out, tuple) else out.logits
        # which nodes keep each storage (to find what only torch 1.13's mean keeps)
        keepers = {}
        seen, stack = set(), [out.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            for attr in dir(node):
                if attr.startswith("_saved_"):
                    try:
                        v = getattr(node, attr)
                    except Exception:
                        continue
                    if isinstance(v, torch.Tensor):
                        keepers.setdefault(v.storage().data_ptr(), set()).add((type(node).__name__, attr))
            stack.extend(f for f, _ in node.next_functions)
        total = sum(storages.values())
        mean_only = sum(b for k, b in storages.items() if {n for n, _ in keepers.get(k, ())} == {"MeanBackward1"})
        dropout = 3 * sum(dropout_elements)
        core = sum(b for k, b in storages.items() if k in in_attention and keepers.get(k)
                   and keepers[k] <= ATTENTION_CORE)
        del out
        return total, mean_only, dropout, core - attention["sdpa"]

    t4, m4, d4, a4 = saved(4)
    t2, m2, d2, a2 = saved(2)
    for h in hooks:
        h.remove()
    raw = (t4 - t2) // 2
    adjust = {"mean_only_bytes": (m4 - m2) // 2, "dropout_bytes": (d4 - d2) // 2, "attention_bytes": (a4 - a2) // 2}
    return dict(parameters=params, raw_bytes=raw, cuda_bytes=raw - sum(adjust.values()), **adjust)


def export(name, opset, dynamic, mode, path):
    import torch

    model = build(name).train() if mode == "train" else build(name).eval()
    size = input_size(name)
    axes = {"x": {0: "N"}} if dynamic == "in" else {"x": {0: "N"}, "y": {0: "N"}}
    training = torch.onnx.TrainingMode.TRAINING if mode == "train" else torch.onnx.TrainingMode.EVAL
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.randn(2, 3, size, size), path, opset_version=opset, training=training,
                          do_constant_folding=False, input_names=["x"], output_names=["y"], dynamic_axes=axes)


def headroom(binary, path):
    run = subprocess.run([binary, "estimate", path, "--loss", "none", "--json"], capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0:
        reason = (run.stderr.strip().splitlines() or ["exit status %d" % run.returncode])[-1]
        return {"imports": False, "reason": reason.replace(path + ": ", "")}
    j = json.loads(run.stdout)
    return {"imports": True, "parameters": j["params"]["total"],
            "activation_bytes": j["per_sample_bytes"]["activations"]}


def summary(rows, measured):
    """One row per model, mode and outcome: the exports (opset x dynamic batch) that gave it."""
    groups = {}
    for r in rows:
        key = (r["model"], r["mode"], r["imports"], r.get("parameters"), r.get("activation_bytes"), r.get("reason"))
        groups.setdefault(key, []).append(r)
    lines = ["| model | mode | exports (opset: dynamic batch) | imports | parameters | activations / sample | "
             "measured (CUDA-equivalent) | difference |", "|---|---|---|---|---|---|---|---|"]
    for (name, mode, imports, params, acts, reason), rs in groups.items():
        m = measured[name]
        opsets = {}
        for r in rs:
            opsets.setdefault(r["opset"], []).append("in+out" if r["dynamic"] == "both" else "in")
        which = "; ".join("%d: %s" % (o, ", ".join(d)) for o, d in sorted(opsets.items()))
        if not imports:
            lines.append("| %s | %s | %s | refused: %s | | | | |" % (name, mode, which, reason.replace("|", "\\|")))
            continue
        same = "equal" if params == m["parameters"] else "%s (%s)" % (format(params, ","), format(params - m["parameters"], "+,"))
        lines.append("| %s | %s | %s | yes | %s | %s | %s | %+.2f %% |" % (
            name, mode, which, same, format(acts, ","), format(m["cuda_bytes"], ","),
            100.0 * (acts - m["cuda_bytes"]) / m["cuda_bytes"]))
    return lines


def markdown(rows, measured):
    lines = summary(rows, measured) + [""] + ["| model | opset | dynamic batch | mode | imports | parameters | activations / sample | "
             "measured (CUDA-equivalent) | difference |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        m = measured[r["model"]]
        if not r["imports"]:
            lines.append("| %s | %d | %s | %s | refused: %s | | | | |" % (
                r["model"], r["opset"], r["dynamic"], r["mode"], r["reason"].replace("|", "\\|")))
            continue
        same = "equal" if r["parameters"] == m["parameters"] else format(r["parameters"] - m["parameters"], "+,")
        diff = 100.0 * (r["activation_bytes"] - m["cuda_bytes"]) / m["cuda_bytes"]
        lines.append("| %s | %d | %s | %s | yes | %s | %s | %s | %+.2f %% |" % (
            r["model"], r["opset"], "input and output" if r["dynamic"] == "both" else "input",
            r["mode"], same, format(r["activation_bytes"], ","), format(m["cuda_bytes"], ","), diff))
    lines.append("")
    lines.append("| model | parameters (torchvision) | saved bytes / sample, torch 1.13 CPU | mean-only input "
                 "| dropout noise (CPU float vs CUDA bool) | math attention vs SDPA | CUDA-equivalent |")
    lines.append("|---|---|---|---|---|---|---|")
    for name, m in measured.items():
        lines.append("| %s | %s | %s | -%s | -%s | -%s | %s |" % (
            name, format(m["parameters"], ","), format(m["raw_bytes"], ","), format(m["mean_only_bytes"], ","),
            format(m["dropout_bytes"], ","), format(m["attention_bytes"], ","), format(m["cuda_bytes"], ",")))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--headroom", default="build/app/headroom")
    ap.add_argument("--models", nargs="+", default=SAMPLE)
    ap.add_argument("--opsets", nargs="+", type=int, default=[13, 14, 17])
    ap.add_argument("--dynamic", nargs="+", choices=["in", "both"], default=["in", "both"])
    ap.add_argument("--modes", nargs="+", choices=["train", "eval"], default=["train", "eval"])
    ap.add_argument("--json", default="onnx_sweep.json")
    ap.add_argument("--markdown", default="onnx_sweep.md")
    args = ap.parse_args()
    binary = os.path.abspath(args.headroom)
    rows, measured = [], {}
    with tempfile.TemporaryDirectory() as work:
        for name in args.models:
            started = time.time()
            measured[name] = measure(name)
            for opset in args.opsets:
                for dynamic in args.dynamic:
                    for mode in args.modes:
                        path = os.path.join(work, "%s_%d_%s_%s.onnx" % (name, opset, dynamic, mode))
                        try:
                            export(name, opset, dynamic, mode, path)
                        except Exception as e:  # the exporter's own refusal
                            row = {"imports": False, "reason": "torch.onnx.export failed: %s" % str(e).splitlines()[0]}
                        else:
                            row = headroom(binary, path)
                            os.remove(path)
                        row.update({"model": name, "opset": opset, "dynamic": dynamic, "mode": mode})
                        rows.append(row)
                        print(json.dumps(row), file=sys.stderr)
            print("%s: %.0f s" % (name, time.time() - started), file=sys.stderr)
    with open(args.json, "w") as f:
        json.dump({"measured": measured, "exports": rows}, f, indent=1)
    with open(args.markdown, "w") as f:
        f.write(markdown(rows, measured))


if __name__ == "__main__":
    main()
