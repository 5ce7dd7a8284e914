"""Generates engine/src/test/resources/step/: three training steps captured by python/gradscope_torch.py
(a CNN with batch norm in training mode, a small transformer with a padding mask and label smoothing, an
LSTM classifier), each with PyTorch's float64 results beside the capture in float64/ (loss.npy and
grad/<parameter>.npy: the same step run by a float64 copy of the model from the captured float32 weights),
which the Java tests compare Gradscope's float64 run with.

    /usr/bin/python3 engine/src/test/python/gen_steps.py [NAME ...]
"""
import copy
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "python"))
import gradscope_torch  # noqa: E402

OUT = os.path.join(HERE, "..", "resources", "step")


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1, bias=False), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(6, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.Linear(8 * 2 * 2, 5)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, mask):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.reshape(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
        s = q @ k.transpose(-2, -1) / math.sqrt(d // h)
        s = s + (1.0 - mask[:, None, None, :]) * -1e4  # padding keys get no weight
        return self.proj((torch.softmax(s, -1) @ v).transpose(1, 2).reshape(b, t, d))


class Layer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x, mask):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.mlp(self.ln2(x))


class Transformer(nn.Module):
    """Token ids [B, T] and a padding mask [B, T] (1 token, 0 padding) to logits per token [B, V, T]."""

    def __init__(self, vocab=12, d=16, t=6, heads=2, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(t, d) * 0.1)
        self.layers = nn.ModuleList(Layer(d, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids, mask):
        x = self.tok(ids) + self.pos
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(self.norm(x)).transpose(1, 2)


class LSTMClassifier(nn.Module):
    def __init__(self, vocab=15, d=8, hidden=10, classes=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, ids):
        out, (h, c) = self.lstm(self.embed(ids))
        return self.head(out[:, -1])


def cnn():
    torch.manual_seed(1)
    m = CNN().train()
    return m, torch.randn(4, 3, 8, 8), torch.tensor([0, 3, 1, 4]), nn.CrossEntropyLoss()


def transformer():
    torch.manual_seed(2)
    m = Transformer().train()
    with torch.no_grad():  # LayerNorms not at their initial ones and zeros
        for n, p in m.named_parameters():
            if "ln" in n or "norm" in n:
                p.add_(torch.randn_like(p) * 0.1)
    ids = torch.randint(0, 12, (3, 6))
    mask = torch.ones(3, 6)
    mask[1, 4:] = 0
    mask[2, 3:] = 0
    targets = torch.randint(0, 12, (3, 6))
    targets[mask == 0] = -100  # padding positions: ignored by the loss
    return m, (ids, mask), targets, nn.CrossEntropyLoss(label_smoothing=0.1)


def lstm():
    torch.manual_seed(3)
    m = LSTMClassifier().train()
    return m, torch.randint(0, 15, (3, 5)), torch.tensor([2, 0, 3]), nn.CrossEntropyLoss()


MODELS = {"cnn": cnn, "transformer": transformer, "lstm": lstm}


def float64_reference(folder, model, inputs, targets, loss_fn):
    m = copy.deepcopy(model).double()
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    inputs = tuple(x.double() if x.is_floating_point() else x for x in inputs)
    loss = loss_fn(m(*inputs), targets)
    loss.backward()
    os.makedirs(os.path.join(folder, "float64", "grad"), exist_ok=True)
    np.save(os.path.join(folder, "float64", "loss.npy"), loss.detach().numpy())
    for n, p in m.named_parameters():
        g = torch.zeros_like(p) if p.grad is None else p.grad
        np.save(os.path.join(folder, "float64", "grad", n + ".npy"), g.numpy())


def main(names):
    for name in names or MODELS:
        model, inputs, targets, loss_fn = MODELS[name]()
        folder = os.path.join(OUT, name)
        before = copy.deepcopy(model.state_dict())
        gradscope_torch.capture(model, inputs, targets, loss_fn, folder)
        assert all(torch.equal(before[k], v) for k, v in model.state_dict().items()), "capture changed the model"
        float64_reference(folder, model, inputs, targets, loss_fn)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs)
        print("%s: %d bytes" % (folder, size))


if __name__ == "__main__":
    main(sys.argv[1:])
