#!/usr/bin/python3
"""Generates engine/src/test/resources/optable_float32.json: PyTorch's own float32 results, to hold
Gradscope's float32 to PyTorch's accuracy.

For the op-table rows of the ops whose float32 accuracy is worth watching (attention, the norms,
softmax and the losses) and for larger samples of the same ops drawn here (their own generator, so
optable.json and its draws are untouched), each entry holds the inputs and the upstream gradient
rounded to float32, the reference (float64 on those same rounded values: output and VJP), and the
largest error of PyTorch's float32 output and VJP against it. The Java test (Float32AccuracyTest)
measures Gradscope's float32 results the same way and compares the errors.

Run: /usr/bin/python3 engine/src/test/python/gen_float32_table.py  (Debian's python3-torch)
"""
import json
import math
import os

import torch

from torch_references import load_references

HERE = os.path.dirname(__file__)
RES = os.path.join(HERE, "..", "resources")
gen = torch.Generator().manual_seed(20240515)

OPS = ("attention", "layer_norm", "rms_norm", "softmax", "log_softmax", "cross_entropy", "logsumexp", "mse")


REFERENCES = load_references()


def function(op, attrs):
    """The PyTorch function of an op-table op with its attributes (its spec's reference)."""
    ref = REFERENCES[op]
    return lambda *xs: ref(*xs, **attrs)


def tensor_json(t, f32=False):
    """Float32 values with 9 significant digits (enough to give back the same float32), the float64
    references with 12 (errors of interest are near 1e-7 relative)."""
    data = t.reshape(-1).tolist()
    return {"shape": list(t.shape), "dtype": "int64" if t.dtype == torch.int64 else "float64",
            "data": [float(("%.9g" if f32 else "%.12g") % v) for v in data]}


# Inputs PyTorch will not differentiate (a class weight): their gradients are left out (None).
NO_GRAD = {("cross_entropy", 2)}


def run(fn, inputs, upstream, dtype, op=None):
    grad = [t.is_floating_point() and (op, i) not in NO_GRAD for i, t in enumerate(inputs)]
    xs = [t.to(dtype).clone().requires_grad_(g) if t.is_floating_point() else t for t, g in zip(inputs, grad)]
    y = fn(*xs)
    diff = [x for x, g in zip(xs, grad) if g]
    gs = torch.autograd.grad(y, diff, grad_outputs=upstream.to(dtype), allow_unused=True)
    it = iter(gs)
    grads = []
    for x, g in zip(xs, grad):
        if g:
            g = next(it)
            grads.append(torch.zeros_like(x) if g is None else g)
        else:
            grads.append(None)
    return y.detach(), grads


def entry(source, op, attrs, inputs, upstream):
    # Everything rounded to float32 first: the float32 runs and the float64 reference see the same numbers.
    rounded = [t.float().double() if t.is_floating_point() else t for t in inputs]
    u = upstream.float().double()
    fn = function(op, attrs)
    ref, ref_grads = run(fn, rounded, u, torch.float64, op)
    out32, grads32 = run(fn, rounded, u, torch.float32, op)
    return {"source": source, "op": op, "attrs": attrs, "inputs": [tensor_json(t, t.is_floating_point()) for t in rounded],
            "upstream": tensor_json(u, True), "ref_output": tensor_json(ref),
            "ref_grads": [None if g is None else tensor_json(g) for g in ref_grads],
            "torch_output_error": max_error(out32, ref),
            "torch_grad_errors": [None if g is None else max_error(g, r) for g, r in zip(grads32, ref_grads)]}


def max_error(got, ref):
    """max |got − ref| over the tensor (0 for an empty one)."""
    return float((got.double() - ref).abs().max()) if ref.numel() else 0.0


def from_json(a):
    dt = torch.int64 if a["dtype"] == "int64" else torch.float64
    return torch.tensor(a["data"], dtype=dt).reshape(a["shape"])


entries = []
with open(os.path.join(RES, "optable.json")) as f:
    table = json.load(f)["rows"]
for i, row in enumerate(table):
    # The NaN and ±inf rows are the edges' business (OpTableTest), not accuracy's.
    finite = all(math.isfinite(v) for a in row["inputs"] for v in a["data"])
    if row["op"] in OPS and finite and all(d > 0 for a in row["inputs"] for d in a["shape"]):
        entries.append(entry("optable row %d" % i, row["op"], row["attrs"], [from_json(a) for a in row["inputs"]],
                             from_json(row["upstream"])))


def uniform(shape, lo, hi):
    return lo + (hi - lo) * torch.rand(shape, generator=gen, dtype=torch.float64)


def randn(shape, scale=1.0):
    return scale * torch.randn(shape, generator=gen, dtype=torch.float64)


def add(op, attrs, inputs, out_shape):
    entries.append(entry("sample", op, attrs, inputs, randn(out_shape)))


# Larger samples: rows long enough that summation order shows, values large enough that shifts matter.
for causal in (False, True):
    q, k, v = uniform((2, 16, 8), -2, 2), uniform((2, 16, 8), -2, 2), uniform((2, 16, 8), -1, 1)
    add("attention", {"causal": causal}, [q, k, v], (2, 16, 8))
add("attention", {"causal": True}, [uniform((24, 16), -3, 3), uniform((24, 16), -3, 3), uniform((24, 16), -1, 1)], (24, 16))
for shape, offset in [((16, 96), 0.0), ((4, 300), 0.0), ((8, 64), 100.0)]:
    d = shape[-1]
    add("layer_norm", {"eps": 1e-5}, [offset + randn(shape, 2.0), uniform((d,), 0.5, 1.5), uniform((d,), -0.5, 0.5)], shape)
add("rms_norm", {"eps": 1e-6}, [randn((8, 96), 2.0), uniform((96,), 0.5, 1.5)], (8, 96))
for op in ("softmax", "log_softmax"):
    add(op, {"axis": -1}, [randn((8, 200), 4.0)], (8, 200))
    add(op, {"axis": 0}, [randn((120, 6), 4.0)], (120, 6))
add("cross_entropy", {}, [randn((16, 100), 3.0), torch.randint(0, 100, (16,), generator=gen)], ())
add("cross_entropy", {}, [randn((128, 10), 6.0), torch.randint(0, 10, (128,), generator=gen)], ())
add("logsumexp", {"axis": -1, "keepdim": False}, [randn((4, 500), 5.0)], (4,))

out = os.path.join(RES, "optable_float32.json")
with open(out, "w") as f:
    json.dump({"generator": "gen_float32_table.py", "torch": torch.__version__, "entries": entries}, f)
print(len(entries), "entries ->", os.path.normpath(out))
