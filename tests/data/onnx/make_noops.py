#!/usr/bin/python3
"""Operators that keep their input, with what an exporter may write before them, for tests/core/tst_onnxnoops.cpp.

Issue 34 item 1: a small CNN with nn.AvgPool2d(2), which torch 1.13 writes as a zero Pad and an AveragePool,
imported with 25 % fewer activations than autograd keeps. Each network here is one such case, written in
noops/ (beside this file) by torch 1.13's exporter (TorchScript, opset 13, training mode, the batch dynamic
on the input and the output), with measured.json: the bytes autograd saves per sample (saved_tensors_hooks,
each storage once, parameters and the input excluded; batch 4 less batch 2, halved) and the parameters.

* pool_cnn: Conv2d(3, 16, 3, p 1) -> Conv2d(16, 16, 3, p 2, dilation 2, groups 4) -> BatchNorm2d ->
  LeakyReLU(0.1) -> AvgPool2d(2) (a zero Pad, then AveragePool) -> Conv2d(16, 8, 3, p 1) -> SiLU -> Flatten ->
  Linear(2048, 10), input [3, 32, 32]: the issue's network (global pooling left out: torch 1.13 keeps the
  input of mean(), PyTorch 2.x only its sizes).
* leaky_conv: Conv2d(3, 8, 3) -> BatchNorm2d -> LeakyReLU -> Conv2d(8, 8, 3) -> Flatten -> Linear(1152, 4),
  input [3, 16, 16]: out of place, leaky_relu keeps its input and the convolution its output.
* zero_pad_maxpool: Conv2d(3, 8, 3) -> ReLU -> F.pad(x, (0, 0, 0, 0)) -> MaxPool2d(2) -> Flatten ->
  Linear(392, 4), input [3, 16, 16]: a zero pad is a copy in PyTorch (constant_pad_nd), which max pooling keeps.
* reshape_same: Linear(16, 32) -> x * 2 -> x.reshape(x.shape) -> Linear(32, 4), input [16]: the second
  Linear keeps the product, through a Reshape to its own shape.
* eval_dropout: Conv2d(3, 8, 3) -> BatchNorm2d -> Tanh -> Dropout(0.5) in eval mode (the rest training) ->
  Conv2d(8, 8, 3) -> Flatten -> Linear(1152, 4), input [3, 16, 16]: exported with TrainingMode.PRESERVE.
* cast_same: Linear(16, 32) -> Tanh -> x.to(torch.float32) -> Linear(32, 4), input [16].

No CPU -> CUDA adjustment applies to these operators (convolution, batch norm, leaky_relu, avg_pool2d,
silu, max_pool2d_with_indices, addmm, mul, tanh, constant_pad_nd keep the same on both).

    /usr/bin/python3 tests/data/onnx/make_noops.py [--out DIR]

Debian 12's python3-torch 1.13.1, python3-onnx 1.12 (CPU).
"""

import argparse
import json
import os
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))


class PoolCnn(nn.Module):
    shape = (3, 32, 32)

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=4)
        self.bn = nn.BatchNorm2d(16)
        self.act = nn.LeakyReLU(0.1)
        self.pool = nn.AvgPool2d(2)
        self.c3 = nn.Conv2d(16, 8, 3, padding=1)
        self.silu = nn.SiLU()
        self.fc = nn.Linear(8 * 16 * 16, 10)

    def forward(self, x):
        x = self.pool(self.act(self.bn(self.c2(self.c1(x)))))
        return self.fc(torch.flatten(self.silu(self.c3(x)), 1))


class LeakyConv(nn.Module):
    shape = (3, 16, 16)

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.act = nn.LeakyReLU()
        self.c2 = nn.Conv2d(8, 8, 3)
        self.fc = nn.Linear(8 * 12 * 12, 4)

    def forward(self, x):
        return self.fc(torch.flatten(self.c2(self.act(self.bn(self.c1(x)))), 1))


class ZeroPadMaxPool(nn.Module):
    shape = (3, 16, 16)

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 7 * 7, 4)

    def forward(self, x):
        x = F.pad(torch.relu(self.c1(x)), (0, 0, 0, 0))
        return self.fc(torch.flatten(self.pool(x), 1))


class ReshapeSame(nn.Module):
    shape = (16,)

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(16, 32)
        self.l2 = nn.Linear(32, 4)

    def forward(self, x):
        x = self.l1(x) * 2
        return self.l2(x.reshape(x.shape))


class EvalDropout(nn.Module):
    shape = (3, 16, 16)

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.drop = nn.Dropout(0.5)
        self.c2 = nn.Conv2d(8, 8, 3)
        self.fc = nn.Linear(8 * 12 * 12, 4)

    def forward(self, x):
        x = self.drop(torch.tanh(self.bn(self.c1(x))))
        return self.fc(torch.flatten(self.c2(x), 1))


class CastSame(nn.Module):
    shape = (16,)

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(16, 32)
        self.l2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)).to(torch.float32))


NETWORKS = {
    "pool_cnn": PoolCnn,
    "leaky_conv": LeakyConv,
    "zero_pad_maxpool": ZeroPadMaxPool,
    "reshape_same": ReshapeSame,
    "eval_dropout": EvalDropout,
    "cast_same": CastSame,
}


def saved_bytes(model, batch):
    """The bytes autograd saves in one forward at `batch`: each storage once, parameters and the input left out."""
    x = torch.randn(batch, *model.shape)
    excluded = {p.data_ptr() for p in model.parameters()} | {x.data_ptr()}
    storages = {}

    def pack(t):
        if t.data_ptr() not in excluded:
            storages[t.storage().data_ptr()] = t.storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(storages.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "noops"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(34)
    measured = {"torch": torch.__version__, "networks": {}}
    for name, cls in NETWORKS.items():
        model = cls().train()
        mode = torch.onnx.TrainingMode.TRAINING
        if name == "eval_dropout":
            model.drop.eval()
            mode = torch.onnx.TrainingMode.PRESERVE
        at2, at4 = saved_bytes(model, 2), saved_bytes(model, 4)
        measured["networks"][name] = {
            "parameters": sum(p.numel() for p in model.parameters()),
            "saved_bytes_per_sample": (at4 - at2) // 2,
            "saved_bytes_fixed": at2 - (at4 - at2),
        }
        torch.onnx.export(model, torch.randn(2, *model.shape), os.path.join(args.out, name + ".onnx"),
                          opset_version=13, training=mode, do_constant_folding=False, input_names=["x"],
                          output_names=["y"], dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    with open(os.path.join(args.out, "measured.json"), "w") as f:
        json.dump(measured, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
