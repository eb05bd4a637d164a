#!/usr/bin/env python3
"""Records what PyTorch writes about a run's memory, for Headroom's reader of measured runs (issue 36).

For a session lent a CUDA GPU with PyTorch 2.1 or later (torchvision for the image networks). Per
reference network (built by measure.py's builders, as measure_cuda.py does) it trains a few steps

    opt.zero_grad(set_to_none=True); loss = loss_fn(model(x), y); loss.backward(); opt.step()

three times, each time writing what one of PyTorch's recorders keeps:

1. memory snapshot: torch.cuda.memory._record_memory_history(enabled="all", context="all",
   stacks=--stacks, max_entries=--max-entries) before the model is built, then
   torch.cuda.memory._dump_snapshot(NAME.pickle) after the steps (what pytorch.org/memory_viz opens);
   the trace holds every allocation from the weights on;
2. the same with a small ring buffer (max_entries = a third of the first run's trace), so that the
   trace starts in the middle of the run (NAME.midrun.pickle): the reader must anchor it at the
   segments;
3. torch.profiler.profile(activities=[CPU, CUDA], profile_memory=True, record_shapes=True,
   with_stack=True) around the steps, prof.step() after each, then prof.export_memory_timeline
   (NAME.timeline.json and NAME.timeline.json.gz, device "cuda:0") and prof.export_chrome_trace
   (NAME.trace.json).

Beside the files, NAME.json (the sidecar) holds the figures the tests compare against, taken from the
allocator's own counters, independent of any recorder: per step and phase torch.cuda.max_memory_allocated()
and max_memory_reserved() (torch.cuda.reset_peak_memory_stats() at each phase's start, after a
synchronize), memory_allocated() / memory_reserved() at each phase's end, and at the moment of the
snapshot (the anchor the reader reconstructs from the segments). Phases: "forward" is zero_grad, the
forward pass and the loss; "backward" is loss.backward(); "step" is opt.step(). All bytes are absolute
(weights and batch included, CUDA context excluded).

Usage (a GPU session):  python3 tests/reference/record_measured_runs.py --out-dir tests/data/measured/recorded
    --networks mlp bn_cnn resnet18 transformer_lm --batch 8 --steps 3
--dry-run prints the plan without torch.cuda; the outputs are a few MB per network (keep --max-entries
and --batch small). tests/core/tst_measuredrun.cpp (recordedRunsMatchPyTorchsCounters) reads every
sidecar in tests/data/measured/recorded and compares.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import pickle
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PHASES = ("forward", "backward", "step")
AUTOCAST_DTYPES = {"amp-bf16": "bfloat16", "amp-fp16": "float16"}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=str(REPO / "tests" / "data" / "measured" / "recorded"))
    ap.add_argument("--networks", nargs="+", default=["mlp", "bn_cnn", "resnet18", "transformer_lm"],
                    help="measure.py NETWORKS names (default: %(default)s)")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=3, help="training steps per recording (the first creates the "
                    "optimizer state)")
    ap.add_argument("--precision", choices=("fp32", "amp-bf16", "amp-fp16"), default="fp32")
    ap.add_argument("--optimizer", default="adam", help="measure.py OPTIMIZERS name (default: %(default)s)")
    ap.add_argument("--stacks", choices=("python", "all"), default="python",
                    help="_record_memory_history's stacks: 'all' adds C++ frames (autograd's engine)")
    ap.add_argument("--max-entries", type=int, default=200_000)
    ap.add_argument("--no-profiler", action="store_true", help="only the snapshots")
    ap.add_argument("--dry-run", action="store_true")
    return ap.parse_args(argv)


def synchronize():
    import torch
    torch.cuda.synchronize()


def release():
    import torch
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def make_optimizer(measure, name, params):
    cls, kwargs = {n: (c, kw) for n, c, kw in measure.OPTIMIZERS}[name]
    return cls(params, **dict(kwargs))


def counters():
    import torch
    return dict(allocated=torch.cuda.memory_allocated(), reserved=torch.cuda.memory_reserved())


def train(measure, args, net, profiler=None):
    """Builds the network on the GPU, trains args.steps steps, returns the per-step figures (and keeps
    the model alive until the caller has dumped what it records)."""
    import torch
    autocast = torch.autocast("cuda", dtype=getattr(torch, AUTOCAST_DTYPES.get(args.precision, "bfloat16")),
                              enabled=args.precision in AUTOCAST_DTYPES)
    model = measure.build_network(net).cuda()
    x, y = measure.make_batch(net, args.batch, model, device="cuda")
    opt = make_optimizer(measure, args.optimizer, [p for p in model.parameters() if p.requires_grad])
    synchronize()
    start = counters()
    steps = []
    for step in range(1, args.steps + 1):
        figures = dict(step=step, before=counters())
        # forward: zero_grad, the forward pass and the loss
        torch.cuda.reset_peak_memory_stats()
        opt.zero_grad(set_to_none=True)
        with autocast:
            loss = measure.compute_loss(net, model(x), y)
        synchronize()
        figures["forward"] = dict(max_allocated=torch.cuda.max_memory_allocated(),
                                  max_reserved=torch.cuda.max_memory_reserved(), end=counters())
        torch.cuda.reset_peak_memory_stats()
        loss.backward()
        del loss
        synchronize()
        figures["backward"] = dict(max_allocated=torch.cuda.max_memory_allocated(),
                                   max_reserved=torch.cuda.max_memory_reserved(), end=counters())
        torch.cuda.reset_peak_memory_stats()
        opt.step()
        synchronize()
        figures["step"] = dict(max_allocated=torch.cuda.max_memory_allocated(),
                               max_reserved=torch.cuda.max_memory_reserved(), end=counters())
        figures["max_allocated"] = max(figures[p]["max_allocated"] for p in PHASES)
        figures["max_reserved"] = max(figures[p]["max_reserved"] for p in PHASES)
        steps.append(figures)
        if profiler is not None:
            profiler.step()
    return dict(start=start, steps=steps,
                max_allocated=max(s["max_allocated"] for s in steps),
                max_reserved=max(s["max_reserved"] for s in steps)), (model, x, y, opt)


def record_snapshot(measure, args, net, path, max_entries):
    import torch
    release()
    torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks=args.stacks,
                                             max_entries=max_entries)
    figures, keep = train(measure, args, net)
    synchronize()
    figures["at_snapshot"] = counters()
    snapshot = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(path, "wb") as f:
        pickle.dump(snapshot, f)  # what _dump_snapshot(path) writes (torch/cuda/memory.py)
    entries = max((len(t) for t in snapshot["device_traces"]), default=0)
    figures["trace_entries"] = entries
    figures["trace_full"] = entries < max_entries
    del keep, snapshot
    release()
    return figures


def record_profile(measure, args, net, stem):
    from torch.profiler import ProfilerActivity, profile
    release()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                 record_shapes=True, with_stack=True) as prof:
        figures, keep = train(measure, args, net, profiler=prof)
    files = {}
    for suffix in (".timeline.json", ".timeline.json.gz"):
        path = stem.with_name(stem.name + suffix)
        prof.export_memory_timeline(str(path), device="cuda:0")
        files[suffix.lstrip(".")] = path.name
    trace = stem.with_name(stem.name + ".trace.json")
    prof.export_chrome_trace(str(trace))
    files["trace.json"] = trace.name
    figures["files"] = files
    del keep, prof
    release()
    return figures


def main(argv=None):
    args = parse_args(argv)
    sys.path.insert(0, str(HERE))
    import measure  # the reference networks' builders (imports torch and torchvision)
    nets = {n["name"]: n for n in measure.NETWORKS}
    unknown = [n for n in args.networks if n not in nets]
    if unknown:
        raise SystemExit(f"record_measured_runs.py: unknown networks {unknown}; measure.py has {sorted(nets)}")
    out = Path(args.out_dir)
    if args.dry_run:
        for name in args.networks:
            print(f"{name}: batch {args.batch}, {args.steps} steps, {args.precision}, {args.optimizer} -> "
                  f"{out / name}.pickle, .midrun.pickle" + ("" if args.no_profiler else ", .timeline.json(.gz), .trace.json")
                  + f", sidecar {out / name}.json")
        return 0
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("record_measured_runs.py: no CUDA device (use --dry-run to see the plan)")
    if not hasattr(torch.cuda.memory, "_dump_snapshot"):
        raise SystemExit(f"record_measured_runs.py: torch {torch.__version__} has no memory snapshots (2.1 or later)")
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = False
    props = torch.cuda.get_device_properties(0)
    for name in args.networks:
        net = dict(nets[name])
        stem = out / name
        t0 = time.time()
        full = record_snapshot(measure, args, net, stem.with_name(name + ".pickle"), args.max_entries)
        ring = max(64, full["trace_entries"] // 3)
        midrun = record_snapshot(measure, args, net, stem.with_name(name + ".midrun.pickle"), ring)
        midrun["max_entries"] = ring
        profiled = None if args.no_profiler else record_profile(measure, args, net, stem)
        sidecar = dict(
            format="headroom-measured-run",
            version=1,
            generated=dict(date=datetime.date.today().isoformat(), command=" ".join(sys.argv),
                           torch=torch.__version__, cuda=torch.version.cuda, python=platform.python_version(),
                           seconds=round(time.time() - t0, 1)),
            device=dict(name=props.name, total_memory=props.total_memory, capability=f"{props.major}.{props.minor}"),
            network=name, model_file=net.get("model_file"), batch=args.batch, precision=args.precision,
            optimizer=args.optimizer, stacks=args.stacks, steps=args.steps,
            conventions=dict(
                bytes="absolute torch.cuda counters (CUDA context excluded)",
                phases="forward = zero_grad + forward + loss; backward = loss.backward(); step = opt.step(); "
                       "max_* from reset_peak_memory_stats() at the phase's start to its end (synchronized)",
                at_snapshot="memory_allocated() / memory_reserved() just before _snapshot()"),
            snapshot=dict(file=name + ".pickle", **full),
            midrun_snapshot=dict(file=name + ".midrun.pickle", **midrun),
            profile=profiled)
        with open(stem.with_name(name + ".json"), "w") as f:
            json.dump(sidecar, f, indent=1)
            f.write("\n")
        print(f"{name}: peak allocated {full['max_allocated']:,} reserved {full['max_reserved']:,}; "
              f"trace {full['trace_entries']} entries ({time.time() - t0:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
