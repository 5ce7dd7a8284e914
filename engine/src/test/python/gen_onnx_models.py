#!/usr/bin/python3
"""Generates engine/src/test/resources/onnx/: small PyTorch models exported to ONNX, with PyTorch's
float64 gradients of the objective (the sum of the first output) w.r.t. every parameter.

For each model, DIR/NAME/ holds:
  model.onnx            torch.onnx.export of the model (float32 weights)
  input.npy             the input the reference ran on (float32, or int64 token ids)
  reference.json        {"objective": float64 sum(output),
                         "grads": {ONNX initializer name: file under grad/ (float64 .npy), or null for buffers}}
  grad/*.npy            the gradients, laid out as the initializer is (transposed where the exporter folded a transpose)

The weights are perturbed before export so no two initializers hold equal values (the exporter ties
equal initializers together). The reference runs the same float32 weights in float64.

Run: /usr/bin/python3 engine/src/test/python/gen_onnx_models.py [NAME ...]  (Debian's python3-torch)
     names: only those models; add --dump to print each exported graph.
"""
import json
import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import onnx_wire  # noqa: E402

OUT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "resources", "onnx"))


class CNN(nn.Module):
    """Conv + batch norm + ReLU + max pool, twice; global average pool; a linear head."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 6, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(6)
        self.pool = nn.MaxPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x)


class LeNet(nn.Module):
    """LeNet-5 in small: tanh convolutions with average pooling, sigmoid and ReLU in the classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 5)
        self.conv2 = nn.Conv2d(3, 4, 3)
        self.fc1 = nn.Linear(16, 10)
        self.fc2 = nn.Linear(10, 8)
        self.fc3 = nn.Linear(8, 4)

    def forward(self, x):
        x = F.avg_pool2d(torch.tanh(self.conv1(x)), 2)
        x = F.max_pool2d(torch.tanh(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        x = torch.sigmoid(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class MLP(nn.Module):
    """Linear layers with ReLU, tanh, dropout (identity in eval) and a log-softmax."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 12), nn.Tanh(), nn.Linear(12, 5))

    def forward(self, x):
        return F.log_softmax(self.net(x), dim=-1)


class Block(nn.Module):
    """A pre-norm transformer block: causal self-attention and a GELU MLP, each with a residual."""

    def __init__(self, d=8, heads=2, t=5):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(t, t)))

    def attn(self, x):
        b, t, d = x.size()
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        s = (q @ k.transpose(-2, -1)) / math.sqrt(d // h)
        s = s.masked_fill(self.mask[:t, :t] == 0, float("-inf"))
        y = torch.softmax(s, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Embed(nn.Module):
    """Token and position embeddings, a 1-D convolution and max pool, mean over time, a linear head."""

    def __init__(self, vocab=20, d=6, t=6):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(t, d)
        self.conv = nn.Conv1d(d, 5, 3, padding=1)
        self.head = nn.Linear(10, 3)

    def forward(self, ids):
        t = ids.size(1)
        x = self.tok(ids) + self.pos(torch.arange(t)).unsqueeze(0)
        x = F.max_pool1d(F.relu(self.conv(x.transpose(1, 2))), 2)
        pooled = torch.cat([x.mean(dim=2, keepdim=True).squeeze(2), x[:, :, -1]], dim=1)
        h = self.head(pooled)
        gate = torch.sigmoid(pooled[:, 0]).unsqueeze(1)
        return h * gate + h.sum(dim=-1, keepdim=True)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=2, dilation=2, groups=2, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout)) \
            if stride != 1 or cin != cout else nn.Sequential()

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + self.shortcut(x))


class ResNet(nn.Module):
    """A stem and two residual blocks (ResNet's BasicBlock: grouped, dilated and strided convolutions)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(2, 4, 3, padding=1, bias=False)
        self.layer1 = nn.Sequential(BasicBlock(4, 4, 1), BasicBlock(4, 6, 2))
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        x = self.layer1(F.relu(self.stem(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class Misc(nn.Module):
    """The rest of the operators: asymmetric padding, strided rectangular convolution, average pooling
    without the padding counted, global max pool, slicing, max over an axis, gathering a permutation,
    layer norm without bias, expand, clamp."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, (3, 2), stride=(1, 2))
        self.ln_weight = nn.Parameter(torch.ones(6))
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        x = self.conv(F.pad(x, (1, 0, 2, 1)))
        a = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
        m = F.adaptive_max_pool2d(x, 1).flatten(1)
        s = a[:, :, 1:3, :].amax(dim=-1).flatten(1)
        t = s[:, [0, 2, 1, 5, 4, 3]]
        y = F.layer_norm(t, (6,), self.ln_weight, None) + m.mean(dim=1, keepdim=True).expand(-1, 6)
        return self.fc(torch.clamp(y, -1.0, 1.5))


class CeilPool(nn.Module):
    """Pooling with ceil_mode=True (GoogLeNet's and ShuffleNet's stems): a max pool whose last window
    hangs over the edge, average pools with and without the padding counted (PyTorch exports the
    counted padding as a Pad before the AveragePool), and a 1-D average pool."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.fc = nn.Linear(3 * 9 + 3 * 9 + 3 * 6, 3)

    def forward(self, x):
        x = torch.tanh(self.conv(x))
        m = F.max_pool2d(x, 3, stride=2, ceil_mode=True)
        a = F.avg_pool2d(m, 3, stride=2, padding=1, ceil_mode=True)
        b = F.avg_pool2d(m, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        c = F.avg_pool1d(m.flatten(2), 3, stride=3, ceil_mode=True)
        return self.fc(torch.cat([a.flatten(1), b.flatten(1), c.flatten(1)], dim=1))


class TensorOps(nn.Module):
    """The ops PyTorch users reach for, as PyTorch 1.13 exports them at opset 17: the activations
    (LeakyRelu, Elu, HardSwish, HardSigmoid), ConvTranspose (2-D and 1-D), Resize (nn.Upsample nearest
    and bilinear, with and without align_corners; a scale of 1.3 on 4 pixels), CumSum, Trilu, ReduceProd, Max/Min, GatherElements,
    ScatterElements (add), Einsum, Pad (reflect, edge, a value), InstanceNormalization (nn.GroupNorm's
    export and nn.InstanceNorm2d's)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.up = nn.ConvTranspose2d(3, 3, 3, stride=2, padding=1, output_padding=1)
        self.gn = nn.GroupNorm(3, 3)
        self.inorm = nn.InstanceNorm2d(3, affine=True)
        self.up1 = nn.ConvTranspose1d(3, 2, 3, stride=2)
        self.fc = nn.Linear(32, 3)

    def forward(self, x):
        y = self.conv(x)                                                                  # [2, 3, 4, 4]
        y = F.leaky_relu(y, 0.2) + F.elu(y, 0.5) + F.hardswish(y) + F.hardsigmoid(y)
        u = self.up(y)                                                                    # [2, 3, 8, 8]
        r = F.interpolate(y, scale_factor=2, mode="nearest") + F.interpolate(y, size=(8, 8), mode="bilinear") \
            + F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=True)
        z = u * r
        c = torch.cumsum(z, 3) + torch.tril(z) + torch.triu(z, 1)
        p = torch.prod(c[:, :, :, :3] * 0.5 + 1, 3, keepdim=True)                        # [2, 3, 8, 1]
        m = torch.maximum(c, z) - torch.minimum(c, u)
        idx = torch.tensor([[[[0, 2], [1, 1], [3, 0], [2, 2], [0, 1], [3, 3], [1, 0], [2, 3]]]]).expand(2, 3, 8, 2)
        g = torch.gather(m, 3, idx)                                                       # [2, 3, 8, 2]
        s = torch.zeros_like(m).scatter_add(3, idx, g)
        e = torch.einsum("nchw,nchw->nch", s + m, z)                                       # [2, 3, 8]
        q = F.pad(m, (1, 2, 0, 1), mode="reflect")[:, :, :8, :8] + F.pad(m, (2, 0, 1, 1), mode="replicate")[:, :, 1:9, :8] \
            + F.pad(m, (1, 1), value=0.5)[:, :, :, 1:9]
        n = self.gn(q) + self.inorm(q)
        v = self.up1(n.mean(dim=3))                                                       # [2, 2, 17]
        w = F.interpolate(y, scale_factor=1.3, mode="nearest") * F.interpolate(y, scale_factor=1.3, mode="bilinear")  # [2, 3, 5, 5]
        feats = torch.cat([p.flatten(1)[:, :8], e.flatten(1)[:, :9], v.flatten(1)[:, :10], w.flatten(1)[:, 3:8]], dim=1)
        return self.fc(feats)


def perturb(model, seed):
    """Random distinct values for every parameter and buffer (running variances stay positive)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in list(model.named_parameters()) + list(model.named_buffers()):
            if not p.dtype.is_floating_point or name.endswith("mask"):
                continue
            r = torch.rand(p.shape, generator=g, dtype=torch.float64)
            if name.endswith("running_var"):
                p.copy_(0.5 + r)
            elif name.endswith("running_mean"):
                p.copy_(r - 0.5)
            elif (name.endswith(".weight") or name.endswith("ln_weight")) and p.dim() == 1:  # norm scales near 1
                p.copy_(0.75 + 0.5 * r)
            else:
                fan_in = p[0].numel() if p.dim() > 1 else p.numel()
                p.copy_((2 * r - 1) / math.sqrt(fan_in))


def initializer_array(t):
    dt = {1: np.float32, 7: np.int64, 11: np.float64, 9: np.bool_}[t["dtype"]]
    return np.frombuffer(t["raw"], dtype=dt).reshape(t["dims"]) if t["raw"] is not None else None


def export(name, model, x, opset, folding=True, seed=0, train=False):
    """train: exported and run in training mode (batch norm on the batch's statistics)."""
    torch.manual_seed(seed)
    model.train(train)
    perturb(model, seed)
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "grad"))
    path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, (x,), path, opset_version=opset, do_constant_folding=folding,
                      training=torch.onnx.TrainingMode.TRAINING if train else torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["output"])
    np.save(os.path.join(d, "input.npy"), x.numpy())
    # The reference: the same float32 weights and input, computed in float64.
    ref = model.double()
    xr = x.double() if x.dtype.is_floating_point else x
    params = dict(ref.named_parameters())
    out = ref(xr)
    objective = out.sum()
    grads = dict(zip(params, torch.autograd.grad(objective, list(params.values()))))
    m = onnx_wire.model(path)
    values = {}
    for n, p in list(ref.named_parameters()) + list(ref.named_buffers()):
        values[n] = p.detach().float().numpy()
    refs = {}
    for i, t in enumerate(m["initializers"]):
        a = initializer_array(t)
        match = None
        if a is not None and a.dtype == np.float32:
            for n, v in values.items():
                if v.shape == a.shape and np.array_equal(v, a):
                    match = (n, False)
                elif v.ndim == 2 and v.T.shape == a.shape and np.array_equal(v.T, a):
                    match = (n, True)
        if match is None or match[0] not in params:
            refs[t["name"]] = None
            continue
        g = grads[match[0]].detach().numpy()
        f = "g%d.npy" % i
        np.save(os.path.join(d, "grad", f), np.ascontiguousarray(g.T if match[1] else g))
        refs[t["name"]] = f
    missing = set(params) - {n for n in params if any(refs.get(t["name"]) for t in m["initializers"])}
    with open(os.path.join(d, "reference.json"), "w") as fh:
        json.dump({"generator": "gen_onnx_models.py", "torch": torch.__version__, "opset": opset,
                   "objective": objective.item(), "grads": refs}, fh, indent=1)
    if "--dump" in sys.argv:
        onnx_wire.dump(path)
    n_with = sum(1 for v in refs.values() if v)
    print(name, "opset", opset, len(m["nodes"]), "nodes,", n_with, "parameters with gradients of", len(params))
    assert n_with == len(params), "parameters without an initializer: %s" % sorted(params)


def main():
    global export
    only = [a for a in sys.argv[1:] if not a.startswith("-")]
    if only:  # regenerate just these models: the others keep their committed bytes
        export_all = export
        export = lambda name, *a, **kw: export_all(name, *a, **kw) if name in only else None  # noqa: E731
    gen = torch.Generator().manual_seed(7)
    export("cnn", CNN(), torch.randn(2, 3, 8, 8, generator=gen), 13, seed=1)
    export("lenet", LeNet(), torch.randn(2, 1, 16, 16, generator=gen), 13, folding=False, seed=2)
    export("mlp", MLP(), torch.randn(4, 8, generator=gen), 13, seed=3)
    export("transformer13", Block(), torch.randn(2, 5, 8, generator=gen), 13, seed=4)
    export("transformer17", Block(), torch.randn(2, 5, 8, generator=gen), 17, folding=False, seed=4)
    export("embedding", Embed(), torch.randint(0, 20, (2, 6), generator=gen), 13, folding=False, seed=5)
    export("resnet", ResNet(), torch.randn(2, 2, 8, 8, generator=gen), 13, seed=6)
    export("misc", Misc(), torch.randn(2, 2, 7, 6, generator=gen), 17, seed=7)
    # PyTorch's own pre-norm encoder layer: nn.MultiheadAttention exports its head split as Shape/Gather/Div chains
    export("mha", nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation="gelu", batch_first=True,
                                             norm_first=True), torch.randn(2, 5, 8, generator=gen), 13, seed=8)
    export("ceilpool", CeilPool(), torch.randn(2, 2, 8, 8, generator=gen), 13, seed=9)
    export("tensorops", TensorOps(), torch.randn(2, 2, 4, 4, generator=gen), 17, folding=False, seed=10)
    # the CNN exported from model.train(): BatchNormalization in training mode, the batch's statistics (its first
    # convolution without a bias too: before a batch norm on the batch's mean, a bias's gradient is 0 up to rounding)
    cnn_train = CNN()
    cnn_train.conv1 = nn.Conv2d(3, 4, 3, padding=1, bias=False)
    export("cnn_train", cnn_train, torch.randn(4, 3, 8, 8, generator=gen), 15, folding=False, seed=11, train=True)


if __name__ == "__main__":
    main()
