#!/usr/bin/python3
"""Small reproductions of what PyTorch 2.x's exporters write, for tests/core/tst_onnxexporters.cpp.

The real exports of issue 24 (PyTorch 2.11: torchvision's vit_b_16 and convnext_tiny, an nn.LSTM language
model, each from the TorchScript exporter in training mode and from the dynamo exporter) are hundreds of
megabytes. Each file here shows one of their patterns at a few kilobytes, and each comes with the PyTorch
module it stands for, measured as measure_networks.py measures (tests/reference/measure.py's
saved_tensors_hooks method at batches 2 and 4, CPU -> CUDA adjusted): the figures go to
exporters/measured.json, which the test reads next to the hand counts it writes out.

* vit_class_token_opset17.onnx: torchvision's VisionTransformer (the vit_b_16 code; image 32, patch 8, one
  layer, 2 heads, width 16) exported by torch 1.13 at opset 17 in training mode: the class token's
  `expand(n, -1, -1)` with n from x.shape[0], written as Shape/Gather/Concat/Reshape/Equal/Where/Expand, then
  the Concat with the patch tokens.
* class_token_heads_opset17.onnx: the same class token, then attention written out with its heads folded
  into the batch axis, every size traced from the shape after the Concat (as nn.MultiheadAttention's code
  does; torch 2.x's TorchScript export of vit_b_16 reads them that way): the sizes are multiples of the
  batch only if the Expand's output keeps the batch symbol.
* lstm_final_hidden.onnx: `_, (h, _) = nn.LSTM(8, 16, batch_first=True)(x)` then Linear(h[-1]), torch 1.13,
  opset 17: the ONNX LSTM's Y_h used and its Y not.
* lstm_final_cell.onnx: the same with the cell state c[-1]: refused (the output sequence does not hold it).
* lstm_lm_dynamo.onnx: hand-built as the dynamo exporter writes an Embedding(50, 8) -> nn.LSTM(8, 16,
  2 layers, batch_first=True) -> Linear(16, 50) language model (node names, opset 20, the initial states as
  slices of one Expand of zeros, each layer's Y brought back by Transpose [0, 2, 1, 3] and a Reshape whose
  target is computed from the shape), copied node for node from the real export's structure at small sizes.
* as_strided_dynamo.onnx: hand-built as the dynamo exporter writes ConvNeXt's head: a mean over H and W,
  then torch's as_strided(size [B, 8, 1, 1], stride [8, 1, 1, 1]) as a Reshape to [-1] and a Gather of
  indices Range(B) * 8 + arange(8) + 0, then LayerNorm between permutes, flatten and Linear.

    /usr/bin/python3 tests/data/onnx/make_exporters.py [--out DIR]

Debian 12's python3-torch 1.13.1, python3-torchvision 0.14.1, python3-onnx 1.12 (CPU).
"""

import argparse
import io
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "reference"))
sys.path.insert(0, HERE)

import make_onnx  # noqa: E402
import measure_networks  # noqa: E402
import onnx  # noqa: E402
import onnx.helper as oh  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision  # noqa: E402
from onnx import TensorProto  # noqa: E402

warnings.filterwarnings("ignore")

VOCAB, EMB, HIDDEN, STEPS = 50, 8, 16, 6


class FinalState(nn.Module):
    """nn.LSTM(8, 16, batch_first=True) whose final hidden (or cell) state h_n[-1] feeds a Linear."""

    def __init__(self, cell=False):
        super().__init__()
        self.cell = cell
        self.rnn = nn.LSTM(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        _, (h, c) = self.rnn(x)
        return self.fc((c if self.cell else h)[-1])


class LstmLM(nn.Module):
    """lstm_lm of the real exports at small sizes: Embedding -> 2-layer batch_first LSTM -> Linear."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.lstm = nn.LSTM(EMB, HIDDEN, num_layers=2, batch_first=True)
        self.head = nn.Linear(HIDDEN, VOCAB)

    def forward(self, ids):
        out, _ = self.lstm(self.emb(ids))
        return self.head(out)


class StridedHead(nn.Module):
    """ConvNeXt's stem and head at small sizes, with the as_strided the dynamo exporter decomposes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 4, stride=4)
        self.norm = nn.LayerNorm(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        m = self.conv(x).mean([-1, -2], keepdim=True)
        v = m.as_strided([m.shape[0], 8, 1, 1], [8, 1, 1, 1])
        v = self.norm(v.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return self.fc(v.flatten(1))


class ClassTokenHeads(nn.Module):
    """The class token as torchvision's ViT adds it, then attention with its heads folded into the batch
    axis, every size traced from the tokens' shape as nn.MultiheadAttention's code does (n * heads after
    the Expand and Concat): the sizes stay multiples of the batch only if the Expand keeps the batch."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 8, stride=8)
        self.class_token = nn.Parameter(torch.zeros(1, 1, 16))
        self.q, self.k, self.v = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 16)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = self.conv(x).flatten(2).transpose(1, 2)  # [B, 16, 16]
        n = x.shape[0]
        x = torch.cat([self.class_token.expand(n, -1, -1), x], dim=1)  # [B, 17, 16]
        b, t, d = x.shape

        def heads(y):  # [B, T, 16] -> [B * 2, T, 8]
            return y.reshape(b, t, 2, d // 2).transpose(1, 2).reshape(b * 2, t, d // 2)

        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        a = torch.softmax(q @ k.transpose(1, 2), dim=-1) @ v
        a = a.reshape(b, 2, t, d // 2).transpose(1, 2).reshape(b, t, d)
        return self.fc(a[:, 0])


def tiny_vit():
    return torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2,
                                                hidden_dim=16, mlp_dim=32, num_classes=5)


def export17(model, example):
    model.train()
    buf = io.BytesIO()
    torch.onnx.export(model, example, buf, opset_version=17, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}}, **make_onnx.TRAINING)
    return make_onnx.strip(onnx.load_from_string(buf.getvalue()))


def i64(name, values, dims=None):
    return oh.make_tensor(name, TensorProto.INT64, [len(values)] if dims is None else dims, values)


def weight(name, dims):
    t = TensorProto(name=name, data_type=TensorProto.FLOAT)
    t.dims.extend(dims)  # no data: Headroom reads only dims and dtype
    return t


def dynamo_model(nodes, inputs, inits, name):
    out = oh.make_tensor_value_info("output", TensorProto.FLOAT, None)
    g = oh.make_graph(nodes, name, inputs, [out], initializer=inits)
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 20)], producer_name="pytorch",
                      producer_version="2.11.0 (as written by make_exporters.py)")
    m.ir_version = 10
    return m


def lstm_lm_dynamo():
    """The real dynamo lstm_lm's nodes (its names too) at sizes 50 / 8 / 16, T = 6."""
    n = oh.make_node
    nodes = [
        n("Shape", ["input"], ["val_0"], "node_Shape_0", start=0, end=1),
        n("Gather", ["emb.weight", "input"], ["embedding"], "node_embedding", axis=0),
        n("Concat", ["val_4", "val_0", "val_6"], ["val_7"], "node_Concat_7", axis=0),
        n("Expand", ["val_2", "val_7"], ["zeros"], "node_zeros"),
        n("Transpose", ["embedding"], ["val_14"], "node_Transpose_14", perm=[1, 0, 2]),
    ]
    inits = [weight("emb.weight", [VOCAB, EMB]), oh.make_tensor("val_2", TensorProto.FLOAT, [], [0.0]),
             i64("val_4", [2]), i64("val_6", [HIDDEN]), i64("val_16", [0]), i64("val_17", [1]),
             i64("val_4b", [2]), i64("val_75", [3]), i64("val_77", [4]), i64("val_80", [-1]),
             weight("head.weight.T", [HIDDEN, VOCAB]), weight("head.bias", [VOCAB])]
    x = "val_14"
    for layer, features in ((0, EMB), (1, HIDDEN)):
        p = f"l{layer}_"
        inits += [weight(f"lstm.W_l{layer}", [1, 4 * HIDDEN, features]),
                  weight(f"lstm.R_l{layer}", [1, 4 * HIDDEN, HIDDEN]), weight(f"lstm.B_l{layer}", [1, 8 * HIDDEN])]
        start, end = ("val_16", "val_17") if layer == 0 else ("val_17", "val_4b")
        nodes += [
            n("Slice", ["zeros", start, end, "val_16"], [p + "h0"], f"node_Slice_{p}h0"),
            n("LSTM", [x, f"lstm.W_l{layer}", f"lstm.R_l{layer}", f"lstm.B_l{layer}", "", p + "h0", p + "h0"],
              [p + "Y"], f"node_LSTM_{layer}", hidden_size=HIDDEN, direction="forward", input_forget=0, layout=0),
            n("Transpose", [p + "Y"], [p + "Yt"], f"node_Transpose_{p}", perm=[0, 2, 1, 3]),
            n("Shape", [p + "Yt"], [p + "s"], f"node_Shape_{p}", start=0),
            n("Slice", [p + "s", "val_16", "val_17"], [p + "s0"], f"node_Slice_{p}0"),
            n("Slice", [p + "s", "val_17", "val_4b"], [p + "s1"], f"node_Slice_{p}1"),
            n("Slice", [p + "s", "val_4b", "val_75"], [p + "s2"], f"node_Slice_{p}2"),
            n("Slice", [p + "s", "val_75", "val_77"], [p + "s3"], f"node_Slice_{p}3"),
            n("Mul", [p + "s2", p + "s3"], [p + "m"], f"node_Mul_{p}"),
            n("Reshape", [p + "m", "val_80"], [p + "mr"], f"node_Reshape_{p}m", allowzero=0),
            n("Concat", [p + "s0", p + "s1", p + "mr"], [p + "t"], f"node_Concat_{p}", axis=0),
            n("Reshape", [p + "Yt", p + "t"], [p + "out"], f"node_Reshape_{p}", allowzero=0),
        ]
        x = p + "out"
    nodes += [
        n("Transpose", [x], ["getitem"], "node_lstm__0", perm=[1, 0, 2]),
        n("MatMul", ["getitem", "head.weight.T"], ["val_145"], "node_MatMul_141"),
        n("Add", ["val_145", "head.bias"], ["output"], "node_linear"),
    ]
    ids = oh.make_tensor_value_info("input", TensorProto.INT64, ["batch", STEPS])
    return dynamo_model(nodes, [ids], inits, "lstm_lm_dynamo")


def as_strided_dynamo():
    """ConvNeXt's head as the real dynamo convnext_tiny writes it (node_Reshape_77, node_as_strided)."""
    n = oh.make_node
    nodes = [
        n("Shape", ["input"], ["val_0"], "node_Shape_0", start=0, end=1),
        n("Squeeze", ["val_0"], ["sym_size_int_1"], "node_sym_size_int_1"),
        n("Conv", ["input", "conv.weight", "conv.bias"], ["conv2d"], "node_Conv_0", group=1, pads=[0, 0, 0, 0],
          strides=[4, 4], dilations=[1, 1], kernel_shape=[4, 4]),
        n("ReduceMean", ["conv2d", "val_119"], ["mean"], "node_mean", keepdims=1, noop_with_empty_axes=0),
        n("Reshape", ["mean", "val_120"], ["val_121"], "node_Reshape_77", allowzero=0),
        n("Range", ["val_122", "sym_size_int_1", "val_123"], ["val_130"], "node_Range_86"),
        n("Mul", ["val_130", "val_129"], ["val_131"], "node_Mul_87"),
        n("Unsqueeze", ["val_131", "val_132"], ["val_133"], "node_Unsqueeze_89"),
        n("Add", ["val_133", "val_141"], ["val_142"], "node_Add_98"),
        n("Add", ["val_142", "val_148"], ["val_149"], "node_Add_105"),
        n("Add", ["val_149", "val_148"], ["val_156"], "node_Add_112"),
        n("Gather", ["val_121", "val_156"], ["as_strided"], "node_as_strided", axis=0),
        n("Transpose", ["as_strided"], ["permute_47"], "node_permute_47", perm=[0, 2, 3, 1]),
        n("LayerNormalization", ["permute_47", "norm.weight", "norm.bias"], ["layer_norm"], "node_layer_norm",
          axis=-1, epsilon=1e-5, stash_type=1),
        n("Transpose", ["layer_norm"], ["permute_48"], "node_permute_48", perm=[0, 3, 1, 2]),
        n("Reshape", ["permute_48", "val_163"], ["view"], "node_Reshape_151", allowzero=1),
        n("Gemm", ["view", "fc.weight", "fc.bias"], ["output"], "node_Gemm_152", transB=1),
    ]
    inits = [weight("conv.weight", [8, 3, 4, 4]), weight("conv.bias", [8]), i64("val_119", [-1, -2]),
             i64("val_120", [-1]), oh.make_tensor("val_122", TensorProto.INT64, [], [0]),
             oh.make_tensor("val_123", TensorProto.INT64, [], [1]), oh.make_tensor("val_129", TensorProto.INT64, [], [8]),
             i64("val_132", [1, 2, 3]), i64("val_141", list(range(8)), [1, 8, 1, 1]), i64("val_148", [0], [1, 1, 1, 1]),
             weight("norm.weight", [8]), weight("norm.bias", [8]), i64("val_163", [-1, 8]),
             weight("fc.weight", [5, 8]), weight("fc.bias", [5])]
    image = oh.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 8, 8])
    return dynamo_model(nodes, [image], inits, "as_strided_dynamo")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(HERE, "exporters"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    measure_networks.TOKEN_INPUTS["lstm_lm_dynamo"] = VOCAB
    nets = {
        "vit_class_token_opset17": (tiny_vit, [3, 32, 32], "cross_entropy"),
        "class_token_heads_opset17": (ClassTokenHeads, [3, 32, 32], "cross_entropy"),
        "lstm_final_hidden": (lambda: FinalState(False), [12, 8], "cross_entropy"),
        "lstm_lm_dynamo": (LstmLM, [STEPS], "cross_entropy"),
        "as_strided_dynamo": (StridedHead, [3, 8, 8], "cross_entropy"),
    }
    doc = {"method": "torch " + torch.__version__ + ", torchvision " + torchvision.__version__
           + ", CPU, fp32; measure_networks.measure_network (tests/reference/measure.py's saved-tensor method at "
           "batches " + str(measure_networks.BATCHES) + ", CUDA-adjusted)", "networks": {}}
    for name, (build, shape, loss) in nets.items():
        model, entry = measure_networks.measure_network(name, build, shape, loss)
        doc["networks"][name] = entry
        print(json.dumps(entry), flush=True)
        if name in ("vit_class_token_opset17", "class_token_heads_opset17", "lstm_final_hidden"):
            example = torch.randn([2] + shape)
            make_onnx.save(export17(model.model, example), args.out, name + ".onnx")
    torch.manual_seed(0)
    make_onnx.save(export17(FinalState(True), torch.randn(2, 12, 8)), args.out, "lstm_final_cell.onnx")
    make_onnx.save(lstm_lm_dynamo(), args.out, "lstm_lm_dynamo.onnx")
    make_onnx.save(as_strided_dynamo(), args.out, "as_strided_dynamo.onnx")
    with open(os.path.join(args.out, "measured.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
