#!/usr/bin/python3
"""Generates engine/src/test/resources/onnx-zoo/: the standard architectures (torchvision 0.14 classifiers
with random weights, torch.nn blocks) exported by PyTorch 1.13 to ONNX, with checks of PyTorch's float64
gradients of the objective (the sum of the first output) w.r.t. every parameter.

A model's weights are far too big to commit (resnet50: 25M parameters). Instead every parameter and
buffer gets values from a counter-based generator (splitmix64, below) that the Java test repeats
exactly (GeneratedWeights.java): the committed model.onnx keeps each such initializer's name, type and
shape, with no data and a doc_string giving its recipe

    gradscope-zoo splitmix seed=S lo=LO hi=HI shape=D0,D1,... transpose=0|1

(values lo + (hi - lo) * u_i, u_i in [0, 1), laid out in PyTorch's shape, transposed where the exporter
transposed the weight; rounded to float32). The gradients are too big as well: reference.json holds,
per parameter (ONNX initializer name, ONNX layout), checks that fail on any wrong gradient: its L2
norm, its dot product with a fixed pseudo-random vector (the same generator, seed 999, in [-1, 1)),
the sum of |g_i r_i| (the dot's scale), its largest magnitude and six sampled elements.

For each model, DIR/NAME/ holds model.onnx (weights stripped), input.npy (float32 or int64 ids),
reference.json. The reference runs the same float32 weights and input in float64.

Run: /usr/bin/python3 engine/src/test/python/gen_onnx_zoo.py [--full DIR] [NAME ...]
     --full DIR also writes each model with its weights to DIR/NAME.onnx (for gradscope import/run).
     --bench DIR writes only the bench's models (resnet18 at 224x224, a 4-layer transformer encoder), stripped:
       /usr/bin/python3 engine/src/test/python/gen_onnx_zoo.py --bench app/src/main/resources/io/gradscope/app/cli/bench
"""
import json
import math
import os
import shutil
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tv
import torchvision.models.video as tvv

OUT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "resources", "onnx-zoo"))
M64 = (1 << 64) - 1
DOT_SEED = 999
SAMPLE_SEED = 555
SAMPLES = 6


def splitmix(seed, n):
    """n doubles in [0, 1): u_i = (mix(seed * C1 + (i + 1) * GOLDEN) >> 11) * 2^-53 (GeneratedWeights.uniform)."""
    with np.errstate(over="ignore"):
        base = np.uint64((seed * 0xD1B54A32D192ED03) & M64)
        z = base + (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)


def recipe(name, t):
    """The value range of a parameter or buffer: norm scales near 1, variances positive, weights ±sqrt(3 / fan_in)."""
    if name.endswith("running_var"):
        return 0.5, 1.5
    if name.endswith("running_mean"):
        return -0.1, 0.1
    if t.dim() <= 1:
        return (0.75, 1.25) if name.endswith("weight") else (-0.1, 0.1)
    b = math.sqrt(3.0 / (t.numel() // t.shape[0]))
    return -b, b


def fill(model, seed):
    """Sets every float parameter and buffer from the generator; returns name -> (seed, lo, hi)."""
    recipes = {}
    with torch.no_grad():
        for k, (name, p) in enumerate(list(model.named_parameters()) + list(model.named_buffers())):
            if not p.dtype.is_floating_point or name.endswith("mask"):
                continue
            lo, hi = recipe(name, p)
            s = seed * 100000 + k + 1
            v = (lo + (hi - lo) * splitmix(s, p.numel())).astype(np.float32).reshape(tuple(p.shape))
            p.copy_(torch.from_numpy(v))
            recipes[name] = (s, lo, hi)
    return recipes


def checks(g):
    """What reference.json keeps of a gradient (float64, ONNX layout)."""
    flat = g.reshape(-1)
    r = 2.0 * splitmix(DOT_SEED, flat.size) - 1.0
    idx = [int(u * flat.size) for u in splitmix(SAMPLE_SEED, SAMPLES)]
    return {"shape": list(g.shape), "norm": float(np.sqrt(np.sum(flat * flat))), "dot": float(np.sum(flat * r)),
            "absdot": float(np.sum(np.abs(flat * r))), "max": float(np.max(np.abs(flat))) if flat.size else 0.0,
            "samples": [[i, float(flat[i])] for i in idx]}


def export(name, model, x, opset=13, folding=True, seed=1, full=None):
    model.eval()
    recipes = fill(model, seed)
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, (x,), path, opset_version=opset, do_constant_folding=folding,
                      training=torch.onnx.TrainingMode.PRESERVE, input_names=["input"], output_names=["output"])
    np.save(os.path.join(d, "input.npy"), x.numpy())
    m = onnx.load(path)
    if full:
        shutil.copy(path, os.path.join(full, name + ".onnx"))
    # the reference: the same float32 weights and input in float64
    ref = model.double()
    xr = x.double() if x.dtype.is_floating_point else x
    params = dict(ref.named_parameters())
    out = ref(xr)
    objective = out.sum()
    grads = dict(zip(params, torch.autograd.grad(objective, list(params.values()))))
    values = {n: p.detach().float().numpy() for n, p in list(ref.named_parameters()) + list(ref.named_buffers())}
    refs = {}
    stripped = 0
    for t in m.graph.initializer:
        if t.data_type != onnx.TensorProto.FLOAT:
            continue
        a = onnx.numpy_helper.to_array(t)
        match = None
        cands = [t.name] if t.name in values else []
        cands += [n for n, v in values.items() if n != t.name and v.size == a.size and n in recipes]
        for n in cands:
            v = values[n]
            if v.shape == a.shape and np.array_equal(v, a):
                match = (n, False)
                break
            if v.ndim == 2 and v.T.shape == a.shape and np.array_equal(v.T, a):
                match = (n, True)
                break
        if match is None or match[0] not in recipes:
            assert a.size <= 4096, "%s: initializer %s (%d values) matches no parameter" % (name, t.name, a.size)
            continue
        n, tr = match
        s, lo, hi = recipes[n]
        t.ClearField("raw_data")
        t.ClearField("float_data")
        t.doc_string = "gradscope-zoo splitmix seed=%d lo=%r hi=%r shape=%s transpose=%d" % (
            s, lo, hi, ",".join(str(k) for k in values[n].shape), tr)
        stripped += 1
        if n in params:
            g = grads[n].detach().numpy()
            refs[t.name] = checks(np.ascontiguousarray(g.T if tr else g))
    missing = sorted(set(params) - {n for n in params if n in recipes})
    onnx.save(m, path)
    with open(os.path.join(d, "reference.json"), "w") as fh:
        json.dump({"generator": "gen_onnx_zoo.py", "torch": torch.__version__, "opset": opset,
                   "objective": objective.item(), "grads": refs}, fh, indent=1)
    nparams = sum(p.numel() for p in params.values())
    print("%-22s opset %d %5d nodes, %3d of %3d parameters checked (%d values), %d initializers stripped, %d KB" % (
        name, opset, len(m.graph.node), len(refs), len(params), nparams, stripped, os.path.getsize(path) // 1024))
    assert len(refs) == len(params), "%s: parameters without an initializer: %s" % (name, missing)


# ---- torch.nn blocks ------------------------------------------------------------------------------

class Segmentation(nn.Module):
    """torchvision's deeplabv3_mobilenet_v3_large, its "out" map (the dict's tensor)."""

    def __init__(self):
        super().__init__()
        import torchvision.models.segmentation as tvs
        self.net = tvs.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False, num_classes=5)

    def forward(self, x):
        return self.net(x)["out"]


class Masked(nn.Module):
    """A module called with a constant mask (a buffer, so the export folds it)."""

    def __init__(self, inner, t, kind):
        super().__init__()
        self.inner = inner
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        self.register_buffer("mask", causal if kind == "float" else causal.isinf())

    def forward(self, x):
        return self.inner(x, self.mask)


class SelfAttention(nn.Module):
    """nn.MultiheadAttention on its own: self-attention, the output only."""

    def __init__(self, d, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class GPTBlock(nn.Module):
    """A GPT-2 style pre-norm block: causal multi-head self-attention and a GELU MLP (tanh approximation), residuals."""

    def __init__(self, d=16, heads=4, t=6):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))
        self.register_buffer("mask", torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class EmbedNormGelu(nn.Module):
    """Token embedding + position embedding, LayerNorm, a GELU MLP."""

    def __init__(self, vocab=50, d=16, t=7):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(t, d)
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 32)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.size(1)))
        return self.fc2(F.gelu(self.fc1(self.ln(x))))


class Recurrent(nn.Module):
    """An LSTM or GRU (batch first, two layers), its output sequence only."""

    def __init__(self, kind, i=5, h=6, layers=2, bidirectional=False):
        super().__init__()
        self.rnn = (nn.LSTM if kind == "lstm" else nn.GRU)(i, h, layers, batch_first=True, bidirectional=bidirectional)

    def forward(self, x):
        return self.rnn(x)[0]


class Activations(nn.Module):
    """The activations of torch.nn that export as ONNX operators of their own (and a few composed ones), each on a linear layer."""

    def __init__(self, d=12):
        super().__init__()
        acts = [nn.LeakyReLU(0.1), nn.ELU(0.7), nn.SELU(), nn.PReLU(d), nn.Softsign(), nn.Hardsigmoid(), nn.Hardswish(),
                nn.Mish(), nn.ReLU6(), nn.SiLU(), nn.Hardtanh(-0.5, 0.8), nn.GELU(approximate="tanh")]
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in acts)
        self.acts = nn.ModuleList(acts)

    def forward(self, x):
        for lin, act in zip(self.layers, self.acts):
            x = act(lin(x) * 3)
        return x


def encoder_layer(d=16, heads=4, ff=32, norm_first=False):
    return nn.TransformerEncoderLayer(d, heads, dim_feedforward=ff, dropout=0.0, batch_first=True, norm_first=norm_first)


MODELS = {
    # torchvision classifiers, random weights
    "resnet18": (lambda: tv.resnet18(weights=None), (1, 3, 64, 64), 13),
    "vgg11": (lambda: vgg11_narrow(), (1, 3, 224, 224), 13),
    "squeezenet1_0": (lambda: tv.squeezenet1_0(weights=None), (1, 3, 64, 64), 13),
    "mobilenet_v2": (lambda: tv.mobilenet_v2(weights=None), (1, 3, 64, 64), 13),
    "shufflenet_v2_x0_5": (lambda: tv.shufflenet_v2_x0_5(weights=None), (1, 3, 64, 64), 13),
    "densenet121": (lambda: tv.densenet121(weights=None), (1, 3, 64, 64), 13),
    "googlenet": (lambda: tv.googlenet(weights=None, aux_logits=False, init_weights=False), (1, 3, 64, 64), 13),
    "efficientnet_b0": (lambda: tv.efficientnet_b0(weights=None), (1, 3, 64, 64), 13),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(weights=None), (1, 3, 64, 64), 17),
    "resnet50": (lambda: tv.resnet50(weights=None), (1, 3, 64, 64), 13),
    "vit_b_16": (lambda: tv.vit_b_16(weights=None, image_size=32), (1, 3, 32, 32), 14),
    # torch.nn blocks
    "encoder_layer": (lambda: encoder_layer(), (2, 6, 16), 13),
    "encoder_layer_mask": (lambda: Masked(encoder_layer(norm_first=True), 6, "float"), (2, 6, 16), 17),
    "encoder": (lambda: nn.TransformerEncoder(encoder_layer(), 2, enable_nested_tensor=False), (2, 6, 16), 13),
    "encoder_mask": (lambda: Masked(nn.TransformerEncoder(encoder_layer(), 2, enable_nested_tensor=False), 6, "bool"),
                     (2, 6, 16), 15),
    "multihead_attention": (lambda: SelfAttention(16, 4), (2, 6, 16), 16),
    "gpt_block": (lambda: GPTBlock(), (2, 6, 16), 14),
    "embed_norm_gelu": (lambda: EmbedNormGelu(), "ids", 13),
    "lstm": (lambda: Recurrent("lstm"), (2, 4, 5), 13),
    "gru": (lambda: Recurrent("gru"), (2, 4, 5), 13),
    "lstm_bidirectional": (lambda: Recurrent("lstm", bidirectional=True), (2, 4, 5), 14),
    "gru_bidirectional": (lambda: Recurrent("gru", bidirectional=True), (2, 4, 5), 14),
    "activations": (lambda: Activations(), (4, 12), 14),
    # issue 44: window attention (shifted windows, padded to the 7x7 window: Mod and ScatterND folded, PatchMerging's stepped slices)
    "swin_t": (lambda: swin_t_shallow(), (1, 3, 64, 64), 14),
    # issue 44: 3-D convolution and batch norm on 5-D tensors (a clip of 4 frames of 16x16)
    "r3d_18": (lambda: tvv.r3d_18(weights=None), (1, 3, 4, 16, 16), 13),
    # Conv3d with a depth stride, dilation and padding unlike r3d_18's, BatchNorm3d, a batch of two
    "conv3d_block": (lambda: nn.Sequential(nn.Conv3d(2, 4, (2, 3, 3), stride=(2, 1, 2), padding=(1, 0, 1), dilation=(2, 1, 1)),
                                           nn.BatchNorm3d(4), nn.ReLU(), nn.Conv3d(4, 3, 3, padding=1, bias=False)), (2, 2, 5, 6, 7), 13),
    # MaxPool3d and AvgPool3d (padded depth, a depth stride, count_include_pad), AdaptiveAvgPool3d
    "pool3d_block": (lambda: nn.Sequential(nn.Conv3d(2, 3, 3, padding=1), nn.MaxPool3d(3, stride=2, padding=1), nn.ReLU(),
                                           nn.AvgPool3d(2, stride=1, padding=(1, 0, 1)), nn.MaxPool3d((2, 2, 1), stride=(2, 1, 1)),
                                           nn.Conv3d(3, 2, 1), nn.AdaptiveAvgPool3d(1), nn.Flatten()), (2, 2, 5, 8, 7), 13),
    # issue 44: segmentation (dilated convolutions whose windows lie in the padding on a 4x4 map, bilinear
    # upsampling to the input's size) and convnext at a small input (7x7 depthwise kernels, padding 3, on 2x2)
    "deeplabv3_mobilenet_v3_large": (lambda: Segmentation(), (1, 3, 64, 64), 13),
    "convnext_tiny": (lambda: tv.convnext_tiny(weights=None), (1, 3, 64, 64), 13),
}

NO_FOLDING = {"lstm", "gru", "lstm_bidirectional", "gru_bidirectional",  # the exporter would fold the gate reordering of the weights
              "swin_t", "r3d_18", "conv3d_block", "pool3d_block"}  # into new initializers, swin_t's relative position bias (the table gathered by its index),
# r3d_18's batch norms into its convolutions' weights


def vgg11_narrow():
    """VGG-11's layout (torchvision's VGG and make_layers) with an eighth of the channels and a narrow classifier."""
    from torchvision.models.vgg import VGG, make_layers
    cfg = [8, "M", 16, "M", 32, 32, "M", 64, 64, "M", 64, 64, "M"]
    m = VGG(make_layers(cfg), num_classes=10, init_weights=False)
    m.classifier = nn.Sequential(nn.Linear(64 * 7 * 7, 128), nn.ReLU(True), nn.Dropout(), nn.Linear(128, 128), nn.ReLU(True),
                                 nn.Dropout(), nn.Linear(128, 10))
    return m


def swin_t_shallow():
    """swin_t's layout (torchvision's SwinTransformer as swin_t builds it) with depths 2, 2, 1, 1 instead of 2, 2, 6, 2: at
    64x64 the windows shift in the first two stages only (the 4x4 and 2x2 maps fit one window), so every kind of node stays
    (Mod for the padding, ScatterND for the shifted windows' mask, PatchMerging's stepped slices) in half the graph."""
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=96, depths=[2, 2, 1, 1], num_heads=[3, 6, 12, 24], window_size=[7, 7],
                           stochastic_depth_prob=0.2)


# `gradscope bench`'s training steps (app/src/main/resources/io/gradscope/app/cli/bench/), weights generated
BENCH = {
    "resnet18_224": (lambda: tv.resnet18(weights=None), (1, 3, 224, 224), 13),
    "transformer_encoder": (lambda: nn.TransformerEncoder(encoder_layer(256, 8, 1024), 4, enable_nested_tensor=False),
                            (8, 128, 256), 13),
}


def export_bench(d):
    """The bench's models, weights stripped (no references: the bench times them)."""
    os.makedirs(d, exist_ok=True)
    for k, (name, (make, shape, opset)) in enumerate(BENCH.items()):
        model = make().eval()
        recipes = fill(model, 900 + k)
        path = os.path.join(d, name + ".onnx")
        torch.onnx.export(model, (torch.zeros(*shape),), path, opset_version=opset, training=torch.onnx.TrainingMode.PRESERVE,
                          input_names=["input"], output_names=["output"])
        m = onnx.load(path)
        values = {n: p.detach().numpy() for n, p in list(model.named_parameters()) + list(model.named_buffers())}
        for t in m.graph.initializer:
            if t.data_type != onnx.TensorProto.FLOAT:
                continue
            a = onnx.numpy_helper.to_array(t)
            for n, v in values.items():
                if n in recipes and v.size == a.size and (np.array_equal(v, a) or v.ndim == 2 and np.array_equal(v.T, a)):
                    tr = not np.array_equal(v, a) if v.shape == a.shape else True
                    s, lo, hi = recipes[n]
                    t.ClearField("raw_data")
                    t.doc_string = "gradscope-zoo splitmix seed=%d lo=%r hi=%r shape=%s transpose=%d" % (
                        s, lo, hi, ",".join(str(k) for k in v.shape), tr)
                    break
        onnx.save(m, path)
        print(name, len(m.graph.node), "nodes,", os.path.getsize(path) // 1024, "KB")


def main():
    args = sys.argv[1:]
    if "--bench" in args:
        export_bench(args[args.index("--bench") + 1])
        return
    full = None
    if "--full" in args:
        i = args.index("--full")
        full = args[i + 1]
        del args[i:i + 2]
        os.makedirs(full, exist_ok=True)
    names = args or list(MODELS)
    gen = torch.Generator().manual_seed(11)
    for k, name in enumerate(MODELS):
        make, shape, opset = MODELS[name]
        x = torch.randint(0, 50, (2, 7), generator=gen) if shape == "ids" else torch.randn(*shape, generator=gen)
        if name in names:
            export(name, make(), x, opset, folding=name not in NO_FOLDING, seed=k + 1, full=full)


if __name__ == "__main__":
    main()
