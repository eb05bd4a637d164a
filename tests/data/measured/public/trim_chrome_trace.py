#!/usr/bin/python3
"""Trims a Chrome trace from torch.profiler to what a memory reader needs, keeping it a Chrome trace.

Usage: trim_chrome_trace.py IN.json.gz OUT.json.gz

Kept: the top-level keys as they are, and of traceEvents the "[memory]" instant events (every device), the
"ProfilerStep#N" and "Optimizer.step#..." spans, the autograd engine's "autograd::engine::evaluate_function:
..." spans, the "Trace" span and the metadata events ("ph": "M"), in their original order, unchanged.
Dropped: the other CPU operators, CUDA runtime calls, kernels, copies, memsets and flow events (ac2g). Written
as JSON (indent 1) compressed with gzip -9 without a name or time in its header, so the output is the same
on every run.
"""
import gzip
import json
import sys


def kept(event):
    name = event.get("name", "")
    return (
        name == "[memory]"
        or name.startswith(("ProfilerStep#", "Optimizer.step#", "autograd::engine::evaluate_function"))
        or event.get("cat") == "Trace"
        or event.get("ph") == "M"
    )


def main():
    source, target = sys.argv[1], sys.argv[2]
    with gzip.open(source, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    trace["traceEvents"] = [e for e in trace["traceEvents"] if kept(e)]
    text = json.dumps(trace, indent=1).encode("utf-8")
    with open(target, "wb") as f:
        f.write(gzip.compress(text, compresslevel=9, mtime=0))


if __name__ == "__main__":
    main()
