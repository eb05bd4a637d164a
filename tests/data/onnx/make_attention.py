#!/usr/bin/python3
"""Writes the attention test files of tests/core/tst_onnxattention.cpp and measures what PyTorch keeps.

Two tiny transformers, trained as PyTorch 2.x trains them:

* lm:  Embedding(50, 32) -> nn.TransformerEncoderLayer(32, 4 heads, 64, dropout 0.1, ReLU, post-norm,
       batch_first=True) -> Linear(32, 50) on int64 tokens [B, 16] (the layout of
       /work/shared/onnx-torch2's transformer_lm, scaled down);
* vit: torchvision's VisionTransformer(image 32, patch 16, 1 layer, 4 heads, hidden 32, MLP 64,
       10 classes) on [B, 3, 32, 32] (vit_b_16's code, scaled down).

Each is measured with tests/reference/measure.py's saved-tensor method (measure_networks.measure_network:
saved_tensors_hooks, storages counted once, batches 2 and 4, CUDA-adjusted: nn.MultiheadAttention's math
core as torch 1.13 runs it replaced by what scaled_dot_product_attention's flash / memory-efficient
kernels keep on PyTorch >= 2.1, CPU dropout noise as CUDA's bool mask). The figures are printed; the
test states them with that derivation.

Debian's torch 1.13 has no scaled_dot_product_attention and cannot export what PyTorch 2.x writes, so
each model is exported by torch 1.13 (TorchScript exporter, training mode, opset 17) and its attention
core rewritten to what PyTorch 2.x's exporters write for F.scaled_dot_product_attention (the exported
modules call it in 2.x: multi_head_attention_forward with need_weights=False):

* NAME_ts2.onnx: the TorchScript exporter (torch/onnx/symbolic_opset14.py scaled_dot_product_attention):
  torch 1.13's Div(q, sqrt(d)) becomes Mul(q, Sqrt(s)) and k^T becomes Mul(k^T, Sqrt(s)), s = 1/sqrt(d);
  the node names keep their module scopes;
* NAME_dynamo.onnx: as the dynamo exporter writes it (onnxscript's torchlib): the same scaling by one
  stored constant sqrt(s), the in-projection weight stored pre-transposed ([E, 3E]) under a plain name,
  and flat node names without module scopes ("node_Mul_12"; the last MatMul of the core
  "node_scaled_dot_product_attention").

    /usr/bin/python3 tests/data/onnx/make_attention.py [--out DIR]
"""

import argparse
import io
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import measure_networks as mn  # noqa: E402  (also patches torchvision's EncoderBlock for the probe)
import make_onnx  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnx.helper as oh  # noqa: E402
import onnx.numpy_helper as onh  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torchvision  # noqa: E402


class TinyLM(nn.Module):
    VOCAB = 50

    def __init__(self, d=32, heads=4, ff=64):
        super().__init__()
        self.emb = nn.Embedding(self.VOCAB, d)
        self.layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.1, batch_first=True)
        self.head = nn.Linear(d, self.VOCAB)

    def forward(self, ids):
        return self.head(self.layer(self.emb(ids))).flatten(1)  # [B, T * V]: the loss's classes


def tiny_vit():
    return torchvision.models.vision_transformer.VisionTransformer(
        image_size=32, patch_size=16, num_layers=1, num_heads=4, hidden_dim=32, mlp_dim=64, num_classes=10)


MODELS = {"lm": (TinyLM, [16]), "vit": (tiny_vit, [3, 32, 32])}


class SharedLM(nn.Module):
    """/work/shared/onnx-torch2's transformer_lm (PyTorch 2.11 exports): Embedding(30000, 512), 6 x
    TransformerEncoderLayer(512, 8, 2048, dropout 0.1, batch_first), Linear(512, 30000), 128 tokens."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30000, 512)
        layer = nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 6)
        self.head = nn.Linear(512, 30000)

    def forward(self, ids):
        return self.head(self.encoder(self.emb(ids))).flatten(1)


def export(model, example):
    model.train()
    buf = io.BytesIO()
    torch.onnx.export(model, example, buf, opset_version=17, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}}, **make_onnx.TRAINING)
    return onnx.load_from_string(buf.getvalue())


def producer_of(graph, value):
    return next((n for n in graph.node if value in n.output), None)


def as_sdpa(model, dynamo):
    """Rewrites torch 1.13's q / sqrt(d) -> MatMul(q, k^T) into the 2.x exporters' scaling of both."""
    g = model.graph
    nodes = list(g.node)
    out = []
    before = {}  # a MatMul's name -> the Mul of its k^T, written just before it
    for n in nodes:
        if n.name in before:
            out.append(before[n.name])
        if n.op_type == "Div" and any(c.op_type == "MatMul" for c in nodes if n.output[0] in c.input):
            const = producer_of(g, n.input[1])
            d = onh.to_array(const.attribute[0].t).item() ** 2
            mm = next(c for c in nodes if c.op_type == "MatMul" and n.output[0] in c.input)
            scope = n.name.rsplit("/", 1)[0] + "/"
            k_t = mm.input[1]
            root = np.array(math.sqrt(1 / math.sqrt(d)), dtype=np.float32)
            if dynamo:  # one stored sqrt(scale), read by both Muls
                g.initializer.append(onh.from_array(root.reshape(1), "sdpa_sqrt_scale"))
                sq = sk = "sdpa_sqrt_scale"
            else:  # Sqrt(scale) per operand
                out.append(oh.make_node("Constant", [], [scope + "scale"], name=scope + "Constant_scale",
                                        value=onh.from_array(np.array(1 / math.sqrt(d), dtype=np.float32))))
                out.append(oh.make_node("Sqrt", [scope + "scale"], [scope + "sqrt_q"], name=scope + "Sqrt_1"))
                out.append(oh.make_node("Sqrt", [scope + "scale"], [scope + "sqrt_k"], name=scope + "Sqrt_2"))
                sq, sk = scope + "sqrt_q", scope + "sqrt_k"
            out.append(oh.make_node("Mul", [n.input[0], sq], [n.output[0]], name=scope + "Mul_q"))
            before[mm.name] = oh.make_node("Mul", [k_t, sk], [scope + "k_scaled"], name=scope + "Mul_k")
            mm.input[1] = scope + "k_scaled"
            continue
        out.append(n)
    del g.node[:]
    g.node.extend(out)
    if dynamo:
        flatten_for_dynamo(g)
    return model


def flatten_for_dynamo(g):
    """The dynamo exporter's storage and naming: [E, 3E] in-projection, no module scopes in node names."""
    inits = {t.name: t for t in g.initializer}
    keep = []
    for n in g.node:
        if n.op_type == "Transpose" and n.input[0].endswith(".in_proj_weight"):
            w = onh.to_array(inits[n.input[0]])
            g.initializer.append(onh.from_array(np.ascontiguousarray(w.T), "val_in_proj"))
            for c in g.node:
                for j, v in enumerate(c.input):
                    if v == n.output[0]:
                        c.input[j] = "val_in_proj"
            continue
        keep.append(n)
    del g.node[:]
    g.node.extend(keep)
    for i, n in enumerate(g.node):
        p = producer_of(g, n.input[0]) if n.op_type == "MatMul" else None
        if p is not None and p.op_type == "Dropout":
            p = producer_of(g, p.input[0])
        last_matmul = p is not None and p.op_type == "Softmax"
        n.name = "node_scaled_dot_product_attention" if last_matmul else f"node_{n.op_type}_{i}"
    used = {v for n in g.node for v in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)


def separate_projections():
    """Hand-built: scaled_dot_product_attention as the 2.x exporters write it (q, k^T times one stored
    sqrt(scale)) on q, k, v from three separate [16, 16] projections (as Hugging Face models have them),
    x [B, 4, 16], 2 heads of 8: no nn.MultiheadAttention around it, so it stays operator by operator."""
    f32 = onnx.TensorProto.FLOAT
    inits = [onh.from_array(np.zeros((16, 16), np.float32), n) for n in ("w_q", "w_k", "w_v", "w_o")]
    inits += [onh.from_array(np.array([0, 4, 2, 8], np.int64), "heads"),
              onh.from_array(np.array([0, 4, 16], np.int64), "merged"),
              onh.from_array(np.array([8 ** -0.25], np.float32), "sqrt_scale")]
    nodes = []
    for t in ("q", "k", "v"):
        nodes += [oh.make_node("MatMul", ["input", "w_" + t], [t + "_proj"], name=f"node_linear_{t}"),
                  oh.make_node("Reshape", [t + "_proj", "heads"], [t + "_heads"], name=f"node_view_{t}")]
    nodes += [oh.make_node("Transpose", ["q_heads"], ["q"], name="node_transpose_q", perm=[0, 2, 1, 3]),
              oh.make_node("Transpose", ["k_heads"], ["k_t"], name="node_transpose_k", perm=[0, 2, 3, 1]),
              oh.make_node("Transpose", ["v_heads"], ["v"], name="node_transpose_v", perm=[0, 2, 1, 3]),
              oh.make_node("Mul", ["q", "sqrt_scale"], ["q_scaled"], name="node_Mul_1"),
              oh.make_node("Mul", ["k_t", "sqrt_scale"], ["k_scaled"], name="node_Mul_2"),
              oh.make_node("MatMul", ["q_scaled", "k_scaled"], ["scores"], name="node_MatMul_3"),
              oh.make_node("Softmax", ["scores"], ["probs"], name="node_Softmax_4", axis=-1),
              oh.make_node("MatMul", ["probs", "v"], ["attn"], name="node_scaled_dot_product_attention"),
              oh.make_node("Transpose", ["attn"], ["attn_t"], name="node_permute", perm=[0, 2, 1, 3]),
              oh.make_node("Reshape", ["attn_t", "merged"], ["attn_merged"], name="node_view_o"),
              oh.make_node("MatMul", ["attn_merged", "w_o"], ["output"], name="node_linear_o")]
    g = oh.make_graph(nodes, "separate_projections",
                      [oh.make_tensor_value_info("input", f32, ["batch", 4, 16])],
                      [oh.make_tensor_value_info("output", f32, ["batch", 4, 16])], inits)
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 20)], producer_name="make_attention.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "attention"))
    ap.add_argument("--shared-lm", action="store_true", help="only measure SharedLM (docs/onnx-import.md)")
    args = ap.parse_args()
    out = args.out
    if args.shared_lm:
        mn.TOKEN_INPUTS["shared_lm"] = 30000
        _, entry = mn.measure_network("shared_lm", SharedLM, [128], "cross_entropy")
        print(entry)
        return
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    make_onnx.save(separate_projections(), out, "sdpa_separate_projections.onnx")
    for name, (build, shape) in MODELS.items():
        model, entry = mn.measure_network(name, build, shape, "cross_entropy")
        print(name, {k: entry[k] for k in ("parameters", "activation_bytes_per_sample", "activation_bytes_fixed",
                                           "activation_bytes_per_sample_raw", "adjustments_per_sample")})
        example = torch.randint(0, TinyLM.VOCAB, [1] + shape) if name == "lm" else torch.randn([1] + shape)
        for variant, dynamo in (("ts2", False), ("dynamo", True)):
            m = as_sdpa(export(model.model, example), dynamo)
            onnx.checker.check_model(m)
            make_onnx.save(make_onnx.strip(m), out, f"{name}_{variant}.onnx")


if __name__ == "__main__":
    mn.TOKEN_INPUTS["lm"] = TinyLM.VOCAB
    main()
