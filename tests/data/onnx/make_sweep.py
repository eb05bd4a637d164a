#!/usr/bin/python3
"""Chains of computed reshapes as torch 1.13 exports them at opset 13, for tests/core/tst_onnximport.cpp.

Issue 34 item 2: torchvision's shufflenet_v2_x1_0 and vit_b_16, exported by torch 1.13 at opset 13 (training
mode, the batch dynamic), did not import. ONNX 1.12's Reshape before opset 14 reads only a stored target, so
each Reshape whose target is computed from x.shape waited for a pinning pass, and the next block's target
is computed from that Reshape's output: one or two passes per block, more than the eight the import allows.
Each network here repeats such a block more than eight times, written in sweep/ (beside this file) by torch
1.13's exporter (TorchScript, opset 13, training mode, the batch dynamic on the input and the output), with
measured.json: the bytes autograd saves per sample (saved_tensors_hooks, each storage once, parameters and
the input excluded; batch 4 less batch 2, halved) and the parameters.

* shuffle_chain: Conv2d(3, 8, 3, p 1), then 10 ShuffleNetV2 units of 8 channels (chunk in two, the second
  half through Conv2d(4, 4, 1) -> BatchNorm2d -> ReLU, concatenated, then torchvision's channel_shuffle:
  view(b, 2, c // 2, h, w), transpose, view(b, -1, h, w)), Flatten, Linear(512, 10); input [3, 8, 8].
* attention_chain: Conv2d(3, 16, 4, stride 4) to 4 tokens of 16, then 10 times what torch 1.13's
  multi_head_attention_forward does around its output projection: x.transpose(0, 1) to [T, B, E],
  reshape(T * B, E), F.linear (a Gemm), view(T, B, E), transpose back, ReLU; Flatten, Linear(64, 10).

No CPU -> CUDA adjustment applies (convolution, batch norm, relu, addmm, the copies keep the same on both).
Weights are stripped (every initializer's data emptied, dims kept): Headroom reads only their shapes.

    /usr/bin/python3 tests/data/onnx/make_sweep.py [--out DIR]

Debian 12's python3-torch 1.13.1, python3-onnx 1.12 (CPU).
"""

import argparse
import json
import os
import warnings

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from make_noops import saved_bytes  # beside this file

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))


def channel_shuffle(x, groups):  # torchvision.models.shufflenetv2.channel_shuffle
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(b, -1, h, w)


class Unit(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.branch = nn.Sequential(nn.Conv2d(c // 2, c // 2, 1, bias=False), nn.BatchNorm2d(c // 2), nn.ReLU())

    def forward(self, x):
        x1, x2 = x.chunk(2, dim=1)
        return channel_shuffle(torch.cat((x1, self.branch(x2)), dim=1), 2)


class ShuffleChain(nn.Module):
    shape = (3, 8, 8)

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.units = nn.Sequential(*[Unit(8) for _ in range(10)])
        self.fc = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.units(self.stem(x)), 1))


class Projection(nn.Module):
    def __init__(self, e):
        super().__init__()
        self.proj = nn.Linear(e, e)

    def forward(self, x):  # [B, T, E]
        t = x.transpose(0, 1)
        tgt, bsz, e = t.shape
        y = F.linear(t.reshape(tgt * bsz, e), self.proj.weight, self.proj.bias)
        return torch.relu(y.view(tgt, bsz, y.size(1)).transpose(0, 1))


class AttentionChain(nn.Module):
    shape = (3, 8, 8)

    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, 16, 4, stride=4)
        self.blocks = nn.Sequential(*[Projection(16) for _ in range(10)])
        self.fc = nn.Linear(4 * 16, 10)

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2)
        return self.fc(torch.flatten(self.blocks(t), 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "sweep"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    results = {}
    for name, cls in (("shuffle_chain", ShuffleChain), ("attention_chain", AttentionChain)):
        model = cls().train()
        per_sample = (saved_bytes(model, 4) - saved_bytes(model, 2)) // 2
        results[name] = {"parameters": sum(p.numel() for p in model.parameters()),
                         "saved_bytes_per_sample": per_sample}
        path = os.path.join(args.out, name + ".onnx")
        torch.onnx.export(model, torch.randn(2, *cls.shape), path, opset_version=13,
                          training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                          input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
        m = onnx.load(path)
        for t in m.graph.initializer:
            if t.data_type == onnx.TensorProto.FLOAT:
                t.ClearField("raw_data")
                t.ClearField("float_data")
        onnx.save(m, path)
    with open(os.path.join(args.out, "measured.json"), "w") as f:
        json.dump({"torch": torch.__version__, "networks": results}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
