#!/usr/bin/python3
"""Hessian-vector products of the conformance cases, from PyTorch 1.13 in float64.

Each case's program.grad is run as Python (the format is a Python subset): leaves load in/NAME.npy,
functions are the op table's PyTorch references, read from torch_references.json (the engine's specs
export it; see TorchReferencesTest), each first checked against the op table's rows. For every param leaf, a random vector v (seeded by
the case and leaf name) and H·v = torch.autograd.functional.hvp of the objective with respect to
that leaf, the other leaves held fixed, are written to ref/hvp/NAME.vector.npy and NAME.hvp.npy.

Run: /usr/bin/python3 engine/src/test/python/gen_hvp.py  (Debian's python3-torch)
"""
import ast
import contextlib
import inspect
import json
import os
import zlib

import numpy as np
import torch

from torch_references import load_references

ROOT = os.path.join(os.path.dirname(__file__), "..", "resources", "conformance")


RESOURCES = os.path.join(os.path.dirname(__file__), "..", "resources")


# The functions the programs call: the op table's references, and the two block contexts.
FUNCTIONS = {**load_references(),
             "checkpoint": contextlib.nullcontext, "group": lambda name: contextlib.nullcontext()}


def check_references():
    """Each reference, called as a program calls it, gives PyTorch's value of every op-table row."""
    with open(os.path.join(RESOURCES, "optable.json")) as f:
        rows = json.load(f)["rows"]
    for r in rows:
        fn = FUNCTIONS[r["op"]]
        xs = [torch.tensor(a["data"], dtype=torch.int64 if a["dtype"] == "int64" else torch.float64).reshape(a["shape"])
              for a in r["inputs"]]
        attrs = dict(r["attrs"])
        # A dimension list (reshape's shape) is the rest of the positional arguments, as programs give it.
        rest = [p for p in inspect.signature(fn).parameters.values() if p.kind == p.VAR_POSITIONAL]
        if rest and rest[0].name in attrs:
            xs += attrs.pop(rest[0].name)
        got = fn(*xs, **attrs)
        want = torch.tensor(r["output"]["data"], dtype=torch.float64).reshape(r["output"]["shape"])
        assert got.shape == want.shape and torch.allclose(got.double(), want, rtol=1e-12, atol=1e-14, equal_nan=True), \
            (r["op"], r["attrs"])


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
    check_references()
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
