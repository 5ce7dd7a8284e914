#!/usr/bin/python3
"""PyTorch 1.13 references (float64) for programs that unpack split(...) and chunk(...).

Each program below is run as Python (the .grad format is a Python subset): leaves are seeded random
float64 tensors, split and chunk are torch.split and torch.chunk with axis as dim, the other
functions torch's. The leaves' values, every named value and the gradient of every leaf are written
to ../resources/program/split_chunk.json; SplitChunkTest feeds the leaves to the engine and compares.

Run: /usr/bin/python3 engine/src/test/python/gen_split_chunk.py
"""
import json
import os

import torch

PROGRAMS = {
    "chunk and split along each axis": """\
x = input(5, 7, grad=True)
u = input(5, 7)
a, b, c = chunk(x, 3, axis=1)
p, q = split(x * u, 3)
r, s, t = split(x, (2, 0, 5), axis=-1)
e, f, g = chunk(x, 4)
obj = sum(a * a) + sum(exp(b)) + sum(tanh(c)) + sum(p) * 0.5 + sum(q * q) + sum(r) + sum(s) + sum(t * t * t) + sum(e) - sum(f * f) + sum(exp(g))
""",
    "pieces of a computed value, reused": """\
x = input(2, 6, 3, grad=True)
W = input(3, 4, grad=True)
h = x @ W
a, b, c = split(h, 2, axis=1)
lo, hi = chunk(h, 2, axis=-1)
obj = sum(a * c) + sum(sigmoid(b)) + sum(lo * hi) + sum(a)
""",
    # issue 44: an axis of 5 split by 5 (or chunked into 1) is one piece, bound to one name
    "one piece binds one name": """\
x = input(3, 5, grad=True)
q0 = split(x, 5, axis=1)
c0 = chunk(x, 1)
obj = sum(q0 * q0) + sum(exp(c0))
""",
}


def one(pieces):
    """A call that gives one piece is that piece (the .grad format binds it to one name)."""
    return pieces[0] if len(pieces) == 1 else pieces


def run(name, source, seed):
    g = torch.Generator().manual_seed(seed)
    leaves = []

    def leaf(*shape, grad=False):
        t = torch.randn(shape, dtype=torch.float64, generator=g)
        leaves.append(t)
        return t.requires_grad_(grad)

    env = {
        "input": leaf, "param": lambda *s: leaf(*s, grad=True),
        "chunk": lambda x, chunks, axis=0: one(torch.chunk(x, chunks, dim=axis)),
        "split": lambda x, size, axis=0: one(torch.split(x, size, dim=axis)),
        "sum": torch.sum, "exp": torch.exp, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
    }
    exec(source, env)
    names = [line.split("=")[0].strip() for line in source.splitlines() if "=" in line]
    named = {}
    for lhs in names:
        for n in lhs.split(","):
            n = n.strip()
            if n:
                named[n] = env[n]
    obj = named[names[-1]]
    leaf_names = [n for n, v in named.items() if any(v is l for l in leaves)]
    grad_leaves = [n for n in leaf_names if named[n].requires_grad]
    grads = torch.autograd.grad(obj, [named[n] for n in grad_leaves])

    def arr(t):
        return {"shape": list(t.shape), "data": t.detach().reshape(-1).tolist()}

    return {
        "name": name, "program": source,
        "leaves": {n: arr(named[n]) for n in leaf_names},
        "values": {n: arr(v) for n, v in named.items()},
        "grads": {n: arr(gr) for n, gr in zip(grad_leaves, grads)},
    }


def main():
    cases = [run(n, s, i) for i, (n, s) in enumerate(PROGRAMS.items())]
    out = os.path.join(os.path.dirname(__file__), "..", "resources", "program", "split_chunk.json")
    with open(out, "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")
    print("wrote", out, len(cases), "cases")


if __name__ == "__main__":
    main()
