#!/usr/bin/env python3
"""Real training steps of Headroom's reference networks on a CUDA GPU (issue 15).

measure.py measures the reference networks with torch 1.13 on the CPU and the tst_reference* tests apply the
documented CPU -> CUDA differences before comparing. This script measures the same networks (built by
measure.py's builders, imported) where Headroom's model applies: PyTorch 2.x on a CUDA GPU, with the
CUDA caching allocator's own counters. Per network, precision and batch it runs two training steps
(the first, which creates the optimizer state, and a steady one), each

    opt.zero_grad(set_to_none=True); loss = loss_fn(model(x), y); loss.backward(); opt.step()

and records per step torch.cuda.max_memory_allocated() over each phase (forward with the loss,
backward, optimizer step), the bytes allocated when the forward pass ends, and after both steps
torch.cuda.max_memory_reserved(). Every figure is absolute (it includes the parameters, buffers and
the batch, which exist before the step) and excludes the CUDA context, which the allocator does not
see. Then it finds the largest batch that really trains within a memory budget (default 8 GiB, a
GTX 1080): torch.cuda.set_per_process_memory_fraction caps the allocator at the budget minus the CUDA
context this process measured, and a search (doubling, then bisection) runs two full steps per
candidate, catching out-of-memory errors and emptying the allocator's cache between tries.

Compare with Headroom (docs/accuracy.md, "Measuring on a GPU"):
    build/app/headroom estimate MODEL --batch B --precision P --overhead-mib 0 --json   -> peak.bytes
    build/app/headroom max-batch MODEL --gpu-memory-gib 8 --overhead-mib 512            -> max_batch

Runs on any CUDA machine with PyTorch 2.x and torchvision; --help and --dry-run need no GPU.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GIB = 1024 ** 3
MIB = 1024 ** 2
PHASES = ("forward", "backward", "step")
IMPLEMENTATIONS = ("foreach", "fused", "for-loop")
AUTOCAST_DTYPES = {"amp-bf16": "bfloat16", "amp-fp16": "float16"}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(HERE / "measurements_cuda.json"),
                    help="where to write the JSON results (default: %(default)s)")
    ap.add_argument("--only", nargs="*", metavar="NAME", help="measure only these networks (measure.py's names)")
    ap.add_argument("--batches", nargs="*", type=int, metavar="B",
                    help="batch sizes for the per-phase measurement (default: each network's batches in measure.py)")
    ap.add_argument("--precisions", nargs="*", choices=["fp32", *AUTOCAST_DTYPES],
                    help="precisions to run (default: each network's own; amp-bf16 is skipped on a GPU without "
                         "bfloat16). amp-* = torch.autocast('cuda', dtype) around forward and loss")
    ap.add_argument("--optimizer", default="adam", help="a measure.py optimizer name (default: %(default)s)")
    ap.add_argument("--optimizer-impl", choices=IMPLEMENTATIONS, default="foreach",
                    help="foreach (PyTorch 2.x's default on CUDA), fused (fused=True) or for-loop (foreach=False); "
                         "as Headroom's --optimizer-impl (default: %(default)s)")
    ap.add_argument("--budget-gib", type=float, default=8.0,
                    help="the GPU memory the largest-batch search emulates, CUDA context included "
                         "(default: %(default)s, a GTX 1080)")
    ap.add_argument("--max-batch-limit", type=int, default=1 << 16,
                    help="stop the largest-batch search here (default: %(default)s)")
    ap.add_argument("--no-max-batch", action="store_true", help="skip the largest-batch search")
    ap.add_argument("--dry-run", action="store_true",
                    help="list what would be measured and exit (no GPU needed)")
    return ap.parse_args(argv)


# --------------------------------------------------------------------------------------------------
# The plan (no GPU needed)
# --------------------------------------------------------------------------------------------------


def plan(args, measure, bf16_supported=True):
    """[(network entry, precision, batches)] in measuring order."""
    known = {n["name"] for n in measure.NETWORKS}
    unknown = sorted(set(args.only or []) - known)
    if unknown:
        raise SystemExit(f"measure_cuda.py: no reference network {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    if args.optimizer not in {name for name, _, _ in measure.OPTIMIZERS}:
        raise SystemExit(f"measure_cuda.py: no optimizer {args.optimizer!r} in measure.py's OPTIMIZERS")
    if any(b < 1 for b in args.batches or []):
        raise SystemExit("measure_cuda.py: --batches must be positive")
    if not 0 < args.budget_gib <= 4096:
        raise SystemExit("measure_cuda.py: --budget-gib must be in (0, 4096]")
    out = []
    for net in measure.NETWORKS:
        if args.only and net["name"] not in args.only:
            continue
        precisions = [p for p in (args.precisions or net["precisions"]) if p == "fp32" or p in AUTOCAST_DTYPES]
        if not bf16_supported:
            precisions = [p for p in precisions if p != "amp-bf16"]
        for precision in precisions:
            out.append((net, precision, sorted(set(args.batches or net["batches"]))))
    return out


def print_plan(args, steps):
    print(f"would write {args.out}")
    print(f"optimizer {args.optimizer} ({args.optimizer_impl}); two steps per run (first, steady); per step the "
          f"peak of torch.cuda.max_memory_allocated() in {', '.join(PHASES)}, the bytes allocated after forward; "
          "per run torch.cuda.max_memory_reserved()")
    for net, precision, batches in steps:
        line = f"  {net['name']:<14} {precision:<9} batches {', '.join(map(str, batches))}"
        if not args.no_max_batch:
            line += (f"; largest batch within {args.budget_gib:g} GiB (CUDA context included), searched up to "
                     f"{args.max_batch_limit}")
        print(line)


# --------------------------------------------------------------------------------------------------
# Measuring (needs CUDA)
# --------------------------------------------------------------------------------------------------


def make_optimizer(measure, args, params):
    cls, kwargs = {name: (cls, kw) for name, cls, kw in measure.OPTIMIZERS}[args.optimizer]
    kwargs = dict(kwargs)
    if args.optimizer_impl == "fused":
        kwargs["fused"] = True
    else:
        kwargs["foreach"] = args.optimizer_impl == "foreach"
    return cls(params, **kwargs)


def is_oom(e):
    import torch
    oom = getattr(torch.cuda, "OutOfMemoryError", ())
    return (oom and isinstance(e, oom)) or (isinstance(e, RuntimeError) and "out of memory" in str(e))


def release():
    import torch
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def run_steps(measure, args, net, model, precision, batch, steps=2, record=True):
    """`steps` training steps at `batch`; per step the phase peaks (absolute bytes) if `record`."""
    import torch
    autocast = torch.autocast("cuda", dtype=getattr(torch, AUTOCAST_DTYPES.get(precision, "bfloat16")),
                              enabled=precision in AUTOCAST_DTYPES)
    x, y = measure.make_batch(net, batch, model, device="cuda")
    opt = make_optimizer(measure, args, [p for p in model.parameters() if p.requires_grad])
    model.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    out = []
    for step in range(1, steps + 1):
        figures = dict(step=step, allocated_before=torch.cuda.memory_allocated())
        opt.zero_grad(set_to_none=True)
        torch.cuda.reset_peak_memory_stats()
        with autocast:
            loss = measure.compute_loss(net, model(x), y)
        torch.cuda.synchronize()
        figures["forward"] = torch.cuda.max_memory_allocated()
        figures["allocated_after_forward"] = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        loss.backward()
        del loss
        torch.cuda.synchronize()
        figures["backward"] = torch.cuda.max_memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        opt.step()
        torch.cuda.synchronize()
        figures["step"] = torch.cuda.max_memory_allocated()
        figures["allocated_after_step"] = torch.cuda.memory_allocated()
        figures["peak"] = max(figures[p] for p in PHASES)
        figures["peak_phase"] = max(PHASES, key=lambda p: figures[p])
        out.append(figures)
    reserved = torch.cuda.max_memory_reserved()
    model.zero_grad(set_to_none=True)
    del x, y, opt
    return dict(batch=batch, allocated_at_start=start, steps=out, max_memory_reserved=reserved) if record else None


def trains(measure, args, net, model, precision, batch):
    """Whether two full steps at `batch` fit under the allocator's cap."""
    try:
        run_steps(measure, args, net, model, precision, batch, record=False)
        ok = True
    except Exception as e:  # noqa: BLE001 - anything but an out-of-memory error is re-raised
        if not is_oom(e):
            raise
        ok = False
    model.zero_grad(set_to_none=True)
    release()
    return ok


def largest_batch(measure, args, net, model, precision, context_bytes):
    """The largest batch that trains under set_per_process_memory_fraction for the budget (CUDA context
    subtracted), found by doubling and then bisection."""
    import torch
    total = torch.cuda.get_device_properties(0).total_memory
    budget = int(args.budget_gib * GIB)
    cap = budget - context_bytes
    if cap <= 0 or budget > total:
        return dict(budget_bytes=budget, skipped=f"the budget does not fit this GPU ({total:,} bytes, context "
                                                 f"{context_bytes:,})")
    fraction = cap / total
    torch.cuda.set_per_process_memory_fraction(fraction)
    tries = []
    try:
        good, bad = 0, None
        b = 1
        while b <= args.max_batch_limit:
            ok = trains(measure, args, net, model, precision, b)
            tries.append([b, ok])
            if not ok:
                bad = b
                break
            good, b = b, b * 2
        while bad is not None and bad - good > 1:
            mid = (good + bad) // 2
            ok = trains(measure, args, net, model, precision, mid)
            tries.append([mid, ok])
            if ok:
                good = mid
            else:
                bad = mid
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
        release()
    return dict(budget_bytes=budget, context_bytes=context_bytes, allocator_cap_bytes=cap, memory_fraction=fraction,
                largest_batch=good, first_failing_batch=bad, limit_reached=bad is None, tries=tries)


def cuda_context_bytes():
    """Device memory in use that the caching allocator did not reserve: the CUDA context, kernel images and
    library handles of this process (as close as one process can tell; other processes count too)."""
    import torch
    torch.zeros(1, device="cuda")  # initialise the context
    release()
    free, total = torch.cuda.mem_get_info()
    return total - free - torch.cuda.memory_reserved()


def measure_all(args, measure):
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("measure_cuda.py: no CUDA device (use --dry-run to see the plan without one)")
    torch.backends.cudnn.benchmark = False
    context = cuda_context_bytes()
    steps = plan(args, measure, torch.cuda.is_bf16_supported())
    started = time.time()
    entries = []
    for net_spec, precision, batches in steps:
        net = dict(net_spec)
        model = measure.build_network(net)
        if model is None:
            entries.append(dict(name=net["name"], precision=precision, skipped="model file missing"))
            continue
        model = model.cuda()
        t0 = time.time()
        runs = []
        for b in batches:
            try:
                runs.append(run_steps(measure, args, net, model, precision, b))
            except Exception as e:  # noqa: BLE001
                if not is_oom(e):
                    raise
                runs.append(dict(batch=b, out_of_memory=True))
            release()
        entry = dict(name=net["name"], model_file=net["model_file"], precision=precision, runs=runs)
        if not args.no_max_batch:
            entry["max_batch"] = largest_batch(measure, args, net, model, precision, context)
        entry["seconds"] = round(time.time() - t0, 1)
        entries.append(entry)
        summary = ", ".join(f"b{r['batch']} {r['steps'][1]['peak']:,} ({r['steps'][1]['peak_phase']})"
                            for r in runs if "steps" in r)
        print(f"{net['name']} {precision}: steady peaks {summary}"
              + (f"; largest batch {entry['max_batch'].get('largest_batch')}" if "max_batch" in entry else ""),
              flush=True)
        del model
        release()
    props = torch.cuda.get_device_properties(0)
    return dict(
        format="headroom-cuda-measurements",
        version=1,
        generated=dict(date=datetime.date.today().isoformat(), command=" ".join(sys.argv),
                       torch=torch.__version__, cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
                       python=platform.python_version(), runtime_seconds=round(time.time() - started, 1)),
        device=dict(name=props.name, total_memory=props.total_memory, capability=f"{props.major}.{props.minor}"),
        settings=dict(optimizer=args.optimizer, implementation=args.optimizer_impl, cudnn_benchmark=False,
                      zero_grad="set_to_none=True", budget_gib=args.budget_gib),
        conventions=dict(
            bytes="absolute torch.cuda counters: parameters, buffers and the batch included, the CUDA context "
                  "excluded; forward/backward/step = max_memory_allocated() over that phase (peak stats reset "
                  "at each phase's start); allocated_after_forward = memory_allocated() once the loss exists",
            steps="step 1 creates the optimizer state; step 2 is a steady step",
            max_batch="the largest batch whose two steps (first and steady) raise no out-of-memory error with "
                      "set_per_process_memory_fraction((budget - context) / total_memory)"),
        cuda_context_bytes=context,
        networks=entries)


def main(argv=None):
    args = parse_args(argv)
    sys.path.insert(0, str(HERE))
    import measure  # the reference networks' builders (imports torch and torchvision)
    if args.dry_run:
        print_plan(args, plan(args, measure))
        return 0
    import torch
    torch.manual_seed(0)
    doc = measure_all(args, measure)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
