#!/usr/bin/python3
"""Writes the windowed-attention test files of tests/core/tst_onnxwindows.cpp and measures what PyTorch keeps.

Small versions of torchvision's windowed-attention vision transformers, built with torchvision's own
classes (the code of swin_t, swin_v2_t and maxvit_t, scaled down), stochastic depth 0 and dropout 0:

* swin:    SwinTransformer(patch 4, embed 16, depths [2, 2], heads [2, 4], window 4) on [B, 3, 24, 24]:
           a 6 x 6 feature map padded to 8 x 8 for its 4 x 4 windows, the second block shifted by 2 (the
           attention mask), patch merging to 3 x 3 (padded to 4 x 4, one window, no shift);
* swin_v2: the same with SwinTransformerBlockV2 and PatchMergingV2 (cosine attention: F.normalize,
           clamp(logit_scale).exp(), the continuous position bias MLP, 16 * sigmoid);
* maxvit:  MaxVit(input 32, stem 8, partition 2, blocks [16], layers [1], head_dim 8) on [B, 3, 32, 32]:
           MBConv (BatchNorm, squeeze-excitation), then window and grid attention (torch.einsum);
* einsum_other: hand-built, an Einsum that is no matrix product (einsum_other's docstring).

Each is measured with measure_networks.measure_network (tests/reference/measure.py's saved-tensor method:
saved_tensors_hooks, storages counted once, parameters, buffers and the input excluded, batches 2 and 4,
with measure.ADJUSTMENTS' CPU -> CUDA adjustments; none applies here: no Dropout, no
nn.MultiheadAttention), with an MSE loss (which keeps the output's difference from the target, 10
floats a sample): the figures printed are what the test states. Exported with torch 1.13's TorchScript exporter, training mode, opset 17,
dynamic batch, initializers stripped of their data (make_onnx.strip).

    /usr/bin/python3 tests/data/onnx/make_windows.py [--out DIR]
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import measure_networks as mn  # noqa: E402
import make_onnx  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
from torchvision.models import maxvit, swin_transformer as st  # noqa: E402


def swin():
    return st.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                              window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10)


def swin_v2():
    return st.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                              window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10,
                              block=st.SwinTransformerBlockV2, downsample_layer=st.PatchMergingV2)


def max_vit():
    return maxvit.MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[16],
                         block_layers=[1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10)


MODELS = {"swin": (swin, [3, 24, 24]), "swin_v2": (swin_v2, [3, 24, 24]), "maxvit": (max_vit, [3, 32, 32])}


def einsum_other():
    """Hand-built: an Einsum that is no matrix product (a row-wise dot product, "b i j, b i j -> b i") of the
    input [B, 4, 8] with itself: Headroom names the equation and models the node as a generic operator."""
    import onnx.helper as oh
    f32 = onnx.TensorProto.FLOAT
    g = oh.make_graph([oh.make_node("Einsum", ["input", "input"], ["output"], name="rowdot",
                                    equation="b i j, b i j -> b i")], "einsum_other",
                      [oh.make_tensor_value_info("input", f32, ["batch", 4, 8])],
                      [oh.make_tensor_value_info("output", f32, ["batch", 4])])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)], producer_name="make_windows.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def zero_symbolic(g, self):
    """aten::zero_ (swin_v2's qkv_bias[length:2 * length].zero_()), which torch 1.13 cannot export: a
    multiplication by 0, which the in-place pass turns into the ScatterND PyTorch 2.x writes."""
    return g.op("Mul", self, g.op("Constant", value_t=torch.tensor(0.0)))


def main():
    torch.onnx.register_custom_op_symbolic("aten::zero", zero_symbolic, 17)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "windows"))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    make_onnx.save(einsum_other(), args.out, "einsum_other.onnx")
    for name, (build, shape) in MODELS.items():
        if args.only and name != args.only:
            continue
        model, entry = mn.measure_network(name, build, shape, "mse")
        print(name, {k: entry[k] for k in ("parameters", "buffers", "activation_bytes_per_sample",
                                           "activation_bytes_fixed", "activation_bytes_per_sample_raw",
                                           "adjustments_per_sample")})
        make_onnx.save(mn.export(model.model, shape, 17, name), args.out, name + ".onnx")


if __name__ == "__main__":
    main()
