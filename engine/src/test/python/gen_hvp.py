#!/usr/bin/python3
"""Hessian-vector products of the conformance cases, from PyTorch 1.13 in float64.

Each case's program.grad is run as Python (the format is a Python subset): leaves load in/NAME.npy,
functions are the PyTorch ones the format names. For every param leaf, a random vector v (seeded by
the case and leaf name) and H·v = torch.autograd.functional.hvp of the objective with respect to
that leaf, the other leaves held fixed, are written to ref/hvp/NAME.vector.npy and NAME.hvp.npy.

Run: /usr/bin/python3 engine/src/test/python/gen_hvp.py  (Debian's python3-torch)
"""
import ast
import contextlib
import os
import zlib

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.join(os.path.dirname(__file__), "..", "resources", "conformance")


def attention(q, k, v, causal=False):
    d = q.shape[-1]
    s = q @ k.transpose(-2, -1) / d ** 0.5
    if causal:
        s = s + torch.triu(torch.full(s.shape[-2:], float("-inf"), dtype=s.dtype), diagonal=1)
    return torch.softmax(s, -1) @ v


FUNCTIONS = {
    "relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "exp": torch.exp, "log": torch.log,
    "gelu": lambda x, approximate="none": F.gelu(x, approximate=approximate), "softplus": F.softplus, "silu": F.silu,
    "sum": lambda x, axis=None, keepdim=False: x.sum() if axis is None and not keepdim else x.sum(dim=axis, keepdim=keepdim),
    "mean": lambda x, axis=None, keepdim=False: x.mean() if axis is None and not keepdim else x.mean(dim=axis, keepdim=keepdim),
    "amax": lambda x, axis=None, keepdim=False: torch.amax(x, dim=axis if axis is not None else tuple(range(x.dim())), keepdim=keepdim),
    "logsumexp": lambda x, axis=-1, keepdim=False: torch.logsumexp(x, dim=axis, keepdim=keepdim),
    "softmax": lambda x, axis=-1: torch.softmax(x, axis),
    "log_softmax": lambda x, axis=-1: torch.log_softmax(x, axis),
    "transpose": lambda x, a=-2, b=-1: x.transpose(a, b),
    "reshape": lambda x, *d: x.reshape(d),
    "permute": lambda x, *p: x.permute(*p),
    "slice": lambda x, axis, start, stop: x.narrow(axis, start, stop - start),
    "cross_entropy": F.cross_entropy, "mse": F.mse_loss,
    "layer_norm": lambda x, w, b, eps=1e-5: F.layer_norm(x, x.shape[-1:], w, b, eps),
    "attention": attention,
    "checkpoint": contextlib.nullcontext, "group": lambda name: contextlib.nullcontext(),
}


def run(source, leaves):
    """The program's objective, with its leaf statements bound to `leaves`."""
    tree = ast.parse(source)
    env = dict(FUNCTIONS)
    last = None

    def execute(stmts):
        nonlocal last
        for st in stmts:
            if isinstance(st, ast.With):
                execute(st.body)
                continue
            name = st.targets[0].id
            call = st.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("param", "input", "labels"):
                env[name] = leaves[name]
            else:
                env[name] = eval(compile(ast.Expression(call), "<grad>", "eval"), env)
            last = env[name]
    execute(tree.body)
    return last


def main():
    for case in sorted(os.listdir(ROOT)):
        folder = os.path.join(ROOT, case)
        if not os.path.isdir(folder):
            continue
        source = open(os.path.join(folder, "program.grad")).read()
        leaves = {}
        for f in os.listdir(os.path.join(folder, "in")):
            a = np.load(os.path.join(folder, "in", f))
            leaves[f[:-4]] = torch.from_numpy(a)
        expected = np.load(os.path.join(folder, "ref", "objective.npy"))
        got = run(source, leaves).detach().numpy()
        assert np.allclose(got, expected, rtol=1e-10, atol=0), (case, got, expected)
        params = [n for n in leaves if f"{n} = param(" in source]
        out = os.path.join(folder, "ref", "hvp")
        os.makedirs(out, exist_ok=True)
        for name in sorted(params):
            gen = torch.Generator().manual_seed(zlib.crc32(f"{case}/{name}".encode()))
            v = torch.randn(leaves[name].shape, generator=gen, dtype=torch.float64)

            def f(x, name=name):
                return run(source, {**leaves, name: x})
            _, hv = torch.autograd.functional.hvp(f, leaves[name], v)
            np.save(os.path.join(out, name + ".vector.npy"), v.numpy())
            np.save(os.path.join(out, name + ".hvp.npy"), hv.numpy())
            print(case, name, tuple(hv.shape))


main()
