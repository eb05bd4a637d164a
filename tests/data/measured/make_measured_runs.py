#!/usr/bin/python3
"""Writes the binary forms of the hand-written measured runs (tests/core/tst_measuredrun.cpp):
snapshot_steps.pickle (snapshot_steps.json pickled as _dump_snapshot does, equal frame lists shared so
that the pickle's memo refers to them again, segment_pool_id a tuple), snapshot_steps.html (the
memory_viz page embedding it, as make_plain_pickles.viz_page builds it) and timeline.json.gz. The
expected figures are in the test, worked out by hand from the JSON texts."""
import gzip
import importlib.util
import json
import os
import pickle

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with open(os.path.join(HERE, "snapshot_steps.json")) as f:
        snap = json.load(f)
    canon = {}

    def share(d):
        if isinstance(d, dict):
            for k, v in d.items():
                if k == "frames":
                    d[k] = canon.setdefault(json.dumps(v), v)
                else:
                    share(v)
        elif isinstance(d, list):
            for x in d:
                share(x)

    share(snap)
    for s in snap["segments"]:
        s["segment_pool_id"] = tuple(s["segment_pool_id"])
    with open(os.path.join(HERE, "snapshot_steps.pickle"), "wb") as f:
        f.write(pickle.dumps(snap, protocol=4))
    spec = importlib.util.spec_from_file_location("mpp", os.path.join(HERE, "make_plain_pickles.py"))
    mpp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mpp)
    with open(os.path.join(HERE, "snapshot_steps.html"), "w") as f:
        f.write(mpp.viz_page(snap, "Active Memory Timeline"))
    with open(os.path.join(HERE, "timeline.json"), "rb") as f:
        text = f.read()
    with open(os.path.join(HERE, "timeline.json.gz"), "wb") as f:
        f.write(gzip.compress(text, mtime=0))


if __name__ == "__main__":
    main()
