#!/usr/bin/python3
"""Random tensors multiplied in, and stacked recurrent layers with dropout, for tests/core/tst_onnxrandom.cpp.

Writes into random/ (beside this file), each with the PyTorch module it stands for:

* stochastic_depth_row.onnx, stochastic_depth_batch.onnx: Conv2d(3, 4, 3, padding 1) -> ReLU ->
  Conv2d(4, 4, 3, padding 1) -> torchvision.ops.StochasticDepth(0.25, mode) -> + the ReLU's output, input
  [B, 3, 8, 8], exported by torch 1.13 (TorchScript, opset 17, training mode) from a twin that writes the
  noise out (bernoulli_noise): RandomUniformLike / Less / Cast, then Div and Mul, as PyTorch 2.11 writes
  convnext_tiny's; measured with torchvision's module.
* inplace_dropout_noise.onnx: Linear(8, 16) -> x * (the twin of) empty_like(x).bernoulli_(0.75).div_(0.75) ->
  Linear(16, 3), torch 1.13 (TorchScript, opset 17): the noise the size of x that F.dropout(inplace=True)
  draws (ATen's _dropout_impl<inplace>), as the dynamo exporter writes nn.Dropout(0.25, inplace=True);
  measured with that module.
* gru_two_modules.onnx: nn.GRU(8, 16) -> nn.Dropout(0.1) -> nn.GRU(16, 16), sequence first (input [B, 5, 8]
  transposed), torch 1.13
  (TorchScript, opset 17): two modules, each with its own zeros for h_0, must stay two layers.
* gru_stacked_dynamo.onnx, lstm_stacked_dynamo.onnx: hand-built as the dynamo exporter (PyTorch 2.11) writes
  tests/data/torch2's gru_cls / lstm_cls (node for node, its names too) at T = 7: Embedding(50, 128) ->
  GRU(128, 256, 2 layers, batch_first, dropout 0.1) (LSTM: bidirectional) -> out[:, -1] -> Linear: one
  ONNX node per layer, the initial states sliced from one zeros tensor, a Dropout between the layers.

measured.json: for the first three, the bytes autograd saves per sample (saved_tensors_hooks, each storage
once, parameters and the input excluded; batch 4 less batch 2, halved) and the parameters, torch 1.13 on the
CPU. No CPU -> CUDA adjustment applies: convolution, ReLU, mul, add, addmm and dropout_ save the same on both
(dropout_ is never the fused native_dropout: aten/src/ATen/native/Dropout.cpp).

rnn_cuda_h100.json: what _cudnn_rnn saves on CUDA (PyTorch 2.11.0+cu130, cuDNN 9.19, one H100; the probe
below, run once with python3 on that machine), for nn.GRU / nn.LSTM(128, H, L layers, batch_first,
dropout p, D directions) on a random [B, T, 128] input that is excluded: each saved storage's bytes, shape
and dtype at B = 2 and 4, for L 1-3, D 1-2, p 0 and 0.1, T 7 and 64, H 100 and 256; and the same for
torchvision's StochasticDepth(0.2, "row") and nn.Dropout(0.2) in and out of place on [B, 8, 5, 5].

    /usr/bin/python3 tests/data/onnx/make_random.py [--out DIR]

Debian 12's python3-torch 1.13.1, python3-torchvision 0.14.1, python3-onnx 1.12 (CPU).
"""

import argparse
import io
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import make_exporters  # noqa: E402
import make_onnx  # noqa: E402
import onnx  # noqa: E402
import onnx.helper as oh  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision  # noqa: E402
from onnx import TensorProto  # noqa: E402

warnings.filterwarnings("ignore")

PROBE = r'''
import torch, json, itertools, os
import torch.nn as nn
res = []
def saved(model, x, excluded):
  seen = {}
  def pack(t):
    st = t.untyped_storage()
    p = st.data_ptr()
    if p and p not in excluded and p not in seen:
      seen[p] = (st.nbytes(), tuple(t.shape), str(t.dtype))
    return t
  with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    out = model(x)
  return list(seen.values())
for cell, L, D, p, T, H in itertools.product(["GRU", "LSTM"], [1, 2, 3], [1, 2], [0.0, 0.1], [64, 7], [256, 100]):
  if L == 1 and p > 0: continue
  rnn = getattr(nn, cell)(128, H, num_layers=L, batch_first=True, dropout=p, bidirectional=D == 2).cuda().train()
  excl = {q.untyped_storage().data_ptr() for q in rnn.parameters()}
  for B in (2, 4):
    x = torch.randn(B, T, 128, device="cuda", requires_grad=True)
    s = saved(lambda z: rnn(z)[0], x, excl | {x.untyped_storage().data_ptr()})
    res.append(dict(cell=cell, L=L, D=D, p=p, T=T, H=H, B=B, saved=s))
import torchvision
sd = torchvision.ops.StochasticDepth(0.2, "row").train()
for B in (2, 4):
  x = torch.randn(B, 8, 5, 5, device="cuda", requires_grad=True)
  y = x * 2
  res.append(dict(cell="sd", B=B, saved=saved(sd, y, {x.untyped_storage().data_ptr(), y.untyped_storage().data_ptr()})))
  for inplace in (False, True):
    dr = nn.Dropout(0.2, inplace=inplace)
    y = x * 2
    res.append(dict(cell="dropout", inplace=inplace, B=B, saved=saved(dr, y, {x.untyped_storage().data_ptr()})))
json.dump(res, open(os.environ["OUT"] + "/rnn.json", "w"))
'''


def bernoulli_noise(size, like, keep):
    """empty(size).bernoulli_(keep).div_(keep) as torch 2.x's exporters write it (ConstantOfShape or the tensor
    itself, RandomUniformLike, Less, Cast, Div): torch 1.13 cannot export bernoulli_ ("out parameter is not
    supported"), so the export takes this twin, and the module itself is measured."""
    base = like if size is None else torch.zeros(size, dtype=like.dtype)
    return (torch.rand_like(base) < keep).to(like.dtype) / keep


class StochasticDepthBlock(nn.Module):
    def __init__(self, mode, written_out=False):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
        self.mode = mode
        self.sd = None if written_out else torchvision.ops.StochasticDepth(0.25, mode)

    def forward(self, x):
        y = self.relu(self.conv1(x))
        z = self.conv2(y)
        if self.sd is not None:
            return y + self.sd(z)
        size = [z.shape[0], 1, 1, 1] if self.mode == "row" else [1, 1, 1, 1]
        return y + z * bernoulli_noise(size, z, 0.75)


class NoiseDropout(nn.Module):
    """nn.Dropout(0.25, inplace=True) between two Linears, written out (measured with the module itself)."""

    def __init__(self, written_out):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.drop = None if written_out else nn.Dropout(0.25, inplace=True)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        y = self.fc1(x)
        if self.drop is not None:
            return self.fc2(self.drop(y))
        return self.fc2(y * bernoulli_noise(list(y.shape), y, 0.75))


class TwoGrus(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.GRU(8, 16)
        self.d = nn.Dropout(0.1)
        self.b = nn.GRU(16, 16)

    def forward(self, x):  # [B, T, 8]: sequence first inside
        return self.b(self.d(self.a(x.transpose(0, 1))[0]))[0].transpose(0, 1)


def saved_per_sample(model, make_input):
    """measure_torch2.py's saved_tensors: bytes saved per sample (each storage once), params and input out."""
    params = {p.storage().data_ptr() for p in model.parameters()}
    totals = {}
    for batch in (2, 4):
        x = make_input(batch)
        seen = {}

        def pack(t):
            ptr = t.storage().data_ptr()
            if ptr and ptr not in params and ptr != x.storage().data_ptr() and ptr not in seen:
                seen[ptr] = t.storage().nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model(x)
        totals[batch] = sum(seen.values())
    return {"saved_bytes_per_sample": (totals[4] - totals[2]) // 2,
            "saved_bytes_fixed": totals[2] - (totals[4] - totals[2]),
            "parameters": sum(p.numel() for p in model.parameters())}


def export17(model, example):
    model.train()
    buf = io.BytesIO()
    torch.onnx.export(model, example, buf, opset_version=17, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                      **make_onnx.TRAINING)
    return make_onnx.strip(onnx.load_from_string(buf.getvalue()))


def stacked_dynamo(lstm):
    """gru_cls / lstm_cls as PyTorch 2.11's dynamo exporter writes them (names from the real files), T = 7."""
    n = oh.make_node
    vocab, emb, hidden, steps = 50, 128, 256, 7
    gates, dirs = (4, 2) if lstm else (3, 1)
    op = "LSTM" if lstm else "GRU"
    i64 = make_exporters.i64
    weight = make_exporters.weight
    nodes = [
        n("Shape", ["input"], ["val_0"], "node_Shape_0", start=0, end=1),
        n("Gather", ["embedding.weight", "input"], ["embedding"], "node_embedding", axis=0),
        n("Concat", ["val_4", "val_0", "val_6"], ["val_7"], "node_Concat_7", axis=0),
        n("Expand", ["val_2", "val_7"], ["zeros"], "node_zeros"),
        n("Transpose", ["embedding"], ["val_8"], "node_Transpose_8", perm=[1, 0, 2]),
    ]
    inits = [weight("embedding.weight", [vocab, emb]), oh.make_tensor("val_2", TensorProto.FLOAT, [], [0.0]),
             i64("val_4", [2 * dirs]), i64("val_6", [hidden]), i64("val_10", [0]), i64("val_11", [dirs]),
             i64("val_end", [2 * dirs]), i64("val_s2", [2]), i64("val_s3", [3]), i64("val_s4", [4]),
             i64("val_59", [-1]), oh.make_tensor("val_63", TensorProto.FLOAT, [], [0.1]),
             oh.make_tensor("val_64", TensorProto.BOOL, [], [True]), i64("val_113", [-1], []),
             weight("head.weight", [5, dirs * hidden]), weight("head.bias", [5])]
    x = "val_8"
    for layer, features in ((0, emb), (1, dirs * hidden)):
        p = f"l{layer}_"
        inits += [weight(f"W_l{layer}", [dirs, gates * hidden, features]),
                  weight(f"R_l{layer}", [dirs, gates * hidden, hidden]),
                  weight(f"B_l{layer}", [dirs, 2 * gates * hidden])]
        start, end = ("val_10", "val_11") if layer == 0 else ("val_11", "val_end")
        inputs = [x, f"W_l{layer}", f"R_l{layer}", f"B_l{layer}", "", p + "h0"] + ([p + "h0"] if lstm else [])
        attrs = dict(hidden_size=hidden, direction="bidirectional" if lstm else "forward", layout=0)
        attrs.update(input_forget=0) if lstm else attrs.update(linear_before_reset=1)
        nodes += [
            n("Slice", ["zeros", start, end, "val_10"], [p + "h0"], f"node_Slice_{p}h0"),
            n(op, inputs, [p + "Y"], f"node_{op}_{layer}", **attrs),
            n("Transpose", [p + "Y"], [p + "Yt"], f"node_Transpose_{p}", perm=[0, 2, 1, 3]),
            n("Shape", [p + "Yt"], [p + "s"], f"node_Shape_{p}", start=0),
            n("Slice", [p + "s", "val_10", "val_11" if dirs == 1 else "val_one"], [p + "s0"], f"node_Slice_{p}0"),
            n("Slice", [p + "s", "val_11" if dirs == 1 else "val_one", "val_s2"], [p + "s1"], f"node_Slice_{p}1"),
            n("Slice", [p + "s", "val_s2", "val_s3"], [p + "s2"], f"node_Slice_{p}2"),
            n("Slice", [p + "s", "val_s3", "val_s4"], [p + "s3"], f"node_Slice_{p}3"),
            n("Mul", [p + "s2", p + "s3"], [p + "m"], f"node_Mul_{p}"),
            n("Reshape", [p + "m", "val_59"], [p + "mr"], f"node_Reshape_{p}m", allowzero=0),
            n("Concat", [p + "s0", p + "s1", p + "mr"], [p + "t"], f"node_Concat_{p}", axis=0),
            n("Reshape", [p + "Yt", p + "t"], [p + "out"], f"node_Reshape_{p}", allowzero=0),
        ]
        x = p + "out"
        if layer == 0:
            nodes.append(n("Dropout", [x, "val_63", "val_64"], ["val_65"], "node_Dropout_64"))
            x = "val_65"
    if dirs != 1:
        inits.append(i64("val_one", [1]))
    nodes += [
        n("Transpose", [x], ["getitem"], "node_rnn__0", perm=[1, 0, 2]),
        n("Gather", ["getitem", "val_113"], ["select"], "node_select", axis=1),
        n("Gemm", ["select", "head.weight", "head.bias"], ["output"], "node_linear", transB=1),
    ]
    ids = oh.make_tensor_value_info("input", TensorProto.INT64, ["batch", steps])
    return make_exporters.dynamo_model(nodes, [ids], inits, ("lstm" if lstm else "gru") + "_stacked_dynamo")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "random"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    measured = {}
    for mode in ("row", "batch"):
        torch.manual_seed(0)
        model = StochasticDepthBlock(mode).train()
        name = f"stochastic_depth_{mode}"
        twin = StochasticDepthBlock(mode, written_out=True)
        make_onnx.save(export17(twin, (torch.randn(2, 3, 8, 8),)), args.out, name + ".onnx")
        measured[name] = saved_per_sample(model, lambda b: torch.randn(b, 3, 8, 8))
    torch.manual_seed(0)
    make_onnx.save(export17(NoiseDropout(True), (torch.randn(2, 8),)), args.out, "inplace_dropout_noise.onnx")
    measured["inplace_dropout_noise"] = saved_per_sample(NoiseDropout(False).train(), lambda b: torch.randn(b, 8))
    make_onnx.save(export17(TwoGrus(), (torch.randn(2, 5, 8),)), args.out, "gru_two_modules.onnx")
    for lstm in (False, True):
        model = stacked_dynamo(lstm)
        make_onnx.save(model, args.out, ("lstm" if lstm else "gru") + "_stacked_dynamo.onnx")
    with open(os.path.join(args.out, "measured.json"), "w") as f:
        json.dump({"torch": torch.__version__, "networks": measured}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(measured, indent=1))


if __name__ == "__main__":
    main()
