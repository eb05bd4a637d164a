#!/usr/bin/python3
"""Writes the test data of headroom's plain-data readers (core/src/measured/, tests/core/tst_plaindata.cpp).

plain/*.pickle      pickles of plain data across protocols 0 to 5, some written opcode by opcode for the
                    opcodes CPython's pickler never emits (DUP, POP, STRING, LONG4, BINUNICODE8 ...);
                    every opcode the reader knows is used by some file (checked here with pickletools).
plain/expected.json what each of them holds, written by this script from the Python value that
                    pickle.loads gives back (never from headroom's reader): tagged values, see tagged().
hostile/*.pickle    pickles the reader must refuse; hostile/expected.json lists, per file, words its
                    error must contain (the opcode's name, its byte offset worked out here with
                    pickletools.genops, the limit).
viz/*.html          memory_viz pages built as torch/cuda/_memory_viz.py's _format_viz builds them.
gzip/*              a gzip'ed JSON export, a bomb (10 MiB of zeros), a corrupt and a truncated one.
../../fuzz/corpus/plain_data/  a few of them, the seeds of tests/fuzz/fuzz_plain_data.cpp.

Run with Debian's /usr/bin/python3 from anywhere; it rewrites the files next to itself.
"""
import base64
import gzip
import json
import os
import pickle
import pickletools
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def tagged(v):
    """A JSON form that keeps Python's kinds apart: {"t": kind, "v": value}."""
    if v is None:
        return {"t": "none"}
    if isinstance(v, bool):
        return {"t": "bool", "v": v}
    if isinstance(v, int):
        return {"t": "int", "v": str(v)}
    if isinstance(v, float):
        return {"t": "float", "v": repr(v)}
    if isinstance(v, str):
        return {"t": "str", "v": v}
    if isinstance(v, (bytes, bytearray)):
        return {"t": "bytes", "v": bytes(v).hex()}
    if isinstance(v, tuple):
        return {"t": "tuple", "v": [tagged(x) for x in v]}
    if isinstance(v, (list, set, frozenset)):  # the reader reads sets as lists, in the file's order
        return {"t": "list", "v": [tagged(x) for x in v]}
    if isinstance(v, dict):
        return {"t": "dict", "v": [[tagged(k), tagged(x)] for k, x in v.items()]}
    raise TypeError(type(v))


def frames(n, tag):
    return [{"filename": f"/src/model_{tag}.py", "line": 10 + i, "name": f"forward_{i}"} for i in range(n)]


def snapshot_like(protocol):
    """A small snapshot-shaped dict using what the protocol can hold as plain data."""
    shared = frames(3, "shared")  # one frame list shared by several entries: memo references
    trace = []
    for i in range(6):
        trace.append({"action": ["alloc", "free_requested", "free_completed"][i % 3],
                      "addr": 0x7F3A_0000_0000 + 512 * i, "size": 512 * (i + 1), "stream": 0,
                      "time_us": 1_700_000_000_000_000 + i, "frames": shared})
    trace.append({"action": "oom", "device_free": 1 << 20, "size": 1 << 33, "stream": 0, "frames": []})
    value = {
        "segments": [{"device": 0, "address": 0x7F3A_0000_0000, "total_size": 2 << 20, "allocated_size": 1536,
                      "active_size": 1536, "requested_size": 1500, "stream": 0, "segment_type": "large",
                      "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
                      "blocks": [{"address": 0x7F3A_0000_0000, "size": 512, "requested_size": 500,
                                  "state": "active_allocated", "frames": shared},
                                 {"address": 0x7F3A_0000_0200, "size": (2 << 20) - 512, "requested_size": 0,
                                  "state": "inactive", "frames": []}]}],
        "device_traces": [trace],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "max_split_size": -1,
                               "garbage_collection_threshold": 0.0, "expandable_segments": True,
                               "roundup_power2_divisions": {1: 4, 2: 8}},
        "ints": [0, 1, 255, 256, 65535, 65536, -1, -256, 2**31 - 1, -2**31, 2**31, 2**40, -2**40,
                 2**63 - 1, -2**63],
        "floats": [0.1, -0.0, 1e300, -2.5e-308, float("inf"), float("-inf"), 1.0],
        "strings": ["", "plain", "é ü", "中文", "emoji 😀", "line\nbreak", "back\\slash", "quote ' \""],
        "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), ((1, "a"), None)],
        "one": [True],  # one item: APPEND / SETITEM rather than APPENDS / SETITEMS
        "single": {"k": False},
        "keys": {7: "int key", (1, 2): "tuple key", None: "None key"},
    }
    if protocol in (2, 4):
        value["many"] = [f"n{i}" for i in range(300)] * 2  # > 256 memo entries, each string met twice
    if protocol >= 3:
        value["bytes"] = [b"", b"\x00\xff\x10", b"x" * 300]
    if protocol >= 4:
        value["sets"] = [{1, 2, 3}, frozenset({4, 5})]
    if protocol >= 5:
        value["bytearray"] = bytearray(b"\x01\x02\x03")
    if protocol in (1, 4):
        value["big_list"] = [i % 10 for i in range(2001)]  # APPENDS batches of 1000, 1000 and 1
    return value


def le(fmt, v):
    return struct.pack("<" + fmt, v)


def handmade():
    """Pickles written opcode by opcode: what CPython's pickler never emits, and protocol 0 forms."""
    files = {}
    files["dup_pop"] = b"\x80\x02]2K\x01a0."  # [L, L] -> append 1 to the top -> POP -> [1]
    files["pop_mark"] = b"\x80\x02(K\x01K\x021K\x03."  # MARK 1 2 POP_MARK 3 -> 3
    files["pop_empty_mark"] = b"(0N."  # POP on an empty MARK drops the MARK (CPython): None
    files["p0_strings"] = (b"(lp0\nS'py2 \\'str\\'\\n\\x41\\101'\np1\naS\"dq\"\naV\\u00e9\\U0001f600 \xe9\np2\n"
                           b"ag1\naI01\naI00\naI-7\naL123456789012L\naF0.25\na.")
    files["binstring"] = b"\x80\x01]q\x00(T" + le("i", 5) + b"hello" + b"U\x02hiq\x01h\x01e."
    files["long4"] = b"\x80\x02]q\x00(\x8b" + le("i", 4) + b"\xff\xff\xff\x7f" + b"\x8b" + le("i", 0) + \
        b"\x8b" + le("i", 9) + b"\xfe\xff\xff\xff\xff\xff\xff\xff\xff" + b"e."  # 2**31-1, 0, -2
    files["long1_padded"] = b"\x80\x02\x8a\x09\x05\x00\x00\x00\x00\x00\x00\x00\x00."  # 5 written in 9 bytes
    body = b"\x8d" + le("Q", 3) + b"abc" + b"\x8e" + le("Q", 2) + b"\x00\x01" + b"\x96" + le("Q", 1) + b"z" + b"\x87."
    files["binunicode8_bytes8"] = b"\x80\x05\x95" + le("Q", len(body)) + body
    # a list memoized, put into a dict, then appended to after other containers were built
    files["append_after_get"] = (b"\x80\x02}q\x00(X\x01\x00\x00\x00a]q\x01K\x01aX\x01\x00\x00\x00b]q\x02K\x02a"
                                 b"uh\x01(K\x03K\x04e0h\x02K\x05a0h\x01K\x06a0.")
    files["put_get_p0"] = b"(dp0\nVk\np1\n(lp2\nI1\naI2\nasVj\np3\ng2\ns."
    files["sparse_memo"] = b"\x80\x02]r\x40\x42\x0f\x000j\x40\x42\x0f\x00\x85."  # memo 1000000, POP, GET, tuple
    files["int_keys_dict_p0"] = b"(dI1\nVone\nsI2\nVtwo\ns."
    files["frozenset_empty_set"] = b"\x80\x04\x8f\x94(K\x01K\x02\x90(K\x03\x91\x86."
    files["empty_tuple_tuple"] = b"\x80\x02)(K\x01K\x02K\x03K\x04t\x86."
    return files


REQUIRED = """PROTO FRAME STOP MARK POP POP_MARK DUP NONE NEWTRUE NEWFALSE INT BININT BININT1 BININT2 LONG LONG1 LONG4
FLOAT BINFLOAT STRING BINSTRING SHORT_BINSTRING UNICODE BINUNICODE SHORT_BINUNICODE BINUNICODE8 BINBYTES
SHORT_BINBYTES BINBYTES8 BYTEARRAY8 EMPTY_LIST LIST APPEND APPENDS EMPTY_TUPLE TUPLE TUPLE1 TUPLE2 TUPLE3
EMPTY_DICT DICT SETITEM SETITEMS EMPTY_SET ADDITEMS FROZENSET PUT BINPUT LONG_BINPUT MEMOIZE GET BINGET
LONG_BINGET""".split()


def first_opcode(data, names):
    for op, _arg, pos in pickletools.genops(data):
        if op.name in names:
            return op.name, pos
    raise AssertionError(f"none of {names} in the pickle")


class Instance:
    def __init__(self):
        self.x = 1


class RunsSystem:
    def __reduce__(self):
        return (os.system, ("echo never",))


def hostile():
    """name -> (bytes, [words the error must contain])"""
    out = {}
    refused = {"GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "INST", "OBJ", "NEWOBJ", "NEWOBJ_EX", "EXT1", "EXT2",
               "EXT4", "PERSID", "BINPERSID", "NEXT_BUFFER", "READONLY_BUFFER"}

    def refusal(name, data, extra=()):
        op, pos = first_opcode(data, refused)
        out[name] = (data, [f"byte {pos}:", f"opcode {op} ", "plain data", *extra])

    refusal("global_os_system_p0", b"cos\nsystem\n(S'echo never'\ntR.", ["'os system'"])
    for p in (0, 2, 4):
        refusal(f"reduce_os_system_p{p}", pickle.dumps(RunsSystem(), protocol=p), [f"'{os.system.__module__} system'"])
        refusal(f"class_instance_p{p}", pickle.dumps(Instance(), protocol=p))
    refusal("reduce_only", b"\x80\x02)R.")
    refusal("build_only", b"\x80\x02}}b.")
    refusal("inst", b"(ibuiltins\nobject\n.", ["'builtins object'"])
    refusal("obj", b"\x80\x02()o.")
    refusal("newobj", b"\x80\x02)\x81.")
    refusal("newobj_ex", b"\x80\x04)}\x92.")
    refusal("ext1", b"\x80\x02\x82\x01.")
    refusal("ext2", b"\x80\x02\x83\x01\x00.")
    refusal("ext4", b"\x80\x02\x84\x01\x00\x00\x00.")
    refusal("persid", b"Pkey\n.")
    refusal("binpersid", b"\x80\x02K\x01Q.")
    refusal("next_buffer", b"\x80\x05\x97.")
    refusal("readonly_buffer", b"\x80\x05]\x98.")
    refusal("stack_global_late", b"\x80\x04]\x94(K\x01e\x8c\x02os\x8c\x06system\x93.", ["'os system'"])

    # Truncated at each kind of place: after every opcode byte (inside its argument), halfway through
    # its argument, and just before STOP, in protocols 0, 2 and 4 (framed).
    for p in (0, 2, 4):
        data = pickle.dumps({"a": [1, 2 ** 40, "xyz" * 20], "b": (0.5, None, True)}, protocol=p)
        seen = set()
        ops = list(pickletools.genops(data))
        for i, (op, _arg, pos) in enumerate(ops):
            if op.name in seen:
                continue
            seen.add(op.name)
            end = ops[i + 1][2] if i + 1 < len(ops) else len(data)
            for cut in sorted({pos, pos + 1, (pos + 1 + end) // 2}):
                if 0 < cut < len(data) and cut != end:
                    out[f"truncated_p{p}_{op.name.lower()}_{cut}"] = (data[:cut], ["truncated"])
    out["empty"] = (b"", ["empty"])

    deep = b"\x80\x02" + b"]" * 10000 + b"a" * 9999 + b"."
    out["deep_10000"] = (deep, ["byte 20001:", "deeper than 64"])
    out["deep_100_no_proto"] = (b"]" * 100 + b"a" * 99 + b".", ["byte 199:", "deeper than 64"])
    out["huge_binunicode"] = (b"\x80\x02X\xf0\xff\xff\xff" + b"abc", ["byte 2:", "BINUNICODE", "beyond the limit"])
    out["huge_binbytes8"] = (b"\x80\x05\x8e" + le("Q", 1 << 62) + b"abc", ["byte 2:", "BINBYTES8", "beyond the limit"])
    out["huge_long4"] = (b"\x80\x02\x8b" + le("i", 0x7FFFFFFF) + b"\x01", ["byte 2:", "LONG4", "beyond the limit"])
    out["long_binunicode_short_file"] = (b"\x80\x02X" + le("I", 100_000_000) + b"abc", ["byte 2:", "truncated"])
    out["frame_beyond_file"] = (b"\x80\x04\x95" + le("Q", 1 << 40) + b"N.", ["byte 2:", "FRAME", "truncated"])
    out["negative_binstring"] = (b"\x80\x01T" + le("i", -1) + b".", ["byte 2:", "negative"])
    for p in (0, 2):
        out[f"int_2_64_p{p}"] = (pickle.dumps(2 ** 64, protocol=p), ["byte 0:" if p == 0 else "byte 2:", "64"])
    out["int_2_63_p2"] = (pickle.dumps(2 ** 63, protocol=2), ["byte 2:", "64-bit"])
    out["int_minus_2_64_p2"] = (pickle.dumps(-2 ** 64, protocol=2), ["byte 2:", "64"])
    out["memo_miss"] = (b"\x80\x02h\x05.", ["byte 2:", "memo entry 5"])
    out["memo_miss_p0"] = (b"g7\n.", ["byte 0:", "memo entry 7"])
    out["unknown_opcode"] = (b"\x80\x02\xff.", ["byte 2:", "unknown opcode 0xff"])
    out["underflow_append"] = (b"\x80\x02]a.", ["byte 3:", "APPEND", "underflow"])
    out["underflow_setitems"] = (b"\x80\x02(K\x01u.", ["byte 5:", "SETITEMS", "underflow"])
    out["no_mark"] = (b"\x80\x02]K\x01e.", ["byte 5:", "APPENDS", "MARK"])
    out["mark_open_at_stop"] = (b"\x80\x02(N.", ["byte 4:", "MARK"])
    out["two_values_at_stop"] = (b"\x80\x02NN.", ["byte 4:", "2 values"])
    cycle = []
    cycle.append(cycle)
    out["cycle"] = (pickle.dumps(cycle, protocol=2), ["contains itself"])
    out["list_key"] = (b"\x80\x02}]K\x01s.", ["byte 6:", "SETITEM", "list as a dict key"])
    out["append_to_dict"] = (b"\x80\x02}K\x01a.", ["byte 5:", "APPEND", "dict"])
    out["append_to_tuple"] = (b"\x80\x02)K\x01a.", ["byte 5:", "APPEND", "tuple"])
    out["odd_dict"] = (b"\x80\x02(K\x01d.", ["byte 5:", "DICT", "odd"])
    out["trailing_bytes"] = (b"\x80\x02N.xx", ["byte 4:", "2 bytes follow"])
    out["protocol_6"] = (b"\x80\x06N.", ["byte 0:", "protocol 6"])
    out["bad_int_text"] = (b"I12x\n.", ["byte 0:", "INT", "'12x'"])
    out["bad_float_text"] = (b"Fabc\n.", ["byte 0:", "FLOAT"])
    out["unquoted_string"] = (b"Sabc\n.", ["byte 0:", "STRING", "quoted"])
    out["no_stop"] = (b"\x80\x02N", ["byte 3:", "truncated"])
    return out


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def viz_page(data, kind):
    """torch/cuda/_memory_viz.py's _format_viz, as PyTorch 2.1 to 2.11 writes it."""
    template = r"""
<!DOCTYPE html>
<html>
<head>
</head>
<body>
<script type="module">
import {add_local_files} from "https://cdn.jsdelivr.net/gh/pytorch/pytorch@main/torch/utils/viz/MemoryViz.js"
const local_files = $SNAPSHOT
add_local_files(local_files, $VIZ_KIND)
</script>
</body>
"""
    buffer = pickle.dumps(data)
    buffer += b"\x00" * (3 - len(buffer) % 3)
    encoded = base64.b64encode(buffer).decode("utf-8")
    payload = json.dumps([{"name": "snapshot.pickle", "base64": encoded}])
    return template.replace("$VIZ_KIND", repr(kind)).replace("$SNAPSHOT", payload)


def main():
    for sub in ("plain", "hostile", "viz", "gzip"):
        shutil.rmtree(os.path.join(HERE, sub), ignore_errors=True)

    expected = {}
    covered = set()
    files = {f"snapshot_p{p}": pickle.dumps(snapshot_like(p), protocol=p) for p in range(6)}
    files.update(handmade())
    for name, data in files.items():
        value = pickle.loads(data)
        covered.update(op.name for op, _a, _p in pickletools.genops(data))
        write(os.path.join(HERE, "plain", name + ".pickle"), data)
        expected[name + ".pickle"] = tagged(value)
    missing = [op for op in REQUIRED if op not in covered]
    assert not missing, f"opcodes no file covers: {missing}"
    with open(os.path.join(HERE, "plain", "expected.json"), "w") as f:
        json.dump(expected, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")

    words = {}
    for name, (data, must) in hostile().items():
        # never pickle.loads()ed here: some would run os.system
        write(os.path.join(HERE, "hostile", name + ".pickle"), data)
        words[name + ".pickle"] = must
    with open(os.path.join(HERE, "hostile", "expected.json"), "w") as f:
        json.dump(words, f, indent=1, sort_keys=True)
        f.write("\n")

    snap = snapshot_like(3)  # the smaller form (no 600 names, no 2001-item list), pickled with protocol 4
    write(os.path.join(HERE, "viz", "trace_plot.html"), viz_page(snap, "Active Memory Timeline").encode())
    write(os.path.join(HERE, "viz", "segment_plot.html"), viz_page({"segments": [], "device_traces": [[]]},
                                                                  "Allocator State History").encode())
    with open(os.path.join(HERE, "viz", "expected.json"), "w") as f:
        json.dump({"trace_plot.html": tagged(snap),
                   "segment_plot.html": tagged({"segments": [], "device_traces": [[]]})}, f, separators=(",", ":"))
        f.write("\n")

    timeline = [[1000, 2000, 3000], [[0, 10, 20, 0, 0, 5, 0, 0, 0], [0, 10, 20, 0, 7, 5, 0, 0, 0],
                                     [0, 10, 20, 30, 0, 5, 0, 0, 0]]]
    packed = gzip.compress(json.dumps(timeline).encode(), mtime=0)
    write(os.path.join(HERE, "gzip", "timeline.json.gz"), packed)
    write(os.path.join(HERE, "gzip", "timeline.json"), json.dumps(timeline).encode())
    write(os.path.join(HERE, "gzip", "bomb_10mib.gz"), gzip.compress(b"\x00" * (10 << 20), compresslevel=9, mtime=0))
    corrupt = bytearray(packed)
    corrupt[len(corrupt) // 2] ^= 0xFF
    corrupt[len(corrupt) // 2 + 1] ^= 0x5A
    write(os.path.join(HERE, "gzip", "corrupt.json.gz"), bytes(corrupt))
    write(os.path.join(HERE, "gzip", "truncated.json.gz"), packed[: len(packed) - 12])
    write(os.path.join(HERE, "gzip", "two_members.json.gz"),
          gzip.compress(b"[1, ", mtime=0) + gzip.compress(b"2]", mtime=0))
    # The fuzz harness's seeds (tests/fuzz/corpus/plain_data): a few of the files above.
    corpus = os.path.join(HERE, "..", "..", "fuzz", "corpus", "plain_data")
    shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(corpus)
    for seed in ("plain/snapshot_p0.pickle", "plain/snapshot_p2.pickle", "plain/snapshot_p5.pickle",
                 "plain/p0_strings.pickle", "plain/append_after_get.pickle", "plain/binunicode8_bytes8.pickle",
                 "plain/long4.pickle", "plain/frozenset_empty_set.pickle", "plain/dup_pop.pickle",
                 "hostile/stack_global_late.pickle", "hostile/reduce_os_system_p2.pickle", "gzip/timeline.json.gz",
                 "gzip/timeline.json", "viz/segment_plot.html"):
        shutil.copy(os.path.join(HERE, seed), corpus)
    print(f"{len(files)} plain pickles, {len(words)} hostile ones; opcodes covered: {len(covered)}")


if __name__ == "__main__":
    main()
