#!/usr/bin/python3
"""Figures of the public PyTorch memory files in tests/data/measured/public, worked out without Headroom.

Usage: /usr/bin/python3 tests/reference/public_measured_runs.py [DIR]   (prints JSON)

It reads each file with Python's own pickle / json / gzip modules (no Headroom code) and works out what
tests/core/tst_measuredpublic.cpp checks Headroom's reader against:

Memory snapshots (torch.cuda.memory._dump_snapshot: {"segments", "device_traces", ...}):
  * end_allocated: the sum of the sizes of the blocks in state "active_allocated" in the traced device's
    segments, i.e. torch.cuda.memory_allocated() at the snapshot (c10/cuda/CUDACachingAllocator.cpp: the
    allocated_bytes stat grows by block->size in malloc() and shrinks by it in free(); a block in
    "active_pending_free" was already freed);
  * end_reserved: the sum of those segments' total_size (memory_reserved());
  * the trace's entries walked forward: "alloc" adds a block, "free_requested" removes it,
    "segment_alloc"/"segment_map" add reserved bytes, "segment_free"/"segment_unmap" remove them. Trace
    entries carry the *requested* size, the allocated_bytes stat the block's: a block still allocated at the
    snapshot has its size in the segments (matched by address), the others are sized by the allocator's
    round_size() (requests under 512 bytes take 512, others are rounded up to a multiple of 512; the script
    checks the file's allocator_settings leave roundup_power2_divisions, max_split_size and expandable
    segments at their defaults, where that is all round_size does). The bytes before the first entry are
    end - (sum of the changes), so each entry's "after" value is absolute;
  * peak_allocated / peak_reserved: the largest "after" values; peak_entry: the first entry reaching it;
  * optimizer_first_alloc: the first "alloc" inside each "Optimizer.step#..." span of the snapshot's
    external_annotations (record_function START / END times, PyTorch 2.6 and later);
  * largest_at_peak: the largest block alive after peak_entry.
Chrome traces (torch.profiler export_chrome_trace, profile_memory=True):
  * the "[memory]" events of the CUDA device (Device Type 1) with most events: max of "Total Allocated" and
    "Total Reserved" over them, their count, per "ProfilerStep#N" span (ts to ts + dur) the max of
    "Total Allocated" over the events inside it, and how many allocations fall inside the
    "Optimizer.step#..." spans. Events with Bytes only (PyTorch 1.9): "Total Allocated" is the running sum
    of Bytes in time order less its lowest value.
Raw memory timelines (export_memory_timeline_raw): the rows added up per category for each distinct time
  (as PyTorch's _coalesce_timeline and HolisticTraceAnalysis do), the largest total and where, and the
  sizes at sample 744, which HolisticTraceAnalysis's tests/test_memory_analysis.py asserts for this file.
"""
import gzip
import json
import os
import pickle
import sys


def load_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def round_size(size):
    if size < 512:
        return 512
    return 512 * ((size + 511) // 512)


def snapshot_figures(path):
    snap = pickle.loads(load_bytes(path))
    settings = snap.get("allocator_settings", {})
    assert settings.get("max_split_size", -1) in (-1, 2**64 - 1), settings
    assert not settings.get("expandable_segments", False), settings
    assert all(v in (0, 1) for v in settings.get("roundup_power2_divisions", {}).values()), settings
    traces = snap["device_traces"]
    device = max(range(len(traces)), key=lambda d: (len(traces[d]), -d))
    trace = traces[device]
    segments = [s for s in snap["segments"] if s["device"] == device]
    end_allocated = 0
    end_reserved = 0
    live_at_end = {}
    for s in segments:
        end_reserved += s["total_size"]
        for b in s["blocks"]:
            if b["state"] == "active_allocated":
                end_allocated += b["size"]
                live_at_end[b["address"]] = b["size"]

    # Which alloc is never freed in the trace (its block is still allocated at the snapshot)?
    last_alloc = {}
    freed_after = set()
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            last_alloc[e["addr"]] = i
        elif e["action"] == "free_requested" and e["addr"] in last_alloc:
            freed_after.add(last_alloc[e["addr"]])
    open_allocs = {i for i in last_alloc.values() if i not in freed_after}

    def walk(sized):
        deltas = []
        reserved = []
        size_at = {}
        for i, e in enumerate(trace):
            a = e["action"]
            d = 0
            r = 0
            if a == "alloc":
                size = sized(i, e)
                size_at[e["addr"]] = size
                d = size
            elif a == "free_requested":
                d = -size_at.pop(e["addr"], sized(i, e))
            elif a in ("segment_alloc", "segment_map"):
                r = e["size"]
            elif a in ("segment_free", "segment_unmap"):
                r = -e["size"]
            deltas.append(d)
            reserved.append(r)
        a = end_allocated - sum(deltas)
        r = end_reserved - sum(reserved)
        before = a
        after_a, after_r = [], []
        for d, dr in zip(deltas, reserved):
            a += d
            r += dr
            after_a.append(a)
            after_r.append(r)
        return before, after_a, after_r

    def block_size(i, e):
        if e["action"] == "alloc" and i in open_allocs and e["addr"] in live_at_end:
            return live_at_end[e["addr"]]
        return round_size(e["size"])

    before, after_a, after_r = walk(block_size)
    peak = max(after_a)
    peak_entry = after_a.index(peak)
    # The blocks alive after peak_entry: allocated at or before it and not freed by then.
    alive = {}
    for i, e in enumerate(trace[: peak_entry + 1]):
        if e["action"] == "alloc":
            alive[e["addr"]] = block_size(i, e)
        elif e["action"] == "free_requested":
            alive.pop(e["addr"], None)
    # The optimizer's record_function span (external_annotations, PyTorch 2.6 and later): the first
    # allocation inside it.
    spans = []
    starts = {}
    for a in snap.get("external_annotations", []) or []:
        if a.get("device") != device or not a["name"].startswith("Optimizer.step#"):
            continue
        if a["stage"] == "START":
            starts[a["name"]] = a["time_us"]
        elif a["name"] in starts:
            spans.append((starts.pop(a["name"]), a["time_us"]))
    optimizer_first_alloc = [
        next(
            (i for i, e in enumerate(trace) if e["action"] == "alloc" and begin <= e["time_us"] <= end),
            None,
        )
        for begin, end in spans
    ]
    counts = {}
    for e in trace:
        counts[e["action"]] = counts.get(e["action"], 0) + 1
    return {
        "device": device,
        "entries": len(trace),
        "actions": counts,
        "segments": len(segments),
        "end_allocated": end_allocated,
        "end_reserved": end_reserved,
        "allocated_before_trace": before,
        "peak_allocated": peak,
        "peak_entry": peak_entry,
        "peak_reserved": max(after_r),
        "largest_traced_block_at_peak": max(alive.values()) if alive else 0,
        "optimizer_spans": len(spans),
        "optimizer_first_alloc": optimizer_first_alloc,
        "allocator_settings_keys": sorted(settings.keys()),
        "entry_keys": sorted(trace[0].keys()) if trace else [],
    }


def chrome_trace_figures(path):
    trace = json.loads(load_bytes(path))
    events = trace["traceEvents"]
    by_device = {}
    for e in events:
        if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1:
            by_device.setdefault(e["args"]["Device Id"], []).append(e)
    device = max(by_device, key=lambda d: len(by_device[d]))
    memory = sorted(by_device[device], key=lambda e: e["ts"])
    relative = any("Total Allocated" not in m["args"] for m in memory)
    if relative:
        # PyTorch 1.9 wrote Bytes only: the running sum of Bytes, counted from its lowest point.
        running = 0
        sums = []
        for m in memory:
            running += m["args"]["Bytes"]
            sums.append(running)
        lowest = min(sums)
        for m, total in zip(memory, sums):
            m["args"]["Total Allocated"] = total - lowest
            m["args"]["Total Reserved"] = 0
    steps = sorted((e for e in events if e.get("name", "").startswith("ProfilerStep#")), key=lambda e: e["ts"])
    optimizer = [e for e in events if e.get("name", "").startswith("Optimizer.step#")]
    per_step = []
    for s in steps:
        inside = [m["args"]["Total Allocated"] for m in memory if s["ts"] <= m["ts"] <= s["ts"] + s["dur"]]
        per_step.append({"name": s["name"], "peak_allocated": max(inside), "events": len(inside)})
    return {
        "device": device,
        "relative": relative,
        "memory_events": len(memory),
        "peak_allocated": max(m["args"]["Total Allocated"] for m in memory),
        "peak_reserved": max(m["args"]["Total Reserved"] for m in memory),
        "steps": per_step,
        "optimizer_spans": len(optimizer),
        # Allocations (Bytes > 0) on the device inside an optimizer span: none means the optimizer
        # allocated nothing (plain SGD), so no step has an optimizer phase to find.
        "allocations_in_optimizer_spans": sum(
            1
            for m in memory
            if m["args"]["Bytes"] > 0 and any(o["ts"] <= m["ts"] <= o["ts"] + o["dur"] for o in optimizer)
        ),
    }


def raw_timeline_figures(path):
    # export_memory_timeline_raw: [time ns (-1: existed before), action, signed bytes, category index]
    # rows, coalesced as torch/profiler/_memory_profiler.py _coalesce_timeline and HolisticTraceAnalysis's
    # MemoryAnalysis._process_raw_events do: one row of per-category sums per distinct time.
    rows = json.loads(load_bytes(path))
    times, sizes = [], []
    for t, _action, numbytes, category in rows:
        if not times or t != times[-1]:
            times.append(t)
            sizes.append(sizes[-1].copy() if sizes else [0] * 8)
        sizes[-1][category] += numbytes
    totals = [sum(row) for row in sizes]
    peak = max(totals)
    return {
        "events": len(rows),
        "samples": len(times),
        "peak_allocated": peak,
        "peak_sample": totals.index(peak),
        "sizes_744": sizes[744],
        "min_category_bytes": min(min(row) for row in sizes),
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "data", "measured", "public")
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if ".pickle" in name:
            out[name] = snapshot_figures(path)
        elif name.endswith(".raw.gz") or name.endswith(".raw.json.gz"):
            out[name] = raw_timeline_figures(path)
        elif name.endswith(".json.gz"):
            out[name] = chrome_trace_figures(path)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
