#!/usr/bin/python3
"""Exports real networks to ONNX in training mode and measures what PyTorch keeps for backward.

The networks of issue 13 (torchvision's EfficientNet-B0, ShuffleNetV2, MNASNet, RegNetY-400MF,
MobileNetV3-Small, ConvNeXt-Tiny, ResNeXt-50, Inception-v3, ViT-B/16 and common hand-written ones),
and on request every torchvision classification, segmentation and video model (--sweep). For each:

* the ONNX file, exported as docs/onnx-import.md recommends (TrainingMode.TRAINING, no constant
  folding, opset 15, a symbolic batch axis) and stripped of its weights (make_onnx.strip), written to
  networks/NAME.onnx for the committed subset (--out-dir for the others);
* PyTorch's parameter count, and the bytes autograd saves for backward per sample, measured exactly as
  tests/reference/measure.py does it (saved_tensors_hooks, the autograd graph walked from the loss,
  storages counted once, parameters/buffers/input/labels apart) at two batch sizes, with its CPU ->
  CUDA adjustments (measure.ADJUSTMENTS: dropout mask, nn.MultiheadAttention as SDPA, mean's input).

The figures go to networks.json, which tests/core/tst_onnximport.cpp compares with the import.

    /usr/bin/python3 tests/data/onnx/measure_networks.py                 # the committed networks
    /usr/bin/python3 tests/data/onnx/measure_networks.py --only vit_b_16
    /usr/bin/python3 tests/data/onnx/measure_networks.py --sweep --out-dir /tmp/sweep --json /tmp/sweep.json

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

import measure  # noqa: E402  (tests/reference/measure.py: the reference harness)
import make_onnx  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402

warnings.filterwarnings("ignore")
BATCHES = (2, 4)


# --------------------------------------------------------------------------------------------------
# Hand-written networks (the common shapes of each family, small enough to measure quickly)
# --------------------------------------------------------------------------------------------------


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """Ronneberger et al.'s U-Net at a small width: max-pool down, ConvTranspose2d up, skip concatenations."""

    def __init__(self, classes=2, w=16):
        super().__init__()
        self.inc = double_conv(3, w)
        self.down1, self.down2, self.down3 = double_conv(w, 2 * w), double_conv(2 * w, 4 * w), double_conv(4 * w, 8 * w)
        self.up3 = nn.ConvTranspose2d(8 * w, 4 * w, 2, stride=2)
        self.conv3 = double_conv(8 * w, 4 * w)
        self.up2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2)
        self.conv2 = double_conv(4 * w, 2 * w)
        self.up1 = nn.ConvTranspose2d(2 * w, w, 2, stride=2)
        self.conv1 = double_conv(2 * w, w)
        self.outc = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(F.max_pool2d(x1, 2))
        x3 = self.down2(F.max_pool2d(x2, 2))
        x4 = self.down3(F.max_pool2d(x3, 2))
        y = self.conv3(torch.cat([self.up3(x4), x3], 1))
        y = self.conv2(torch.cat([self.up2(y), x2], 1))
        y = self.conv1(torch.cat([self.up1(y), x1], 1))
        return self.outc(y)


class DCGANGenerator(nn.Module):
    """Radford et al.'s DCGAN generator: a 100-d code to a 64 x 64 image."""

    def __init__(self, nz=100, ngf=32):
        super().__init__()
        layers, cin = [], nz
        for i, cout in enumerate((ngf * 8, ngf * 4, ngf * 2, ngf)):
            layers += [nn.ConvTranspose2d(cin, cout, 4, 1 if i == 0 else 2, 0 if i == 0 else 1, bias=False),
                       nn.BatchNorm2d(cout), nn.ReLU(True)]
            cin = cout
        self.main = nn.Sequential(*layers, nn.ConvTranspose2d(cin, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class C3D(nn.Module):
    """A small C3D (Tran et al.): 3-D convolutions, BatchNorm3d and 3-D max pooling on 8 x 56 x 56 clips."""

    def __init__(self, classes=10):
        super().__init__()

        def block(cin, cout, pool):
            return [nn.Conv3d(cin, cout, 3, padding=1), nn.BatchNorm3d(cout), nn.ReLU(inplace=True), nn.MaxPool3d(pool)]

        self.features = nn.Sequential(*block(3, 16, (1, 2, 2)), *block(16, 32, 2), *block(32, 64, 2))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(self.drop(torch.flatten(self.pool(self.features(x)), 1)))


class AudioCNN(nn.Module):
    """A 1-D audio classifier on one second of 16 kHz waveform (M5, Dai et al. 2017)."""

    def __init__(self, classes=35, w=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, w, 80, stride=16), nn.BatchNorm1d(w), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(w, w, 3), nn.BatchNorm1d(w), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(w, 2 * w, 3), nn.BatchNorm1d(2 * w), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(2 * w, 2 * w, 3), nn.BatchNorm1d(2 * w), nn.ReLU(), nn.MaxPool1d(4),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(2 * w, classes))

    def forward(self, x):
        return self.net(x)


class SEBlock(nn.Module):
    """A residual block with squeeze-and-excitation (Hu et al.) and Hardswish (Howard et al.)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.act = nn.Hardswish()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.se_pool = nn.AdaptiveAvgPool2d(1)
        self.se_fc1 = nn.Conv2d(cout, cout // 4, 1)
        self.se_fc2 = nn.Conv2d(cout // 4, cout, 1)
        self.se_gate = nn.Hardsigmoid()
        self.down = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        self.out_act = nn.Hardswish()

    def forward(self, x):
        y = self.bn2(self.conv2(self.act(self.bn1(self.conv1(x)))))
        y = y * self.se_gate(self.se_fc2(F.relu(self.se_fc1(self.se_pool(y)))))
        return self.out_act(y + (x if self.down is None else self.down(x)))


class SEResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.Hardswish())
        self.layers = nn.Sequential(SEBlock(32, 32, 1), SEBlock(32, 64, 2), SEBlock(64, 128, 2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(128, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim, token_hidden, channel_hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, token_hidden), nn.GELU(), nn.Linear(token_hidden, tokens))
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mlp = nn.Sequential(nn.Linear(dim, channel_hidden), nn.GELU(), nn.Linear(channel_hidden, dim))

    def forward(self, x):
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class MLPMixer(nn.Module):
    """Tolstikhin et al.'s MLP-Mixer at a small size (64 x 64 images, 8 x 8 patches, 4 blocks)."""

    def __init__(self, classes=10, dim=128, depth=4, patch=8, image=64):
        super().__init__()
        tokens = (image // patch) ** 2
        self.stem = nn.Conv2d(3, dim, patch, patch)
        self.blocks = nn.Sequential(*[MixerBlock(tokens, dim, 64, 512) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(x)).mean(dim=1))


class ESPCN(nn.Module):
    """Shi et al.'s ESPCN: 3x super-resolution with a sub-pixel convolution (PixelShuffle)."""

    def __init__(self, scale=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 64, 5, padding=2), nn.Tanh(), nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(32, scale * scale, 3, padding=1), nn.PixelShuffle(scale))

    def forward(self, x):
        return self.body(x)


def conv_in(cin, cout, k, stride=1, relu=True):
    layers = [nn.ReflectionPad2d(k // 2), nn.Conv2d(cin, cout, k, stride), nn.InstanceNorm2d(cout, affine=True)]
    return layers + ([nn.ReLU(inplace=True)] if relu else [])


class ResidualIN(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(*conv_in(c, c, 3), *conv_in(c, c, 3, relu=False))

    def forward(self, x):
        return x + self.body(x)


class StyleTransfer(nn.Module):
    """Johnson et al.'s transform network: reflection padding, InstanceNorm, residual blocks, upsampling."""

    def __init__(self, w=32):
        super().__init__()
        self.down = nn.Sequential(*conv_in(3, w, 9), *conv_in(w, 2 * w, 3, 2), *conv_in(2 * w, 4 * w, 3, 2))
        self.res = nn.Sequential(*[ResidualIN(4 * w) for _ in range(3)])
        self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), *conv_in(4 * w, 2 * w, 3),
                                nn.Upsample(scale_factor=2, mode="nearest"), *conv_in(2 * w, w, 3),
                                nn.ReflectionPad2d(4), nn.Conv2d(w, 3, 9))

    def forward(self, x):
        return self.up(self.res(self.down(x)))


class RNNClassifier(nn.Module):
    """An nn.LSTM / nn.GRU sequence classifier on [B, T, F] features: two stacked layers, the last step's
    output through a Linear. batch_first=False transposes the input to [T, B, F] first, as sequence-first
    code does, and takes out[-1]; batch_first=True takes out[:, -1]."""

    def __init__(self, kind="LSTM", batch_first=True, features=8, hidden=32, layers=2, classes=5):
        super().__init__()
        self.batch_first = batch_first
        self.rnn = getattr(nn, kind)(features, hidden, num_layers=layers, batch_first=batch_first)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x):
        if self.batch_first:
            out, _ = self.rnn(x)
            return self.fc(out[:, -1])
        out, _ = self.rnn(x.transpose(0, 1))
        return self.fc(out[-1])


class TransformerLM(nn.Module):
    """A small nn.TransformerEncoder language model as PyTorch's word_language_model example writes it:
    sequence-first inside (batch_first=False, the default), token ids [B, T] in, logits [B, T, V] out."""

    VOCAB = 100

    def __init__(self, d=32, heads=4, ff=64, layers=2):
        super().__init__()
        self.emb = nn.Embedding(self.VOCAB, d)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads, ff, dropout=0.1), layers)
        self.head = nn.Linear(d, self.VOCAB)

    def forward(self, ids):
        x = self.emb(ids).transpose(0, 1)  # [T, B, d]
        return self.head(self.encoder(x).transpose(0, 1))


class HeadsInBatchAttention(nn.Module):
    """Self-attention written out the way torch 1.13's F.multi_head_attention_forward computes it, with its
    own q/k/v Linear layers (so the MultiheadAttention pattern does not take it): sequence-first, the heads
    folded into the batch axis ([T, B * heads, d] and [B * heads, T, d]), bmm, softmax, bmm, back through
    [T * B, E], then a classifier on the flattened sequence. Every size is traced from x.shape, so the
    export computes its reshape targets from Shape -> Gather -> Mul -> Concat (issue 24 items 1 and 2)."""

    def __init__(self, features=8, d=32, heads=4, classes=5):
        super().__init__()
        self.heads = heads
        self.proj = nn.Linear(features, d)
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.out = nn.Linear(d, d)
        self.head = nn.Linear(16 * d, classes)

    def forward(self, x):  # [B, T, F]
        b, t = x.shape[0], x.shape[1]
        x = self.proj(x).transpose(0, 1)  # [T, B, d]
        e = x.shape[2]
        h = self.heads
        q = self.q(x).reshape(t, b * h, e // h).transpose(0, 1)  # [B * heads, T, d]
        k = self.k(x).reshape(t, b * h, e // h).transpose(0, 1)
        v = self.v(x).reshape(t, b * h, e // h).transpose(0, 1)
        a = torch.softmax(torch.bmm(q * (e // h) ** -0.5, k.transpose(1, 2)), dim=-1)
        o = torch.bmm(a, v).transpose(0, 1).reshape(t * b, e)  # [T * B, E]
        o = self.out(o).reshape(t, b, e).transpose(0, 1)  # [B, T, d]
        return self.head(o.reshape(b, t * e))


# Networks whose input is token ids: the vocabulary they are drawn from.
TOKEN_INPUTS = {"transformer_lm": TransformerLM.VOCAB}


def example_input(name, shape, batch):
    if name in TOKEN_INPUTS:
        return torch.randint(0, TOKEN_INPUTS[name], [batch] + shape)
    return torch.randn([batch] + shape)


def tv(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)


def _encoder_block_forward(self, input):
    """torchvision's ViT EncoderBlock.forward, calling its nn.MultiheadAttention with positional arguments
    (the same computation) so that measure.Probe's forward pre-hook sees the query."""
    x = self.ln_1(input)
    x, _ = self.self_attention(x, x, x, need_weights=False)
    x = self.dropout(x)
    x = x + input
    return x + self.mlp(self.ln_2(x))


torchvision.models.vision_transformer.EncoderBlock.forward = _encoder_block_forward


# name: (builder, per-sample input shape, loss). Losses as these networks train: cross-entropy for
# classifiers (and per pixel for the U-Net), MSE for the generator, super-resolution and style transfer.
NETWORKS = {
    # stochastic_depth_prob=0: torch 1.13 cannot export StochasticDepth's bernoulli_ in training mode (its
    # [B, 1, 1, 1] noise is a few bytes per sample either way).
    "efficientnet_b0": (tv("efficientnet_b0", stochastic_depth_prob=0.0), [3, 224, 224], "cross_entropy"),
    "shufflenet_v2_x1_0": (tv("shufflenet_v2_x1_0"), [3, 224, 224], "cross_entropy"),
    "mnasnet1_0": (tv("mnasnet1_0"), [3, 224, 224], "cross_entropy"),
    "regnet_y_400mf": (tv("regnet_y_400mf"), [3, 224, 224], "cross_entropy"),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), [3, 224, 224], "cross_entropy"),
    "convnext_tiny": (tv("convnext_tiny", stochastic_depth_prob=0.0), [3, 224, 224], "cross_entropy"),
    "resnext50_32x4d": (tv("resnext50_32x4d"), [3, 224, 224], "cross_entropy"),
    # aux_logits=False: the auxiliary head's output is a second graph output the loss does not reach.
    "inception_v3": (tv("inception_v3", aux_logits=False, init_weights=False), [3, 299, 299], "cross_entropy"),
    "vit_b_16": (tv("vit_b_16"), [3, 224, 224], "cross_entropy"),
    "unet": (UNet, [3, 128, 128], "cross_entropy"),
    "dcgan_generator": (DCGANGenerator, [100, 1, 1], "mse"),
    "c3d_small": (C3D, [3, 8, 56, 56], "cross_entropy"),
    "audio_cnn": (AudioCNN, [1, 16000], "cross_entropy"),
    "se_resnet_hardswish": (SEResNet, [3, 64, 64], "cross_entropy"),
    "mlp_mixer": (MLPMixer, [3, 64, 64], "cross_entropy"),
    "espcn": (ESPCN, [1, 64, 64], "mse"),
    "style_transfer": (StyleTransfer, [3, 128, 128], "mse"),
    # make_onnx.py's Patterns: LayerNorm, GELU's tanh form and NewGELU as opset 15 writes them.
    "onnx_patterns": (make_onnx.Patterns, [6, 16], "cross_entropy"),
    # Recurrent classifiers, batch-first and sequence-first (T = 16 steps of 8 features, hidden 32).
    "lstm_classifier": (lambda: RNNClassifier("LSTM", True), [16, 8], "cross_entropy"),
    "lstm_classifier_seq_first": (lambda: RNNClassifier("LSTM", False), [16, 8], "cross_entropy"),
    "gru_classifier": (lambda: RNNClassifier("GRU", True), [16, 8], "cross_entropy"),
    "gru_classifier_seq_first": (lambda: RNNClassifier("GRU", False), [16, 8], "cross_entropy"),
    # nn.TransformerEncoder, sequence-first: 32 tokens; cross-entropy on the [B, T, V] logits.
    "transformer_lm": (TransformerLM, [32], "cross_entropy"),
    # Attention with its heads in the batch axis (16 steps of 8 features, width 32, 4 heads).
    "heads_in_batch_attention": (HeadsInBatchAttention, [16, 8], "cross_entropy"),
}


def sweep_networks():
    """Every torchvision 0.14 classification, segmentation and video model, at its usual input size."""
    nets = {}
    for name in torchvision.models.list_models(module=torchvision.models):
        size = 299 if name.startswith("inception") else 224
        kw = {"aux_logits": False, "init_weights": False} if name in ("inception_v3", "googlenet") else {}
        if name.startswith("vit_h") or name.startswith("regnet_y_128") or name.startswith("regnet_y_32") \
                or name.startswith("vit_l"):
            continue  # over a GiB of weights: beyond what this CPU run can measure in reasonable time
        if name.startswith("vit") or name.startswith("swin"):
            size = 224
        nets[name] = (tv(name, **kw), [3, size, size], "cross_entropy")
    for name in torchvision.models.list_models(module=torchvision.models.segmentation):
        nets[name] = (lambda n=name: getattr(torchvision.models.segmentation, n)(weights=None, weights_backbone=None),
                      [3, 224, 224], "cross_entropy")
    for name in torchvision.models.list_models(module=torchvision.models.video):
        shape = [3, 16, 112, 112] if not name.startswith("mvit") else [3, 16, 224, 224]
        nets[name] = (lambda n=name: getattr(torchvision.models.video, n)(weights=None), shape, "cross_entropy")
    return nets


# --------------------------------------------------------------------------------------------------
# Export and measurement
# --------------------------------------------------------------------------------------------------


def first_output(out):
    if isinstance(out, dict):
        return out["out"]
    if isinstance(out, (tuple, list)):
        return out[0]
    return out


class FirstOutput(nn.Module):
    """The network with only the output the loss is computed on (segmentation models return dicts)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return first_output(self.model(x))


def export(model, shape, opset=15, name=""):
    buf = io.BytesIO()
    model.train()
    torch.onnx.export(model, example_input(name, shape, 1), buf, opset_version=opset, input_names=["input"],
                      output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                      **make_onnx.TRAINING)
    return make_onnx.strip(onnx.load_from_string(buf.getvalue()))


def loss_of(kind, out, batch, probe):
    """The loss, with its target registered as the labels (input, not activations)."""
    if kind == "mse":
        target = torch.randn_like(out)
    elif out.dim() > 2:  # per-pixel classes on axis 1, as F.cross_entropy reads [B, C, H, W]
        target = torch.randint(0, out.shape[1], [batch] + list(out.shape[2:]))
    else:
        target = torch.randint(0, out.shape[1], [batch])
    probe.label_key = measure.storage_of(target)[0]
    return F.mse_loss(out, target) if kind == "mse" else F.cross_entropy(out, target)


def saved_bytes(model, shape, loss, batch, name=""):
    """measure.measure_saved's method for one batch: the adjusted and raw activation bytes."""
    x = example_input(name, shape, batch)
    probe = measure.Probe(model)
    probe.input_key = measure.storage_of(x)[0]
    model.zero_grad(set_to_none=True)
    with torch.autograd.graph.saved_tensors_hooks(probe.pack, probe.unpack):
        out = model(x)
        probe.push("loss")
        value = loss_of(loss, out, batch, probe)
        probe.pop()
    probe.walk(value.grad_fn)
    res = measure.analyse_storages(probe, "fp32")
    probe.remove()
    probe.tensors.clear()
    return res


def measure_network(name, build, shape, loss):
    torch.manual_seed(0)
    model = FirstOutput(build())
    model.train()
    params = sum(p.numel() for p in model.parameters())
    buffers = sum(b.numel() for b in model.buffers())
    runs = {b: saved_bytes(model, shape, loss, b, name) for b in BATCHES}
    b1, b2 = BATCHES
    per_sample = (runs[b2]["adjusted"] - runs[b1]["adjusted"]) // (b2 - b1)
    fixed = runs[b1]["adjusted"] - per_sample * b1
    raw = (runs[b2]["raw"] - runs[b1]["raw"]) // (b2 - b1)
    adjustments = {k: (runs[b2][k]["delta"] - runs[b1][k]["delta"]) // (b2 - b1)
                   for k in ("dropout", "attention", "mean") if runs[b2][k]["delta"] or runs[b1][k]["delta"]}
    entry = dict(name=name, input=shape, loss=loss, parameters=params, buffers=buffers,
                 activation_bytes_per_sample=per_sample, activation_bytes_fixed=fixed,
                 activation_bytes_per_sample_raw=raw, adjustments_per_sample=adjustments,
                 attention_calls=runs[b1]["attention"]["calls"])
    if runs[b1]["recurrent_calls"]:
        # CPU LSTM/GRU run unfused (per-step, per-gate tensors), which cuDNN does not keep: as measure.py's
        # lstm_lm, only what is saved outside the recurrent calls is compared (docs/accuracy.md).
        outside = {b: runs[b]["raw"] - runs[b]["recurrent_internal"] for b in BATCHES}
        entry["recurrent_calls"] = runs[b1]["recurrent_calls"]
        entry["activation_bytes_per_sample_outside_recurrent"] = (outside[b2] - outside[b1]) // (b2 - b1)
        entry["recurrent_internal_bytes_per_sample"] = raw - entry["activation_bytes_per_sample_outside_recurrent"]
    return model, entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="measure only these networks")
    ap.add_argument("--sweep", action="store_true", help="every torchvision model instead of the committed set")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "networks"), help="where the ONNX files go")
    ap.add_argument("--json", default=os.path.join(HERE, "networks.json"), help="the measurements file")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    nets = sweep_networks() if args.sweep else NETWORKS
    if args.only:
        nets = {k: v for k, v in nets.items() if k in args.only}
    os.makedirs(args.out_dir, exist_ok=True)
    doc = {"networks": {}}
    if os.path.exists(args.json):
        with open(args.json) as f:
            doc = json.load(f)
    doc["method"] = ("torch " + torch.__version__ + ", torchvision " + torchvision.__version__ + ", CPU, fp32; "
                     "tests/reference/measure.py's saved-tensor method at batches " + str(BATCHES)
                     + "; activation_bytes_per_sample is CUDA-adjusted (measure.ADJUSTMENTS)")
    for name, (build, shape, loss) in nets.items():
        try:
            model, entry = measure_network(name, build, shape, loss)
            path = os.path.join(args.out_dir, name + ".onnx")
            with open(path, "wb") as f:
                f.write(export(model.model, shape, name=name).SerializeToString())
            entry["file"] = os.path.relpath(path, HERE)
        except Exception as e:  # a model torch 1.13 cannot export or run: recorded, not hidden
            entry = dict(name=name, error=f"{type(e).__name__}: {e}"[:500])
        doc["networks"][name] = entry
        print(json.dumps(entry), flush=True)
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
