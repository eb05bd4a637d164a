#!/usr/bin/python3
"""Writes the ONNX test files of tests/core/tst_onnximport.cpp into this directory.

Run with Debian's interpreter (python3-torch 1.13, python3-torchvision 0.14, python3-onnx 1.12):

    /usr/bin/python3 tests/data/onnx/make_onnx.py [--out DIR]

Real models are exported with torch.onnx.export in training mode (TrainingMode.TRAINING, no constant
folding), so BatchNormalization and Dropout stay in the graph as they run while training. The big
torchvision models are then "stripped": every initializer keeps its name, dtype and dims but loses
its data (Headroom reads only shapes), which takes ResNet-18 from 45 MB to a few KB. Small
hand-built graphs (onnx.helper) cover the cases torch cannot export: asymmetric padding, a missing
input shape, an unsupported opset, an absurd dimension, a fixed batch size.
"""

import argparse
import io
import math
import os
import warnings

import onnx
import onnx.helper as oh
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from onnx import TensorProto

warnings.filterwarnings("ignore")
torch.manual_seed(0)

TRAINING = dict(training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


def export(model, example, opset=15, dynamic_batch=True):
    model.train()
    buf = io.BytesIO()
    axes = {"input": {0: "batch"}, "output": {0: "batch"}} if dynamic_batch else None
    torch.onnx.export(model, example, buf, opset_version=opset, input_names=["input"], output_names=["output"],
                      dynamic_axes=axes, **TRAINING)
    return onnx.load_from_string(buf.getvalue())


def strip(model_proto, keep_elements=16):
    """Drops the data of every initializer with more than keep_elements values (dims and dtype stay)."""
    for t in model_proto.graph.initializer:
        n = 1
        for d in t.dims:
            n *= d
        if n > keep_elements:
            for field in ("raw_data", "float_data", "double_data", "int32_data", "int64_data"):
                t.ClearField(field)
    return model_proto


def save(model_proto, out, name):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        f.write(model_proto.SerializeToString())
    print(f"{name}: {os.path.getsize(path)} bytes")


class LeNet5(nn.Module):
    """resources/presets/lenet5.json: ReLU and max pooling, 61,706 parameters."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)  # exported as Shape/Gather/Concat/Reshape
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class SmallResNet(nn.Module):
    """A residual CNN small enough to keep its real weights (and to truncate byte by byte)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.block1 = Block(8, 8, 1)
        self.block2 = Block(8, 16, 2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x)))
        x = self.block2(self.block1(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class Signal1d(nn.Module):
    """Conv1d, BatchNorm1d, LeakyReLU, average pooling via 2-D, Linear + Sigmoid: the 1-D path."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 8, 5, stride=2, padding=2, dilation=1)
        self.bn = nn.BatchNorm1d(8)
        self.act = nn.LeakyReLU(0.2)
        self.conv2 = nn.Conv1d(8, 8, 3, padding=2, dilation=2, groups=2)
        self.fc = nn.Linear(8 * 32, 4)

    def forward(self, x):
        x = self.act(self.bn(self.conv(x)))
        x = torch.tanh(self.conv2(x))
        return torch.sigmoid(self.fc(torch.flatten(x, 1)))


class Mixed(nn.Module):
    """ConvTranspose2d, Concat, AvgPool2d, SiLU, GELU, Dropout, a LogSoftmax head."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)
        self.pool = nn.AvgPool2d(2, stride=2, count_include_pad=False)
        self.mix = nn.Conv2d(7, 8, 1)
        self.silu = nn.SiLU()
        self.gelu = nn.GELU()
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(8 * 16 * 16, 10)

    def forward(self, x):
        y = self.up(torch.relu(self.down(x)))
        y = torch.cat([y, x], dim=1)
        y = self.silu(self.mix(self.pool(y)))
        y = self.drop(self.gelu(torch.flatten(y, 1)))
        return F.log_softmax(self.fc(y), dim=1)


class SeqModel(nn.Module):
    """Token ids -> Embedding -> LayerNorm -> Linear on [T, D] (MatMul + Add) -> GELU -> Linear -> Softmax."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.norm = nn.LayerNorm(16)
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(32, 8)

    def forward(self, ids):
        return torch.softmax(self.fc2(self.act(self.fc1(self.norm(self.emb(ids))))), dim=-1)


class Unsupported(nn.Module):
    """Three operators Headroom cannot map: HardSwish, Resize (upsampling), Mul by a constant."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.act = nn.Hardswish()

    def forward(self, x):
        y = self.act(self.conv(x))
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")
        return torch.flatten(y * 2.0, 1)


class NewGELU(nn.Module):
    """Hugging Face's NewGELUActivation (GPT-2's gelu_new): GELU's tanh form written in tensor ops."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Patterns(nn.Module):
    """What opset 15 writes as several nodes: LayerNorm (nine nodes; also over two axes and without
    affine parameters), GELU's tanh approximation (nine), Hugging Face's NewGELU (eight)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(16)
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.GELU(approximate="tanh")
        self.fc2 = nn.Linear(32, 16)
        self.new_gelu = NewGELU()
        self.norm2 = nn.LayerNorm([6, 16], elementwise_affine=False, eps=1e-6)
        self.head = nn.Linear(6 * 16, 4)

    def forward(self, x):
        y = self.fc2(self.act(self.fc1(self.norm(x))))
        return self.head(torch.flatten(self.norm2(self.new_gelu(y)), 1))


class EvalMode(nn.Module):
    """Exported in eval mode (the default for a model in eval mode): the BatchNorm2d after the convolution
    is folded into it, the BatchNorm1d after the Linear stays in inference mode, the Dropout is gone."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.fc1 = nn.Linear(8 * 8 * 8, 32)
        self.bn1 = nn.BatchNorm1d(32)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.flatten(F.relu(self.bn(self.conv(x))), 1)
        return self.fc2(self.drop(F.relu(self.bn1(self.fc1(x)))))


class Vocabulary(nn.Module):
    """Operators issue 13's layer kinds cover, as torch 1.13 writes them at opset 15: Hardswish (x *
    HardSigmoid(x)), a squeeze-excitation gate (ReduceMean, HardSigmoid, Mul of two computed tensors), a
    layer scale (Mul by a stored [8, 1, 1]), reflection Pad, InstanceNormalization, ELU, SELU, CELU, PReLU,
    Softplus, Mish (x * tanh(softplus(x))), Resize (bilinear), DepthToSpace (pixel_shuffle), Clip, Div,
    Sub, Abs, Sqrt, Neg, Exp, Transpose, MatMul of two computed tensors, Split (chunk), Slice, Add of a
    stored position table, Concat after a stored class token, Gather of one index."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.gate = nn.Conv2d(8, 8, 1)
        self.gamma = nn.Parameter(torch.ones(8, 1, 1))
        self.norm = nn.InstanceNorm2d(8, affine=True)
        self.prelu = nn.PReLU(8)
        self.shuffle_in = nn.Conv2d(8, 16, 1)
        self.head = nn.Linear(4, 5)

    def forward(self, x):
        y = F.hardswish(self.conv(x))
        y = y * F.hardsigmoid(self.gate(y.mean((2, 3), keepdim=True)))
        y = self.gamma * y
        y = self.norm(F.pad(y, (1, 1, 1, 1), mode="reflect"))
        y = F.softplus(F.celu(F.selu(F.elu(y)), alpha=0.5))
        y = F.mish(self.prelu(y))
        y = F.pixel_shuffle(self.shuffle_in(F.interpolate(y, scale_factor=2.0, mode="bilinear")), 2)
        y = torch.sqrt(torch.abs(y.clamp(-1.0, 1.0) / 2.0 - 1.0)) + torch.exp(-y)
        return self.head(y.mean((2, 3)))


class Tokens(nn.Module):
    """The token half of Vocabulary: [N, 64, 16] tokens through attention written by hand."""

    def __init__(self):
        super().__init__()
        self.position = nn.Parameter(torch.zeros(1, 64, 16))
        self.token = nn.Parameter(torch.zeros(1, 1, 16))
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        z = x.flatten(2).transpose(1, 2) + self.position  # [N, 64, 16]
        z = torch.cat([self.token.expand(x.shape[0], -1, -1), z], dim=1)  # [N, 65, 16]
        scores = torch.softmax(z @ z.transpose(1, 2) / 4.0, dim=-1)
        z = scores @ z
        a, b = z.chunk(2, dim=-1)
        z = a[:, 1:] * torch.sigmoid(b[:, 1:])
        return self.head(z[:, 0] + z.amax(1))


def export_eval(model, example):
    model.eval()
    buf = io.BytesIO()
    torch.onnx.export(model, example, buf, opset_version=15, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    return onnx.load_from_string(buf.getvalue())


def hand_built(out):
    """Graphs torch cannot produce, built with onnx.helper (tiny, weights stripped)."""

    def model(nodes, inputs, outputs, inits, opset=15, name="hand_built"):
        g = oh.make_graph(nodes, name, inputs, outputs, initializer=inits)
        m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)], producer_name="make_onnx.py")
        m.ir_version = 8
        return m

    def weight(name, dims):
        t = TensorProto(name=name, data_type=TensorProto.FLOAT)
        t.dims.extend(dims)  # no data: Headroom reads only dims and dtype
        return t

    x = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])
    y = oh.make_tensor_value_info("y", TensorProto.FLOAT, None)
    # Asymmetric padding: pads [top, left, bottom, right] = [0, 0, 1, 1] (TensorFlow-style "SAME" with stride 2).
    save(model([oh.make_node("Conv", ["x", "w"], ["y"], name="conv_asym", kernel_shape=[3, 3], strides=[2, 2],
                             pads=[0, 0, 1, 1])], [x], [y], [weight("w", [8, 3, 3, 3])]),
         out, "asymmetric_pads.onnx")
    # No shapes: the input has a type but no shape, so nothing downstream can be inferred.
    x_noshape = oh.make_tensor_value_info("x", TensorProto.FLOAT, None)
    save(model([oh.make_node("Relu", ["x"], ["y"], name="relu")], [x_noshape], [y], []), out, "no_shapes.onnx")
    # Opset 5 (older than the supported range) and opset 99 (newer than the ONNX library knows).
    save(model([oh.make_node("Relu", ["x"], ["y"], name="relu")], [x], [y], [], opset=5), out, "opset5.onnx")
    save(model([oh.make_node("Relu", ["x"], ["y"], name="relu")], [x], [y], [], opset=99), out, "opset99.onnx")
    # An absurd dimension: 2^50 channels.
    x_huge = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1 << 50, 16, 16])
    save(model([oh.make_node("Relu", ["x"], ["y"], name="relu")], [x_huge], [y], []), out, "huge_dim.onnx")
    # A fixed batch of 4 (no dim_param) and a symbolic spatial axis.
    x_fixed = oh.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3, 16, 16])
    save(model([oh.make_node("Conv", ["x", "w"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                oh.make_node("Relu", ["c"], ["y"], name="relu")], [x_fixed], [y], [weight("w", [8, 3, 3, 3])]),
         out, "fixed_batch.onnx")
    x_sym = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])
    save(model([oh.make_node("Relu", ["x"], ["y"], name="relu")], [x_sym], [y], []), out, "symbolic_spatial.onnx")
    # Two graph inputs; a STRING input; a node reading a tensor nobody produces; an output that does
    # not depend on the input; a Reshape that merges the batch axis; a Reshape whose target shape depends
    # on the data (so ONNX cannot size its output).
    a = oh.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 4])
    b = oh.make_tensor_value_info("b", TensorProto.FLOAT, ["N", 4])
    save(model([oh.make_node("Add", ["a", "b"], ["y"], name="add")], [a, b], [y], []), out, "two_inputs.onnx")
    s_in = oh.make_tensor_value_info("x", TensorProto.STRING, ["N", 4])
    s_out = oh.make_tensor_value_info("y", TensorProto.STRING, None)
    save(model([oh.make_node("Identity", ["x"], ["y"], name="id")], [s_in], [s_out], []), out, "string_input.onnx")
    save(model([oh.make_node("Relu", ["ghost"], ["y"], name="relu")], [x], [y], []), out, "undefined_tensor.onnx")
    save(model([oh.make_node("Relu", ["x"], ["r"], name="relu"), oh.make_node("Relu", ["w"], ["y"], name="const")],
               [x], [y], [weight("w", [2, 2])]), out, "constant_output.onnx")
    shape_all = oh.make_tensor("flat", TensorProto.INT64, [1], [-1])
    save(model([oh.make_node("Reshape", ["x", "flat"], ["y"], name="merge_batch")], [x], [y], [shape_all]),
         out, "batch_merge.onnx")
    save(model([oh.make_node("ReduceMax", ["x"], ["m"], name="max", axes=[1, 2, 3], keepdims=0),
                oh.make_node("Cast", ["m"], ["si"], name="to_int", to=TensorProto.INT64),
                oh.make_node("Reshape", ["x", "si"], ["r"], name="opaque_reshape"),
                oh.make_node("Relu", ["r"], ["y"], name="relu")], [x], [y], []),
         out, "unknown_shape.onnx")
    # A Conv without kernel_shape whose weight has more axes than its input: crashed ONNX 1.12's shape
    # inference (found by fuzzing); Headroom now fills kernel_shape in from the weight first.
    x2 = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])
    save(model([oh.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])], [x2], [y],
               [weight("w", [4, 3, 3, 3])], opset=9), out, "conv_rank_mismatch.onnx")
    # An AveragePool with a zero stride: divided by zero in ONNX 1.12's shape inference (found by fuzzing).
    save(model([oh.make_node("AveragePool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], strides=[0, 2])],
               [x], [y], []), out, "zero_stride.onnx")
    # Operators no Headroom layer models, imported as GenericOp layers: a custom-domain operator reading
    # a stored [16, 16] weight (its output's shape declared in value_info, as exporters of custom ops
    # write it), Erf on its own, and TopK whose two outputs (values, int64 indices) are both used.
    xs = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 16])
    fancy = oh.make_tensor_value_info("fancy_out", TensorProto.FLOAT, ["N", 8, 16])
    g = oh.make_graph(
        [oh.make_node("Relu", ["x"], ["r"], name="relu"),
         oh.make_node("Fancy", ["r", "fw"], ["fancy_out"], name="fancy", domain="com.example"),
         oh.make_node("Erf", ["fancy_out"], ["e"], name="erf"),
         oh.make_node("TopK", ["e", "k"], ["values", "indices"], name="topk", axis=-1),
         oh.make_node("Cast", ["indices"], ["positions"], name="to_float", to=TensorProto.FLOAT),
         oh.make_node("Concat", ["values", "positions"], ["both"], name="concat", axis=-1),
         oh.make_node("Flatten", ["both"], ["flat"], name="flatten", axis=1),
         oh.make_node("Gemm", ["flat", "w2", "b2"], ["y"], name="fc", transB=1)],
        "generic_ops", [xs], [oh.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        initializer=[weight("fw", [16, 16]), oh.make_tensor("k", TensorProto.INT64, [1], [4]), weight("w2", [10, 64]),
                     weight("b2", [10])],
        value_info=[fancy])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 15), oh.make_opsetid("com.example", 1)],
                      producer_name="make_onnx.py")
    m.ir_version = 8
    save(m, out, "generic_ops.onnx")
    # Opsets newer than ONNX 1.12 knows, as torch 2's dynamo exporter writes them (every value's shape in
    # value_info): opset 18's ReduceMean with its axes as an input, opset 20's Gelu; and a Resize with
    # antialias, which has no opset-17 form.
    x4 = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])
    y2 = oh.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])
    axes = oh.make_tensor("axes", TensorProto.INT64, [2], [2, 3])
    dynamo = [oh.make_node("Conv", ["x", "w", "b"], ["c"], name="node_Conv_0", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
              oh.make_node("Gelu", ["c"], ["g"], name="node_Gelu_1", approximate="tanh"),
              oh.make_node("ReduceMean", ["g", "axes"], ["m"], name="node_ReduceMean_2", keepdims=0),
              oh.make_node("Gemm", ["m", "fw", "fb"], ["y"], name="node_Gemm_3", transB=1)]
    shapes = [oh.make_tensor_value_info("c", TensorProto.FLOAT, ["N", 8, 16, 16]),
              oh.make_tensor_value_info("g", TensorProto.FLOAT, ["N", 8, 16, 16]),
              oh.make_tensor_value_info("m", TensorProto.FLOAT, ["N", 8])]
    inits = [weight("w", [8, 3, 3, 3]), weight("b", [8]), weight("fw", [10, 8]), weight("fb", [10]), axes]
    g20 = oh.make_graph(dynamo, "dynamo_opset20", [x4], [y2], initializer=inits, value_info=shapes)
    m20 = oh.make_model(g20, opset_imports=[oh.make_opsetid("", 20)], producer_name="make_onnx.py")
    m20.ir_version = 9
    save(m20, out, "opset20.onnx")
    sizes = oh.make_tensor("sizes", TensorProto.INT64, [4], [1, 3, 32, 32])
    g18 = oh.make_graph([oh.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="node_Resize_0", mode="linear",
                                      antialias=1)], "antialias", [x4], [y], initializer=[sizes])
    m18 = oh.make_model(g18, opset_imports=[oh.make_opsetid("", 18)], producer_name="make_onnx.py")
    m18.ir_version = 8
    save(m18, out, "opset18_antialias.onnx")
    # Opset 13: Split into two parts (each a Narrow), DepthToSpace in DCR mode (TensorFlow's channel order)
    # and in CRD mode (pixel_shuffle's), Hardswish as x * HardSigmoid(x) (torch below opset 14), Concat,
    # ReduceSum with its axes as an input, Sub of a stored number before the input (c - x: no layer).
    xm = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 4, 4])
    save(model([oh.make_node("Split", ["x", "parts"], ["a", "b"], name="split", axis=1),
                oh.make_node("DepthToSpace", ["a"], ["a2"], name="dcr", blocksize=2, mode="DCR"),
                oh.make_node("HardSigmoid", ["b"], ["hs"], name="gate", alpha=1.0 / 6.0, beta=0.5),
                oh.make_node("Mul", ["b", "hs"], ["hw"], name="hardswish"),
                oh.make_node("DepthToSpace", ["hw"], ["b2"], name="crd", blocksize=2, mode="CRD"),
                oh.make_node("Concat", ["a2", "b2"], ["c"], name="concat", axis=1),
                oh.make_node("Sub", ["one", "c"], ["d"], name="one_minus"),
                oh.make_node("ReduceSum", ["d", "axes"], ["r"], name="sum", keepdims=0),
                oh.make_node("Gemm", ["r", "fw", "fb"], ["y"], name="fc", transB=1)],
               [xm], [y], [oh.make_tensor("parts", TensorProto.INT64, [2], [4, 4]),
                           oh.make_tensor("axes", TensorProto.INT64, [2], [2, 3]),
                           oh.make_tensor("one", TensorProto.FLOAT, [], [1.0]), weight("fw", [3, 2]), weight("fb", [3])],
               opset=13), out, "movement_opset13.onnx")
    # Opset 9: Clip with min/max attributes (ReLU6), Dropout with a ratio attribute, Softmax on axis 1 of 2-D.
    x_old = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])
    save(model([oh.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                oh.make_node("Clip", ["c"], ["r"], name="relu6", min=0.0, max=6.0),
                oh.make_node("Flatten", ["r"], ["f"], name="flatten", axis=1),
                oh.make_node("Dropout", ["f"], ["d"], name="dropout", ratio=0.3),
                oh.make_node("Gemm", ["d", "fw", "fb"], ["g"], name="fc", transB=1),
                oh.make_node("Softmax", ["g"], ["y"], name="softmax", axis=1)],
               [x_old], [y], [weight("w", [4, 3, 3, 3]), weight("b", [4]), weight("fw", [5, 256]),
                              weight("fb", [5])], opset=9),
         out, "opset9.onnx")


def hostile(out):
    """Invalid graphs the importer must refuse with a specific message (issue #17)."""

    def model(nodes, inputs, outputs, opset):
        g = oh.make_graph(nodes, "hostile", inputs, outputs)
        m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)], producer_name="make_onnx.py")
        m.ir_version = 8
        return m

    x = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])
    y = oh.make_tensor_value_info("y", TensorProto.FLOAT, None)
    # Two nodes write 'y': ONNX graphs are single-assignment; the first writer used to be dropped silently.
    save(model([oh.make_node("Relu", ["x"], ["y"], name="first"), oh.make_node("Sigmoid", ["x"], ["y"], name="second")],
               [x], [y], 15), out, "duplicate_output.onnx")
    # A Dropout whose ratio is NaN (opset 9 keeps the ratio as an attribute).
    save(model([oh.make_node("Dropout", ["x"], ["y"], name="dropout", ratio=float("nan"))], [x], [y], 9),
         out, "dropout_nan.onnx")
    # Flatten with axis -99 on a rank-4 input (ONNX allows -4 to 4).
    save(model([oh.make_node("Flatten", ["x"], ["y"], name="flatten", axis=-99)], [x], [y], 15), out, "flatten_axis.onnx")
    # A Reshape target with -3 (only -1 means "inferred"): crashed ONNX 1.12's shape inference (found by fuzzing).
    g = oh.make_graph([oh.make_node("Reshape", ["x", "target"], ["y"], name="reshape")], "hostile", [x], [y],
                      initializer=[oh.make_tensor("target", TensorProto.INT64, [2], [0, -3])])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 15)], producer_name="make_onnx.py")
    m.ir_version = 8
    save(m, out, "reshape_negative.onnx")


class FinalStateClassifier(nn.Module):
    """nn.LSTM(8, 16, batch_first=True) whose final hidden state h_n[-1] feeds the head: the ONNX LSTM's
    Y_h is used, which Headroom imports as the last step of the output sequence (a Narrow)."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        _, (h, _) = self.rnn(x)
        return self.fc(h[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)

    image = torch.randn(1, 3, 224, 224)
    # Small models keep their real weights.
    save(export(LeNet5(), torch.randn(1, 1, 32, 32)), out, "lenet5.onnx")
    save(export(SmallResNet(), torch.randn(1, 3, 16, 16)), out, "small_resnet.onnx")
    save(strip(export(Signal1d(), torch.randn(1, 2, 64))), out, "signal1d.onnx")
    save(strip(export(Mixed(), torch.randn(1, 3, 32, 32))), out, "mixed.onnx")
    save(strip(export(SeqModel(), torch.randint(0, 100, (1, 12)), opset=17)), out, "seq_opset17.onnx")
    save(strip(export(Unsupported(), torch.randn(1, 3, 8, 8), opset=15)), out, "unsupported_ops.onnx")
    save(strip(export_eval(EvalMode(), torch.randn(2, 3, 8, 8))), out, "eval_mode.onnx")
    save(strip(export(Patterns(), torch.randn(1, 6, 16))), out, "patterns_opset15.onnx")
    save(strip(export(Vocabulary(), torch.randn(1, 4, 8, 8))), out, "vocabulary.onnx")
    save(strip(export(Tokens(), torch.randn(1, 16, 8, 8))), out, "tokens.onnx")
    save(strip(export(FinalStateClassifier(), torch.randn(1, 12, 8))), out, "lstm_final_state.onnx")
    # torchvision models at their presets' sizes, weights stripped.
    for name, ctor in (("alexnet", torchvision.models.alexnet), ("vgg16", torchvision.models.vgg16),
                       ("resnet18", torchvision.models.resnet18), ("mobilenet_v2", torchvision.models.mobilenet_v2)):
        save(strip(export(ctor(), image)), out, f"{name}.onnx")
    hand_built(out)
    hostile(out)


if __name__ == "__main__":
    main()
