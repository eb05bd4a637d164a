#!/usr/bin/env python3
"""Issue 24's measurements on a CUDA machine with PyTorch 2.x (run once, results committed beside it).

Three things the CPU machines (torch 1.13) cannot do:

1. ONNX exports of torchvision's classification models and of small recurrent classifiers from both
   of PyTorch 2.x's exporters: TorchScript (`dynamo=False`, training mode, opset 17, as
   ../shared/onnx-torch2 made them) and dynamo (`dynamo=True`, the model in train() mode, falling back
   to eval() where train mode does not export). Each runs in its own CPU-only process, many at once.
   The weights are dropped (saved as external data, the data file deleted): Headroom reads only the
   initializers' shapes, and the graphs stay small.
2. What autograd saves on CUDA (`saved_tensors_hooks`, each storage once, parameters, buffers and the
   input excluded) for each of those networks at batches 2 and 4, in float32 train mode, with the
   parameter count: the figures Headroom's import must reproduce. Per innermost module too.
3. Hugging Face training steps (transformers 5.x, PEFT) of issue 24's set-ups: sequence 512, AdamW
   (foreach), per phase `torch.cuda.max_memory_allocated()` (absolute, the weights included), two
   steps; the configs used (layer counts reduced for the mixture-of-experts models) are written out
   so that `headroom estimate CONFIG --sequence-length 512 ...` runs on the same network.

Usage: python3 measure_torch2.py OUTDIR [--deadline SECONDS] [--set more|lm|hf-fp32-moe]
Writes OUTDIR/results.json (rewritten after every item), OUTDIR/exports.tar.gz.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import threading
import time
import traceback
from pathlib import Path

VISION = {
    "alexnet": 224, "convnext_tiny": 224, "densenet121": 224, "efficientnet_b0": 224,
    "efficientnet_v2_s": 224, "googlenet": 224, "inception_v3": 299, "maxvit_t": 224,
    "mnasnet0_5": 224, "mobilenet_v2": 224, "mobilenet_v3_small": 224, "regnet_x_400mf": 224,
    "regnet_y_400mf": 224, "resnet18": 224, "resnext50_32x4d": 224, "shufflenet_v2_x0_5": 224,
    "squeezenet1_0": 224, "swin_t": 224, "swin_v2_t": 224, "vgg11_bn": 224, "vit_b_16": 224,
    "wide_resnet50_2": 224,
}
# The second run ("--set more"): other sizes of the same families, the recurrent classifiers without
# dropout (which the TorchScript exporter refuses in training mode) and dynamo exports made in eval().
VISION_MORE = {name: 224 for name in (
    "resnet50", "mobilenet_v3_large", "efficientnet_b3", "densenet161", "regnet_y_1_6gf", "shufflenet_v2_x1_0",
    "squeezenet1_1", "vgg16", "vit_b_32", "swin_s", "convnext_small", "mnasnet1_0", "resnext101_32x8d",
    "wide_resnet101_2")}
RECURRENT = ("gru_cls", "lstm_cls")
RECURRENT_MORE = ("gru_cls_nodrop", "lstm_cls_nodrop")
EVAL_MORE = ("resnet18", "efficientnet_b0", "gru_cls_nodrop")
# The third run ("--set lm"): ../shared/onnx-torch2's language models, the dynamo exporter in train() mode.
LANGUAGE = {"transformer_lm": (30000, 128), "lstm_lm": (10000, 64)}
TOKENS, VOCAB = 64, 10000


def build(name):
    import torch
    import torch.nn as nn
    import torchvision

    if name in RECURRENT + RECURRENT_MORE:
        class Classifier(nn.Module):
            """Embedding(10000, 128) -> 2-layer GRU/LSTM(128, 256, batch_first, dropout 0.1; the LSTM
            bidirectional) -> last step -> Linear(-, 5)."""

            def __init__(self, kind, dropout):
                super().__init__()
                self.embedding = nn.Embedding(VOCAB, 128)
                bidirectional = kind == "lstm"
                rnn = nn.LSTM if kind == "lstm" else nn.GRU
                self.rnn = rnn(128, 256, num_layers=2, batch_first=True, dropout=dropout,
                               bidirectional=bidirectional)
                self.head = nn.Linear(512 if bidirectional else 256, 5)

            def forward(self, tokens):
                out, _ = self.rnn(self.embedding(tokens))
                return self.head(out[:, -1])

        return Classifier(name.split("_")[0], 0.0 if name.endswith("_nodrop") else 0.1)
    if name == "transformer_lm":
        class TransformerLm(nn.Module):
            """Embedding(30000, 512) -> 6 x TransformerEncoderLayer(512, 8, 2048, dropout 0.1, ReLU, post-norm,
            batch_first) -> Linear(512, 30000)."""

            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(30000, 512)
                layer = nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.1, batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)
                self.head = nn.Linear(512, 30000)

            def forward(self, tokens):
                return self.head(self.encoder(self.emb(tokens)))

        return TransformerLm()
    if name == "lstm_lm":
        class LstmLm(nn.Module):
            """Embedding(10000, 256) -> LSTM(256, 512, 2 layers, batch_first) -> Linear(512, 10000)."""

            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10000, 256)
                self.lstm = nn.LSTM(256, 512, num_layers=2, batch_first=True)
                self.head = nn.Linear(512, 10000)

            def forward(self, tokens):
                return self.head(self.lstm(self.emb(tokens))[0])

        return LstmLm()
    kw = {}
    if name in ("googlenet", "inception_v3"):
        kw = dict(aux_logits=False, init_weights=False)
    return getattr(torchvision.models, name)(weights=None, **kw)


def example(name, batch, device="cpu"):
    import torch
    if name in LANGUAGE:
        vocab, tokens = LANGUAGE[name]
        return torch.randint(0, vocab, (batch, tokens), device=device)
    if name in RECURRENT + RECURRENT_MORE:
        return torch.randint(0, VOCAB, (batch, TOKENS), device=device)
    s = VISION.get(name) or VISION_MORE[name]
    return torch.randn(batch, 3, s, s, device=device)


# ----------------------------------------------------------------------------------------------
# 1. exports (child processes)
# ----------------------------------------------------------------------------------------------

def strip_weights(path: Path):
    """Keep the graph, drop tensor data over 1 KiB (shapes stay in the file)."""
    import onnx
    from onnx.external_data_helper import convert_model_to_external_data
    model = onnx.load(str(path), load_external_data=False)
    for f in path.parent.glob(path.name + "*.data"):
        f.unlink()
    data = path.name + ".data"
    if any(t.HasField("raw_data") and len(t.raw_data) > 1024 for t in model.graph.initializer):
        convert_model_to_external_data(model, all_tensors_to_one_file=True, location=data,
                                       size_threshold=1024)
        onnx.save_model(model, str(path))
    (path.parent / data).unlink(missing_ok=True)


def export_one(name, exporter, outdir):
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = build(name)
    x = example(name, 2)
    out = Path(outdir) / exporter
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.onnx"
    info = {"torch": torch.__version__}
    if exporter == "torchscript-train":
        model.train()
        torch.onnx.export(model, (x,), str(path), dynamo=False, opset_version=17,
                          training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
        info["mode"] = "train"
    else:
        errors = []
        for mode in (("eval",) if exporter == "dynamo-eval" else ("train", "eval")):
            for lo in (1, 2):
                try:
                    getattr(model, mode)()
                    dim = torch.export.Dim("batch", min=lo, max=4096)
                    torch.onnx.export(model, (x,), str(path), dynamo=True, external_data=True,
                                      input_names=["input"], output_names=["output"],
                                      dynamic_shapes=({0: dim},))
                    info.update(mode=mode, batch_min=lo, earlier_errors=errors)
                    break
                except Exception as e:  # noqa: BLE001 - recorded, the next form is tried
                    errors.append(f"{mode}/min{lo}: {type(e).__name__}: {str(e)[:600]}")
            if "mode" in info:
                break
        if "mode" not in info:
            raise RuntimeError(" | ".join(errors))
    strip_weights(path)
    info["bytes"] = path.stat().st_size
    return info


def child_main(name, exporter, outdir):
    t0 = time.time()
    try:
        info = export_one(name, exporter, outdir)
        info["ok"] = True
    except Exception as e:  # noqa: BLE001
        info = {"ok": False, "error": f"{type(e).__name__}: {e}"[:3000],
                "trace": traceback.format_exc()[-3000:]}
    info["seconds"] = round(time.time() - t0, 1)
    print("EXPORT-RESULT " + json.dumps(info), flush=True)


class Exports:
    def __init__(self, outdir, jobs, parallel):
        self.outdir, self.queue, self.parallel = outdir, list(jobs), parallel
        self.running, self.results = {}, {}

    def pump(self):
        for key, (proc, t0) in list(self.running.items()):
            if proc.poll() is None:
                continue
            out = Path(proc.log).read_text(errors="replace")
            line = [l for l in out.splitlines() if l.startswith("EXPORT-RESULT ")]
            self.results[key] = json.loads(line[-1][14:]) if line else {"ok": False, "error": out[-2000:]}
            del self.running[key]
        while self.queue and len(self.running) < self.parallel:
            name, exporter = self.queue.pop(0)
            env = dict(os.environ, CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
            log = self.outdir / "logs" / f"{exporter}-{name}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            with open(log, "wb") as sink:
                proc = subprocess.Popen([sys.executable, __file__, "--child", name, exporter, str(self.outdir)],
                                        stdout=sink, stderr=subprocess.STDOUT, env=env)
            proc.log = log
            self.running[f"{exporter}/{name}"] = (proc, time.time())

    def kill_all(self):
        for key, (proc, t0) in self.running.items():
            proc.kill()
            self.results[key] = {"ok": False, "error": f"still running after {time.time() - t0:.0f} s; killed"}
        for name, exporter in self.queue:
            self.results[f"{exporter}/{name}"] = {"ok": False, "error": "not started before the deadline"}
        self.running, self.queue = {}, []


# ----------------------------------------------------------------------------------------------
# 2. saved tensors on CUDA
# ----------------------------------------------------------------------------------------------

def storage_of(t):
    """(data pointer, bytes) of the storage under t; torch 1.13 (the CPU machines) has no untyped_storage."""
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return st.data_ptr(), st.nbytes()


def saved_tensors(model, run, excluded):
    """Bytes autograd saves in one forward (each storage once), total and per innermost module."""
    import torch
    stack, seen = ["<top>"], {}
    hooks = []
    for qname, mod in model.named_modules():
        hooks.append(mod.register_forward_pre_hook(lambda m, a, q=qname: stack.append(q or "<root>") and None))
        hooks.append(mod.register_forward_hook(lambda m, a, o: stack.pop() and None))

    def pack(t):
        try:
            ptr, n = storage_of(t)
        except Exception:  # noqa: BLE001 - a tensor without storage saves nothing
            return t
        if ptr and ptr not in excluded and ptr not in seen:
            seen[ptr] = (n, stack[-1], str(t.dtype))
        return t

    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = run()
    finally:
        for h in hooks:
            h.remove()
    per_module = {}
    for n, mod, dtype in seen.values():
        per_module[mod] = per_module.get(mod, 0) + n
    del out
    return sum(n for n, _, _ in seen.values()), per_module


def measure_network(name):
    import torch
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = build(name)
    model.train()
    excluded = {storage_of(p)[0] for p in model.parameters()}
    excluded |= {storage_of(b)[0] for b in model.buffers()}
    res = {"parameters": sum(p.numel() for p in model.parameters()),
           "buffer_elements": sum(b.numel() for b in model.buffers())}
    for batch in (2, 4):
        x = example(name, batch, "cuda")
        total, per_module = saved_tensors(model, lambda: model(x), excluded | {storage_of(x)[0]})
        res[f"saved_bytes_batch{batch}"] = total
        if batch == 2:
            res["saved_bytes_batch2_by_module"] = per_module
    res["saved_bytes_per_sample"] = (res["saved_bytes_batch4"] - res["saved_bytes_batch2"]) // 2
    res["saved_bytes_fixed"] = res["saved_bytes_batch2"] - 2 * res["saved_bytes_per_sample"]
    del model
    import gc
    gc.collect()  # the saved-tensor hooks leave reference cycles holding the graph
    torch.cuda.empty_cache()
    return res


# ----------------------------------------------------------------------------------------------
# 3. Hugging Face steps
# ----------------------------------------------------------------------------------------------

HF_CASES = [
    # (id, config file, layers or None, lora, precision, batches)
    ("qwen3_0.6b_lora_bf16", "Qwen3-0.6B.json", None, True, "amp-bf16", (1, 2, 4, 8)),
    ("qwen3_0.6b_full_fp32", "Qwen3-0.6B.json", None, False, "fp32", (1, 2, 4)),
    ("qwen3_0.6b_full_bf16", "Qwen3-0.6B.json", None, False, "amp-bf16", (1, 2, 4)),
    ("qwen3_moe_4l_lora_bf16", "Qwen3-30B-A3B.json", 4, True, "amp-bf16", (1, 2, 4)),
    ("qwen2_moe_4l_lora_bf16", "Qwen1.5-MoE-A2.7B.json", 4, True, "amp-bf16", (1, 2, 4)),
    ("mixtral_2l_lora_bf16", "Mixtral-8x7B-v0.1.json", 2, True, "amp-bf16", (1, 2, 4)),
    ("qwen3_moe_4l_full_fp32", "Qwen3-30B-A3B.json", 4, False, "fp32", (1, 2)),
]
SEQ = 512
DROP_KEYS = {"architectures", "_name_or_path", "transformers_version", "torch_dtype", "dtype", "auto_map"}


def hf_config(file, layers):
    src = Path(__file__).resolve().parent.parent / "hf" / file
    d = json.loads(src.read_text())
    if layers is not None:
        d["num_hidden_layers"] = layers
        if "max_window_layers" in d:
            d["max_window_layers"] = layers
    return d


def hf_case(case):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    cid, file, layers, lora, precision, batches = case
    d = hf_config(file, layers)
    kw = {k: v for k, v in d.items() if k not in DROP_KEYS and k != "model_type"}
    cfg = AutoConfig.for_model(d["model_type"], **kw)
    torch.manual_seed(0)
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
        except TypeError:
            model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.float32)
    res = {"config": d, "lora": lora, "precision": precision, "sequence": SEQ,
           "attn_implementation": getattr(model.config, "_attn_implementation", None),
           "experts_implementation": getattr(model.config, "_experts_implementation", None),
           "parameters": sum(p.numel() for p in model.parameters()), "runs": []}
    if lora:
        from peft import LoraConfig, get_peft_model
        model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0,
                                                 target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
        res["peft"] = "r=8, alpha 16, dropout 0, q_proj+v_proj"
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    res["trainable_parameters"] = sum(p.numel() for p in trainable)
    res["parameters_with_lora"] = sum(p.numel() for p in model.parameters())
    amp = precision == "amp-bf16"
    for batch in batches:
        opt = torch.optim.AdamW(trainable, lr=1e-4)
        ids = torch.randint(0, cfg.vocab_size, (batch, SEQ), device="cuda")
        torch.cuda.synchronize()
        run = {"batch": batch, "allocated_at_start": torch.cuda.memory_allocated(), "steps": []}
        try:
            for _ in range(2):
                step = {}
                torch.cuda.reset_peak_memory_stats()
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
                    loss = model(input_ids=ids, labels=ids).loss  # as Trainer: the outputs dropped
                step["forward"] = torch.cuda.max_memory_allocated()
                step["allocated_after_forward"] = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
                loss.backward()
                del loss
                step["backward"] = torch.cuda.max_memory_allocated()
                torch.cuda.reset_peak_memory_stats()
                opt.step()
                opt.zero_grad(set_to_none=True)
                step["step"] = torch.cuda.max_memory_allocated()
                step["peak"] = max(step["forward"], step["backward"], step["step"])
                run["steps"].append(step)
            run["max_memory_reserved"] = torch.cuda.max_memory_reserved()
            if batch == batches[0]:
                excluded = {storage_of(p)[0] for p in model.parameters()}
                excluded.add(storage_of(ids)[0])

                def fwd():
                    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
                        return model(input_ids=ids, labels=ids).loss
                total, per_module = saved_tensors(model, fwd, excluded)
                run["saved_bytes"] = total
                by_kind = {}
                for mod, n in per_module.items():
                    parts = [p for p in mod.split(".") if not p.isdigit()]
                    key = ".".join(parts[-2:])
                    by_kind[key] = by_kind.get(key, 0) + n
                run["saved_bytes_by_module_kind"] = by_kind
        except torch.OutOfMemoryError as e:
            run["error"] = f"out of memory: {str(e)[:300]}"
        del opt
        torch.cuda.empty_cache()
        res["runs"].append(run)
        print(f"  {cid} batch {batch}: {json.dumps({k: v for k, v in run.items() if 'by_module' not in k})}",
              flush=True)
    del model, trainable
    import gc
    gc.collect()  # the saved-tensor hooks leave reference cycles holding the graph
    torch.cuda.empty_cache()
    return res


# ----------------------------------------------------------------------------------------------

def main():
    if sys.argv[1] == "--child":
        child_main(*sys.argv[2:5])
        return
    outdir = Path(sys.argv[1])
    deadline = time.time() + (float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--deadline" else 420)
    export_dir = Path("/tmp/exports_work")
    import torch
    results = {"env": {"torch": torch.__version__, "cuda": torch.version.cuda,
                       "gpu": torch.cuda.get_device_name(0), "cudnn": torch.backends.cudnn.version()},
               "exports": {}, "networks": {}, "hf": {}}
    try:
        import torchvision
        import transformers
        results["env"].update(torchvision=torchvision.__version__, transformers=transformers.__version__)
        import onnx
        import onnxscript
        results["env"].update(onnx=onnx.__version__, onnxscript=onnxscript.__version__)
    except Exception as e:  # noqa: BLE001
        results["env"]["import_error"] = str(e)

    def save():
        (outdir / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True))

    chosen = sys.argv[sys.argv.index("--set") + 1] if "--set" in sys.argv else "first"
    names = {"first": list(VISION) + list(RECURRENT), "more": list(VISION_MORE) + list(RECURRENT_MORE),
             "lm": list(LANGUAGE), "hf-fp32-moe": []}[chosen]
    jobs = [(n, e) for e in ("dynamo", "torchscript-train") for n in names]
    if chosen == "more":
        jobs += [(n, "dynamo-eval") for n in EVAL_MORE]
    # slow ones first so they finish in time
    slow = ("maxvit_t", "swin_t", "swin_v2_t", "vit_b_16", "convnext_tiny", "efficientnet_v2_s", "swin_s",
            "convnext_small", "densenet161", "resnext101_32x8d", "wide_resnet101_2", "efficientnet_b3")
    jobs.sort(key=lambda j: (j[0] not in slow, j[1] != "dynamo"))
    exports = Exports(export_dir, jobs, parallel=max(2, (os.cpu_count() or 4) - 3))
    stop = threading.Event()

    def pump_until_stopped():
        while not stop.is_set():
            exports.pump()
            time.sleep(0.5)
    pumper = threading.Thread(target=pump_until_stopped, daemon=True)
    pumper.start()

    for name in names:
        t0 = time.time()
        try:
            results["networks"][name] = measure_network(name)
        except Exception as e:  # noqa: BLE001
            results["networks"][name] = {"error": f"{type(e).__name__}: {e}"[:2000]}
        print(f"network {name}: {time.time() - t0:.1f} s "
              f"{results['networks'][name].get('saved_bytes_per_sample', results['networks'][name].get('error'))}",
              flush=True)
        save()
    cases = {"first": HF_CASES, "hf-fp32-moe": [c for c in HF_CASES if c[0] == "qwen3_moe_4l_full_fp32"]}
    for case in cases.get(chosen, []):
        if time.time() > deadline - 60:
            results["hf"][case[0]] = {"error": "skipped: deadline"}
            continue
        t0 = time.time()
        try:
            results["hf"][case[0]] = hf_case(case)
        except Exception as e:  # noqa: BLE001
            results["hf"][case[0]] = {"error": f"{type(e).__name__}: {e}"[:2000],
                                      "trace": traceback.format_exc()[-3000:]}
            torch.cuda.empty_cache()
        print(f"hf {case[0]}: {time.time() - t0:.1f} s", flush=True)
        save()
    while (exports.running or exports.queue) and time.time() < deadline - 25:
        time.sleep(1)
    stop.set()
    pumper.join()
    exports.pump()
    exports.kill_all()
    exports.pump()
    results["exports"] = exports.results
    save()
    with tarfile.open(outdir / "exports.tar.gz", "w:gz") as tar:
        for f in sorted(export_dir.rglob("*.onnx")):
            tar.add(f, arcname=str(f.relative_to(export_dir)))
    for k, v in sorted(exports.results.items()):
        print(f"export {k}: {'ok ' + v.get('mode', '') if v.get('ok') else 'FAILED ' + v.get('error', '')[:300]}")


if __name__ == "__main__":
    main()
