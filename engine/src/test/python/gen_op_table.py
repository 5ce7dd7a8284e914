#!/usr/bin/python3
"""Generates engine/src/test/resources/optable.json: the op-table samples with PyTorch results.

Each row names an op of the table, its attributes and its inputs (values drawn where the op is
smooth); PyTorch 1.13 computes, in float64, the output and the vector-Jacobian product for a fixed
random upstream gradient `u`. The Java tests read the rows and check the engine against them.

Run: /usr/bin/python3 engine/src/test/python/gen_op_table.py  (Debian's python3-torch)
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
gen = torch.Generator().manual_seed(1234)
tgen = torch.Generator().manual_seed(4321)
rows = []


def uniform(shape, lo, hi):
    return lo + (hi - lo) * torch.rand(shape, generator=gen, dtype=torch.float64)


def away_from_zero(shape, lo=0.2, hi=2.0):
    mag = uniform(shape, lo, hi)
    sign = torch.where(torch.rand(shape, generator=gen) < 0.5, -1.0, 1.0).double()
    return mag * sign


def tensor_json(t):
    return {"shape": list(t.shape), "dtype": "int64" if t.dtype == torch.int64 else "float64",
            "data": [float(v) for v in t.reshape(-1).tolist()]}


def add(op, fn, inputs, attrs=None, reverse_jvp=False, const=()):
    """const: inputs PyTorch takes no derivative for (a class weight): no reference gradient or tangent."""
    xs = [t.clone().requires_grad_(t.dtype == torch.float64 and i not in const) for i, t in enumerate(inputs)]
    y = fn(*xs)
    u = torch.randn(y.shape, generator=gen, dtype=torch.float64)
    grads = [None] * len(xs)
    diff = [x for x in xs if x.requires_grad]
    if diff and y.requires_grad:
        gs = torch.autograd.grad(y, diff, grad_outputs=u, allow_unused=True)
        it = iter(gs)
        for i, x in enumerate(xs):
            if x.requires_grad:
                g = next(it)
                grads[i] = tensor_json(g if g is not None else torch.zeros_like(x))
    tangents, jv = jvp_reference(fn, inputs, reverse_jvp, const)
    rows.append({"op": op, "attrs": attrs or {}, "inputs": [tensor_json(t) for t in inputs],
                 "output": tensor_json(y.detach()), "upstream": tensor_json(u), "grads": grads,
                 "tangents": [None if t is None else tensor_json(t) for t in tangents], "jvp": tensor_json(jv)})


def jvp_reference(fn, inputs, reverse_jvp=False, const=()):
    """J·v for random tangents of the float inputs (their own generator, so the draws above stay as
    they were): torch.autograd.forward_ad where PyTorch supports the op, else (or with reverse_jvp,
    where PyTorch 1.13's forward mode is wrong) the double-backward trick."""
    tangents = [torch.randn(t.shape, generator=tgen, dtype=torch.float64) if t.dtype == torch.float64 and i not in const else None
                for i, t in enumerate(inputs)]
    try:
        if reverse_jvp:
            raise NotImplementedError
        import torch.autograd.forward_ad as fwAD
        with fwAD.dual_level():
            duals = [fwAD.make_dual(x, t) if t is not None else x for x, t in zip(inputs, tangents)]
            jv = fwAD.unpack_dual(fn(*duals)).tangent
        if jv is None:
            jv = torch.zeros_like(fn(*inputs))
    except (RuntimeError, NotImplementedError):
        diff = [i for i, t in enumerate(tangents) if t is not None]

        def g(*xs):
            full = list(inputs)
            for i, x in zip(diff, xs):
                full[i] = x
            return fn(*full)
        _, jv = torch.autograd.functional.jvp(g, tuple(inputs[i] for i in diff), tuple(tangents[i] for i in diff))
    return tangents, jv.detach()


UNARY_SHAPES = [(5,), (0,), ()]
unary = {
    "neg": (torch.neg, lambda s: uniform(s, -2, 2)),
    "exp": (torch.exp, lambda s: uniform(s, -2, 2)),
    "log": (torch.log, lambda s: uniform(s, 0.2, 3)),
    "sqrt": (torch.sqrt, lambda s: uniform(s, 0.2, 3)),
    "abs": (torch.abs, away_from_zero),
    "sin": (torch.sin, lambda s: uniform(s, -3, 3)),
    "cos": (torch.cos, lambda s: uniform(s, -3, 3)),
    "tanh": (torch.tanh, lambda s: uniform(s, -2, 2)),
    "sigmoid": (torch.sigmoid, lambda s: uniform(s, -4, 4)),
    "relu": (torch.relu, away_from_zero),
    "gelu": (F.gelu, lambda s: uniform(s, -3, 3)),
    "softplus": (F.softplus, lambda s: uniform(s, -4, 4)),
}
for name, (fn, draw) in unary.items():
    for s in UNARY_SHAPES:
        add(name, fn, [draw(s)])
# softplus above its threshold (20): exactly x, gradient exactly 1
add("softplus", F.softplus, [torch.tensor([25.0, -25.0, 19.5, 21.0], dtype=torch.float64)])

for c in [2, 3, 0.5, -1.5]:
    for s in UNARY_SHAPES:
        add("pow", lambda x, c=c: torch.pow(x, c), [uniform(s, 0.3, 2)], {"exponent": c})

BINARY_SHAPES = [((), ()), ((5,), (5,)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)),
                 ((2, 3, 4), (1, 4)), ((0,), (0,)), ((0, 3), (3,)), ((4, 1, 3), (2, 3)), ((), (2, 2))]
binary = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}
for name, fn in binary.items():
    for sa, sb in BINARY_SHAPES:
        b = away_from_zero(sb) if name == "div" else uniform(sb, -2, 2)
        add(name, fn, [uniform(sa, -2, 2), b])

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
                 ((2, 3), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
                 ((2, 2, 3), (2, 3, 4)), ((3,), (2, 3, 4))]
for sa, sb in MATMUL_SHAPES:
    add("matmul", torch.matmul, [uniform(sa, -1, 1), uniform(sb, -1, 1)])

AXES = [None, 0, 1, 2, -1, (0, 1), (0, 2), (1, 2), (0, 1, 2), (-1, -3)]
reductions = {"sum": torch.sum, "mean": torch.mean, "amax": torch.amax}
for name, fn in reductions.items():
    for ax in AXES:
        for keep in (False, True):
            def f(x, ax=ax, keep=keep, fn=fn, name=name):
                if ax is None:
                    if name == "amax":
                        return torch.amax(x, dim=(0, 1, 2), keepdim=keep)
                    return fn(x, dim=(0, 1, 2), keepdim=keep) if keep else fn(x)
                return fn(x, dim=ax, keepdim=keep)
            attrs = {"axis": list(ax) if isinstance(ax, tuple) else ax, "keepdim": keep}
            add(name, f, [uniform((2, 3, 4), -2, 2)], attrs)
    add(name, lambda x, fn=fn: fn(x, dim=1) if name != "amax" else torch.amax(x, dim=1), [uniform((0, 3), -1, 1)], {"axis": 1})

for ax in [0, 1, 2, -1, (0, 2), (0, 1, 2)]:
    for keep in (False, True):
        add("logsumexp", lambda x, ax=ax, keep=keep: torch.logsumexp(x, dim=ax, keepdim=keep),
            [uniform((2, 3, 4), -3, 3)], {"axis": list(ax) if isinstance(ax, tuple) else ax, "keepdim": keep})
# an -inf entry must not give NaN (the max shift is 0 only where the max itself is infinite)
add("logsumexp", lambda x: torch.logsumexp(x, dim=-1), [torch.tensor([[0.5, float("-inf"), 1.0], [2.0, 1.0, -1.0]], dtype=torch.float64)], {"axis": -1})

for name, fn in {"softmax": torch.softmax, "log_softmax": torch.log_softmax}.items():
    for shape, ax in [((5,), -1), ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2), ((2, 3, 4), -1), ((), 0), ((0, 4), -1)]:
        add(name, lambda x, ax=ax, fn=fn: fn(x, dim=ax), [uniform(shape, -3, 3)], {"axis": ax})
    # large logits: max-subtraction keeps them finite
    add(name, lambda x, fn=fn: fn(x, dim=-1), [torch.tensor([[1000.0, 999.0, 998.5], [-1000.0, -1001.0, -999.0]], dtype=torch.float64)], {"axis": -1})

for shape, new in [((2, 3, 4), (6, 4)), ((2, 3, 4), (4, -1)), ((2, 3, 4), (24,)), ((2, 3, 4), (3, 2, 4)),
                   ((), (1, 1)), ((0, 3), (3, 0)), ((6,), (2, 3))]:
    add("reshape", lambda x, new=new: x.reshape(new), [uniform(shape, -1, 1)], {"shape": list(new)})

for shape, ab in [((2, 3), None), ((2, 3, 4), (0, 2)), ((2, 3, 4), None), ((3, 2), (1, 0))]:
    attrs = {} if ab is None else {"a": ab[0], "b": ab[1]}
    add("transpose", lambda x, ab=ab: x.transpose(-2, -1) if ab is None else x.transpose(*ab), [uniform(shape, -1, 1)], attrs)

for shape, p in [((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (1, 0, 2)), ((3,), (0,)), ((2, 3), (-1, 0))]:
    add("permute", lambda x, p=p: x.permute(*p), [uniform(shape, -1, 1)], {"perm": list(p)})

for shape, ax, a, b in [((4, 3), 0, 1, 3), ((4, 3), 1, 0, 2), ((4, 3), -1, 2, 2), ((2, 3, 4), 2, 1, 4), ((5,), 0, 0, 5)]:
    add("slice", lambda x, ax=ax, a=a, b=b: x.narrow(ax, a, b - a), [uniform(shape, -1, 1)], {"axis": ax, "start": a, "stop": b})

for shape, ax, before, after in [((3, 2), 0, 1, 2), ((3, 2), 1, 0, 3), ((4,), 0, 2, 0)]:
    def padf(x, ax=ax, before=before, after=after):
        parts = []
        zs = list(x.shape)
        if before:
            zs[ax] = before
            parts.append(torch.zeros(zs, dtype=x.dtype))
        parts.append(x)
        if after:
            zs = list(x.shape)
            zs[ax] = after
            parts.append(torch.zeros(zs, dtype=x.dtype))
        return torch.cat(parts, dim=ax)
    add("pad", padf, [uniform(shape, -1, 1)], {"axis": ax, "before": before, "after": after})

for shapes, ax in [([(2, 3), (1, 3)], 0), ([(2, 1), (2, 2), (2, 0)], 1), ([(2, 3, 1), (2, 3, 2)], -1), ([(3,)], 0)]:
    add("concat", lambda *xs, ax=ax: torch.cat(xs, dim=ax), [uniform(s, -1, 1) for s in shapes], {"axis": ax})

for shape, target in [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (3, 2)), ((1, 3), (2, 2, 3)), ((2, 3), (2, 3))]:
    add("broadcast_to", lambda x, target=target: x.broadcast_to(target), [uniform(shape, -1, 1)], {"shape": list(target)})

for n, c in [(4, 5), (1, 3), (6, 2)]:
    add("cross_entropy", F.cross_entropy, [uniform((n, c), -2, 2), torch.randint(0, c, (n,), generator=gen)])
add("cross_entropy", F.cross_entropy, [uniform((5,), -2, 2), torch.tensor(3)])
# large logits stay finite
add("cross_entropy", F.cross_entropy, [torch.tensor([[1000.0, -1000.0, 0.0], [50.0, 60.0, 70.0]], dtype=torch.float64), torch.tensor([1, 2])])

for sa, sb in [((3, 4), (3, 4)), ((5,), (5,)), ((), ()), ((2, 3), (3,))]:
    add("mse", lambda a, b: F.mse_loss(a, b) if a.shape == b.shape else F.mse_loss(*torch.broadcast_tensors(a, b)),
        [uniform(sa, -2, 2), uniform(sb, -2, 2)])

for shape in [(4, 6), (2, 3, 5), (5,)]:
    d = shape[-1]
    add("layer_norm", lambda x, w, b: F.layer_norm(x, x.shape[-1:], w, b, 1e-5),
        [uniform(shape, -2, 2), uniform((d,), 0.5, 1.5), uniform((d,), -0.5, 0.5)], {"eps": 1e-5})
# mean 1000: two-pass statistics keep the precision
add("layer_norm", lambda x, w, b: F.layer_norm(x, x.shape[-1:], w, b, 1e-5),
    [1000 + uniform((3, 8), -1, 1), uniform((8,), 0.5, 1.5), uniform((8,), -0.5, 0.5)], {"eps": 1e-5})

for shape in [(4, 6), (2, 3, 5), (5,)]:
    d = shape[-1]
    add("rms_norm", lambda x, w: x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w,
        [uniform(shape, -2, 2), uniform((d,), 0.5, 1.5)], {"eps": 1e-6})


def attn(q, k, v, causal):
    d = q.shape[-1]
    s = q @ k.transpose(-2, -1) / d ** 0.5
    if causal:
        tq, tk = s.shape[-2], s.shape[-1]
        mask = torch.triu(torch.full((tq, tk), float("-inf"), dtype=s.dtype), diagonal=1)
        s = s + mask
    return torch.softmax(s, -1) @ v


for sq, sk, sv, causal in [((3, 4), (3, 4), (3, 4), False), ((2, 3, 4), (2, 5, 4), (2, 5, 2), False),
                           ((4, 3), (4, 3), (4, 3), True), ((2, 4, 3), (2, 4, 3), (2, 4, 2), True)]:
    add("attention", lambda q, k, v, causal=causal: attn(q, k, v, causal),
        [uniform(sq, -1, 1), uniform(sk, -1, 1), uniform(sv, -1, 1)], {"causal": causal})

# Ops added later go below, so the rows above keep their random draws.
for s in UNARY_SHAPES + [(2, 3)]:
    add("silu", F.silu, [uniform(s, -4, 4)])
for s, lo, hi in [((7,), -1.0, 1.0), ((0,), -1.0, 1.0), ((), -1.0, 1.0), ((2, 4), -0.5, 2.0)]:
    # values kept 0.05 away from the kinks at lo and hi, where the central difference is undefined
    x = uniform(s, -3, 3)
    x = torch.where(((x - lo).abs() < 0.05) | ((x - hi).abs() < 0.05), x + 0.1, x)
    add("hardtanh", lambda x, lo=lo, hi=hi: F.hardtanh(x, lo, hi), [x],
        {} if (lo, hi) == (-1.0, 1.0) else {"min_val": lo, "max_val": hi})

# The ops real models need (the ONNX import).
for s in UNARY_SHAPES + [(2, 3)]:
    add("erf", torch.erf, [uniform(s, -3, 3)])
# each of the three ranges of the rational approximations, their edges, and the saturated tails
add("erf", torch.erf, [torch.tensor([-7.0, -4.5, -4.0, -1.3, -0.46875, -0.2, 0.0, 0.3, 0.46875, 0.5, 2.0, 3.9, 4.0, 6.0, 30.0],
                                    dtype=torch.float64)])


def window_attrs(**kw):
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in kw.items()}


CONV2D = [((2, 3, 5, 5), (4, 3, 3, 3), True, dict(padding=1)),
          ((1, 4, 6, 5), (6, 2, 3, 2), False, dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
          ((2, 2, 4, 4), (3, 2, 1, 1), True, dict(stride=2)),
          ((1, 3, 5, 5), (3, 1, 3, 3), False, dict(padding=2, dilation=2, groups=3))]
for sx, sw, bias, kw in CONV2D:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[0],), -1, 1)] if bias else [])
    add("conv2d", lambda x, w, b=None, kw=kw: F.conv2d(x, w, b, **kw), ins, window_attrs(**kw))
CONV1D = [((2, 3, 7), (4, 3, 3), True, dict(padding=1)),
          ((1, 4, 9), (2, 2, 3), False, dict(stride=2, dilation=2, groups=2)),
          ((2, 2, 5), (3, 2, 1), True, {})]
for sx, sw, bias, kw in CONV1D:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[0],), -1, 1)] if bias else [])
    add("conv1d", lambda x, w, b=None, kw=kw: F.conv1d(x, w, b, **kw), ins, window_attrs(**kw))

# distinct values, so no window has a tied maximum (a tie has no derivative for central differences to check)
for name, fn, cases in [
        ("max_pool2d", F.max_pool2d, [((2, 2, 6, 6), dict(kernel_size=2)),
                                      ((1, 2, 7, 5), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0))),
                                      ((1, 1, 6, 6), dict(kernel_size=3, stride=1, padding=1, dilation=2))]),
        ("max_pool1d", F.max_pool1d, [((2, 3, 8), dict(kernel_size=2)),
                                      ((1, 2, 9), dict(kernel_size=3, stride=2, padding=1, dilation=2))]),
        ("avg_pool2d", F.avg_pool2d, [((2, 2, 6, 6), dict(kernel_size=2)),
                                      ((1, 2, 5, 7), dict(kernel_size=3, stride=2, padding=1)),
                                      ((1, 2, 5, 7), dict(kernel_size=(3, 2), stride=(2, 1), padding=1, count_include_pad=False))]),
        ("avg_pool1d", F.avg_pool1d, [((2, 3, 8), dict(kernel_size=2)),
                                      ((1, 2, 7), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False))])]:
    for shape, kw in cases:
        x = torch.randperm(int(torch.tensor(shape).prod()), generator=gen).double().reshape(shape) / 10 - 1
        add(name, lambda x, fn=fn, kw=kw: fn(x, **kw), [x], window_attrs(**kw))

for sx, kw in [((2, 3, 5, 5), dict(kernel_size=(2, 3), padding=1, stride=(2, 1))), ((1, 2, 4, 4), dict(kernel_size=2)),
               ((1, 1, 5, 5), dict(kernel_size=2, dilation=2))]:
    add("unfold", lambda x, kw=kw: F.unfold(x, **kw), [uniform(sx, -1, 1)], window_attrs(**kw))
for sx, kw in [((2, 18, 15), dict(output_size=(5, 5), kernel_size=(2, 3), padding=1, stride=(2, 1))),
               ((1, 8, 9), dict(output_size=4, kernel_size=2)), ((1, 4, 9), dict(output_size=5, kernel_size=2, dilation=2))]:
    add("fold", lambda x, kw=kw: F.fold(x, **kw), [uniform(sx, -1, 1)], window_attrs(**kw))


def batch_norm_eval(x, m, v, w, b, eps=1e-5):
    shape = [1, -1] + [1] * (x.dim() - 2)
    y = (x - m.view(shape)) / torch.sqrt(v.view(shape) + eps) * w.view(shape) + b.view(shape)
    # the same as F.batch_norm in eval mode, written out so the running statistics get gradients too
    with torch.no_grad():
        assert torch.allclose(y, F.batch_norm(x, m.detach(), v.detach(), w, b, False, 0.1, eps), rtol=1e-12, atol=1e-12)
    return y


for sx in [(4, 3), (2, 3, 4, 4), (2, 2, 5)]:
    c = sx[1]
    add("batch_norm", batch_norm_eval, [uniform(sx, -2, 2), uniform((c,), -0.5, 0.5), uniform((c,), 0.5, 2),
                                        uniform((c,), 0.5, 1.5), uniform((c,), -0.5, 0.5)], {"eps": 1e-5})

for idx, sw in [(torch.tensor([[0, 4, 2], [4, 1, 1]]), (5, 4)), (torch.tensor([1, 1, 3, 0]), (4, 3)), (torch.tensor(2), (3, 2))]:
    add("embedding", F.embedding, [idx, uniform(sw, -1, 1)])
for sg, idx, n in [((2, 3, 4), torch.tensor([[0, 4, 2], [4, 1, 1]]), 5), ((3, 2), torch.tensor([0, 2, 0]), 4)]:
    add("embedding_dense_backward",
        lambda g, i, n=n: g.new_zeros(n, g.shape[-1]).index_add(0, i.flatten(), g.reshape(-1, g.shape[-1])),
        [uniform(sg, -1, 1), idx], {"num_weights": n})

for sc, sa, sb in [((3, 4), (3, 4), (3, 4)), ((2, 2), (1, 2), ()), ((4,), (2, 4), (4,))]:
    cond = (torch.rand(sc, generator=gen) < 0.5).long()
    add("where", lambda c, a, b: torch.where(c != 0, a, b), [cond, uniform(sa, -2, 2), uniform(sb, -2, 2)])

# ---- the edges: NaN and ±inf (issue 33) -------------------------------------------------------
# PyTorch's values and gradients there, for every elementwise op and reduction. Central differences
# mean nothing at a NaN or an infinity: the tests that take them skip rows with a non-finite input.
NAN, INF = float("nan"), float("inf")
EDGE = torch.tensor([NAN, INF, -INF, 0.0, 1.5, -0.5], dtype=torch.float64)
for name, (fn, _) in unary.items():
    add(name, fn, [EDGE.clone()])
for name, fn in [("silu", F.silu), ("hardtanh", F.hardtanh), ("erf", torch.erf)]:
    add(name, fn, [EDGE.clone()])
# hardtanh at its kinks: the gradient is 0 at min_val and max_val themselves, passed through at NaN
add("hardtanh", F.hardtanh, [torch.tensor([-1.0, 1.0, NAN, 0.25], dtype=torch.float64)])
for c in [2, 3, 0.5, -1.5]:
    add("pow", lambda x, c=c: torch.pow(x, c), [EDGE.clone()], {"exponent": c})
EDGE_B = torch.tensor([1.0, -INF, 2.0, NAN, INF, 0.0], dtype=torch.float64)
for name, fn in binary.items():
    add(name, fn, [EDGE.clone(), EDGE_B.clone()])
    add(name, fn, [EDGE.reshape(2, 3).clone(), torch.tensor([INF, 0.5, NAN], dtype=torch.float64)])
EDGE_R = torch.tensor([[[1.0, NAN, 3.0, NAN], [INF, 2.0, INF, -INF], [-INF, -INF, 1.0, 2.0]],
                       [[0.5, -1.0, 2.0, 2.0], [INF, 1.0, -2.0, 0.0], [-1.0, NAN, -INF, 4.0]]], dtype=torch.float64)
for name, fn in reductions.items():
    for ax in [None, 0, 2, (1, 2)]:
        def f(x, ax=ax, fn=fn):
            return fn(x, dim=(0, 1, 2)) if ax is None else fn(x, dim=ax)
        add(name, f, [EDGE_R.clone()], {"axis": list(ax) if isinstance(ax, tuple) else ax})
    # axis=(): PyTorch 1.13 reduces every dim, as None
    for keep in (False, True):
        add(name, lambda x, fn=fn, keep=keep: fn(x, dim=(), keepdim=keep), [uniform((2, 3), -2, 2)], {"axis": [], "keepdim": keep})
for ax in [2, (1, 2)]:
    add("logsumexp", lambda x, ax=ax: torch.logsumexp(x, dim=ax), [EDGE_R.clone()], {"axis": list(ax) if isinstance(ax, tuple) else ax})
# where drops a NaN of the branch not taken, forward and gradients (the issue's example)
add("where", lambda c, a, b: torch.where(c != 0, a, b), [torch.tensor([0, 1, 1, 1]), torch.tensor([NAN, 2.0, 1.0, NAN], dtype=torch.float64),
                                                         torch.tensor([5.0, NAN, -INF, 3.0], dtype=torch.float64)])
add("where", lambda c, a, b: torch.where(c != 0, a, b), [torch.tensor([[1, 0, 0], [0, 1, 1]]), EDGE.reshape(2, 3).clone(),
                                                         torch.tensor([INF, NAN, -1.0], dtype=torch.float64)])
# max pooling sends the gradient to the last NaN of a window (PyTorch's `val > max || isnan(val)`)
add("max_pool1d", lambda x: F.max_pool1d(x, 3), [torch.tensor([[[NAN, 1.0, NAN, 2.0, NAN, NAN, 5.0, INF, INF]]], dtype=torch.float64)],
    window_attrs(kernel_size=3))
add("max_pool1d", lambda x: F.max_pool1d(x, 3, padding=1), [torch.tensor([[[NAN, 1.0, NAN, 2.0, NAN, NAN, 5.0, INF, -INF]]],
                                                                         dtype=torch.float64)], window_attrs(kernel_size=3, padding=1))
add("max_pool2d", lambda x: F.max_pool2d(x, 2), [torch.tensor([[[[NAN, 1.0, NAN, 2.0], [NAN, NAN, 5.0, INF], [0.0, -1.0, 3.0, 4.0],
                                                                 [2.0, NAN, -INF, -INF]]]], dtype=torch.float64)], window_attrs(kernel_size=2))

# ---- the ops PyTorch users reach for (issue 33) ------------------------------------------------
# Below the edge rows, so every row above keeps its draws.


def away_from(x, kinks, gap=0.05):
    """x moved 0.1 where it lies within `gap` of a kink (no central difference there)."""
    for k in kinks:
        x = torch.where((x - k).abs() < gap, x + 0.1, x)
    return x


for s in UNARY_SHAPES + [(2, 3)]:
    add("gelu", lambda x: F.gelu(x, approximate="tanh"), [uniform(s, -3, 3)], {"approximate": "tanh"})
add("gelu", lambda x: F.gelu(x, approximate="tanh"), [EDGE.clone()], {"approximate": "tanh"})
ACTIVATIONS = [
    ("leaky_relu", lambda x: F.leaky_relu(x), {}, [0.0]),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), {"negative_slope": 0.2}, [0.0]),
    ("elu", lambda x: F.elu(x), {}, [0.0]),
    ("elu", lambda x: F.elu(x, 0.5), {"alpha": 0.5}, [0.0]),
    ("hardswish", F.hardswish, {}, [-3.0, 3.0]),
    ("hardsigmoid", F.hardsigmoid, {}, [-3.0, 3.0]),
    ("mish", F.mish, {}, []),
]
for name, fn, attrs, kinks in ACTIVATIONS:
    for s in UNARY_SHAPES + [(2, 3)]:
        add(name, fn, [away_from(uniform(s, -5, 5), kinks)], attrs)
    add(name, fn, [EDGE.clone()], attrs)
    if kinks:
        add(name, fn, [torch.tensor(kinks + [NAN], dtype=torch.float64)], attrs)

for name, fn in [("maximum", torch.maximum), ("minimum", torch.minimum)]:
    for sa, sb in [((5,), (5,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2))]:
        add(name, fn, [uniform(sa, -2, 2), uniform(sb, -2, 2)])
    # ties share the gradient; a NaN on either side sends it to both (no central differences: a NaN row)
    add(name, fn, [torch.tensor([NAN, 1.0, 2.0, INF, -INF, 3.0], dtype=torch.float64),
                   torch.tensor([1.0, 1.0, NAN, INF, 0.0, -2.0], dtype=torch.float64)])

for sx, sm, value in [((3, 4), (3, 4), -1.5), ((2, 4), (4,), 0.0), ((5,), (5,), 2.0)]:
    mask = (torch.rand(sm, generator=gen) < 0.5).long()
    add("masked_fill", lambda x, m, value=value: x.masked_fill(m != 0, value), [uniform(sx, -2, 2), mask], {"value": value})
add("masked_fill", lambda x, m: x.masked_fill(m != 0, -1e4), [torch.tensor([[NAN, 1.0], [2.0, INF]], dtype=torch.float64),
                                                             torch.tensor([[1, 0], [0, 1]])], {"value": -1e4})

for name, fn in [("tril", torch.tril), ("triu", torch.triu)]:
    for sx, k in [((4, 5), 0), ((2, 3, 4), 1), ((5, 3), -1), ((3, 3), 0)]:
        add(name, lambda x, fn=fn, k=k: fn(x, k), [uniform(sx, -2, 2)], {} if k == 0 else {"diagonal": k})
    add(name, fn, [torch.tensor([[NAN, INF, 1.0], [2.0, NAN, -INF]], dtype=torch.float64)])

for sx, dims in [((2, 3, 4), (0, 2)), ((5,), (0,)), ((2, 3), (-1,)), ((2, 3), (0, 1))]:
    add("flip", lambda x, dims=dims: torch.flip(x, dims), [uniform(sx, -2, 2)], {"dims": list(dims)})
for sx, sh, dims in [((2, 3, 4), (1,), (0,)), ((2, 3, 4), (-1, 5), (2, 1)), ((6,), (2,), None), ((2, 3), (4,), None)]:
    add("roll", lambda x, sh=sh, dims=dims: torch.roll(x, sh, dims), [uniform(sx, -2, 2)],
        {"shifts": list(sh)} if dims is None else {"shifts": list(sh), "dims": list(dims)})
for sx, sizes in [((2, 3), (2, 1, 3)), ((3,), (2,)), ((), (2, 3)), ((2, 2), (1, 1)), ((2, 1, 3), (1, 2, 2))]:
    add("repeat", lambda x, sizes=sizes: x.repeat(*sizes), [uniform(sx, -2, 2)], {"sizes": list(sizes)})
for shapes, ax in [([(2, 3), (2, 3)], 0), ([(2, 3), (2, 3), (2, 3)], -1), ([(4,), (4,)], 1), ([(3,)], 0), ([(), ()], 0)]:
    add("stack", lambda *xs, ax=ax: torch.stack(xs, dim=ax), [uniform(s, -1, 1) for s in shapes], {"axis": ax})

for sx, ax in [((2, 3, 4), 0), ((2, 3, 4), 2), ((5,), 0), ((2, 3), -1), ((0, 3), 1), ((1, 9), 1)]:
    add("cumsum", lambda x, ax=ax: torch.cumsum(x, ax), [uniform(sx, -2, 2)], {"axis": ax})
add("cumsum", lambda x: torch.cumsum(x, 2), [EDGE_R.clone()], {"axis": 2})

for sx, ax, keep in [((2, 3, 4), None, False), ((2, 3, 4), 1, False), ((2, 3, 4), -1, True), ((5,), 0, False), ((3, 1), 1, False),
                     ((2, 0), 1, False)]:
    add("prod", lambda x, ax=ax, keep=keep: torch.prod(x) if ax is None else torch.prod(x, ax, keepdim=keep),
        [away_from_zero(sx, 0.5, 1.5)], {} if ax is None else {"axis": ax, "keepdim": keep})
# zeros: the product of the others, not y / x (one zero in a line, two zeros in a line)
add("prod", lambda x: torch.prod(x, 1), [torch.tensor([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]], dtype=torch.float64)],
    {"axis": 1})
add("prod", lambda x: torch.prod(x), [torch.tensor([1.5, 0.0, -2.0, 0.5], dtype=torch.float64)])
add("prod", lambda x: torch.prod(x, 2), [EDGE_R.clone()], {"axis": 2})

for name, fn in [("var", torch.var), ("std", torch.std)]:
    for sx, ax, corr, keep in [((2, 3, 4), None, 1, False), ((2, 3, 4), 1, 1, False), ((2, 3, 4), (0, 2), 0, True),
                               ((5,), 0, 1, False), ((3, 4), -1, 2, False), ((2, 3), (), 1, False)]:
        def f(x, fn=fn, ax=ax, corr=corr, keep=keep):
            return fn(x, dim=ax, correction=corr, keepdim=keep)
        attrs = {"axis": list(ax) if isinstance(ax, tuple) else ax, "correction": corr, "keepdim": keep}
        # PyTorch 1.13's forward mode of var(dim=()) reduces nothing (NaN); its reverse mode reduces all, as the value
        add(name, f, [uniform(sx, -2, 2)], {k: v for k, v in attrs.items() if not (k == "correction" and v == 1)}, ax == ())
    add(name, lambda x, fn=fn: fn(x, dim=2), [EDGE_R.clone()], {"axis": 2})

for name, fn in [("max", torch.max), ("min", torch.min)]:
    for sx, ax, keep in [((2, 3, 4), 1, False), ((2, 3, 4), -1, True), ((5,), 0, False), ((3, 2), 0, False)]:
        add(name, lambda x, fn=fn, ax=ax, keep=keep: fn(x, ax, keepdim=keep).values, [uniform(sx, -2, 2)],
            {"axis": ax, "keepdim": keep})
    # ties (the first index takes the gradient), NaNs (the first NaN), infinities
    add(name, lambda x, fn=fn: fn(x, 1).values, [torch.tensor([[1.0, 3.0, 3.0, 0.0], [NAN, 2.0, NAN, 1.0], [-INF, INF, INF, -INF]],
                                                                dtype=torch.float64)], {"axis": 1})
    add(name, lambda x, fn=fn: fn(x, 2).values, [EDGE_R.clone()], {"axis": 2})

for sx, si, ax in [((3, 4), (3, 2), 1), ((3, 4), (2, 4), 0), ((2, 3, 4), (2, 3, 5), 2), ((2, 3, 4), (1, 2, 2), 1), ((5,), (7,), 0)]:
    n = sx[ax]
    idx = torch.randint(0, n, si, generator=gen)
    add("gather", lambda x, i, ax=ax: torch.gather(x, ax, i), [uniform(sx, -2, 2), idx], {"axis": ax})
add("gather", lambda x, i: torch.gather(x, 1, i), [torch.tensor([[NAN, 1.0, INF], [2.0, -INF, 3.0]], dtype=torch.float64),
                                                   torch.tensor([[1, 1], [0, 2]])], {"axis": 1})
for sx, si, ax in [((3, 4), (3, 2), 1), ((3, 4), (2, 4), 0), ((2, 3, 4), (2, 3, 5), 2), ((2, 3, 4), (1, 2, 2), 1), ((5,), (7,), 0)]:
    n = sx[ax]
    idx = torch.randint(0, n, si, generator=gen)
    add("scatter_add", lambda x, i, s, ax=ax: torch.scatter_add(x, ax, i, s), [uniform(sx, -2, 2), idx, uniform(si, -2, 2)],
        {"axis": ax})
add("scatter_add", lambda x, i, s: torch.scatter_add(x, 0, i, s), [torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64),
                                                                   torch.tensor([0, 2, 0]), torch.tensor([NAN, INF, 1.0], dtype=torch.float64)],
    {"axis": 0})
for sx, ix, ax in [((4, 3), [2, 0, 2], 0), ((2, 5), [4, 1], 1), ((2, 3, 4), [3, 3, 0, 1, 2], -1), ((5,), [1], 0), ((3, 2), [], 0)]:
    add("index_select", lambda x, i, ax=ax: torch.index_select(x, ax, i), [uniform(sx, -2, 2), torch.tensor(ix, dtype=torch.int64)],
        {"axis": ax})

PAIR_LOSSES = [
    ("l1_loss", lambda a, b, **kw: F.l1_loss(a, b, **kw), {}),
    ("smooth_l1_loss", lambda a, b, **kw: F.smooth_l1_loss(a, b, **kw), {}),
    ("smooth_l1_loss", lambda a, b, **kw: F.smooth_l1_loss(a, b, beta=0.5, **kw), {"beta": 0.5}),
    ("huber_loss", lambda a, b, **kw: F.huber_loss(a, b, **kw), {}),
    ("huber_loss", lambda a, b, **kw: F.huber_loss(a, b, delta=0.7, **kw), {"delta": 0.7}),
    ("binary_cross_entropy_with_logits", lambda a, b, **kw: F.binary_cross_entropy_with_logits(a, b, **kw), {}),
]
for name, fn, extra in PAIR_LOSSES:
    for sa, sb, red in [((3, 4), (3, 4), "mean"), ((5,), (5,), "sum"), ((2, 3), (2, 3), "none"), ((), (), "mean"), ((4, 2), (4, 2), "mean")]:
        a = uniform(sa, -2, 2)
        b = uniform(sb, 0, 1) if name.startswith("binary") else uniform(sb, -2, 2)
        if name != "binary_cross_entropy_with_logits":
            # |a − b| kept away from the kinks (0, beta, delta), where central differences are undefined
            d = a - b
            for k in [0.0, 0.5, 0.7, 1.0]:
                d = torch.where((d.abs() - k).abs() < 0.05, d + 0.12 * torch.sign(d + 1e-9), d)
            a = b + d
        attrs = dict(extra)
        if red != "mean":
            attrs["reduction"] = red
        add(name, lambda a, b, fn=fn, red=red: fn(a, b, reduction=red), [a, b], attrs)
for red in ["mean", "sum", "none", "batchmean"]:
    x = torch.log_softmax(uniform((3, 4), -2, 2), -1)
    t = torch.softmax(uniform((3, 4), -2, 2), -1)
    add("kl_div", lambda x, t, red=red: F.kl_div(x, t, reduction=red), [x, t], {} if red == "mean" else {"reduction": red})
add("kl_div", lambda x, t: F.kl_div(x, t, reduction="sum", log_target=True), [uniform((2, 3), -2, 0), uniform((2, 3), -2, 0)],
    {"reduction": "sum", "log_target": True})

# cross_entropy's options and nll_loss; a class weight takes no derivative in PyTorch (Gradscope gives it one,
# checked by central differences only)
CE_CASES = [
    ({"reduction": "sum"}, dict(reduction="sum"), False, False),
    ({"reduction": "none"}, dict(reduction="none"), False, False),
    ({"ignore_index": 1}, dict(ignore_index=1), False, False),
    ({"label_smoothing": 0.2}, dict(label_smoothing=0.2), False, False),
    ({}, {}, True, False),
    ({"label_smoothing": 0.1, "reduction": "none"}, dict(label_smoothing=0.1, reduction="none"), True, False),
    ({"ignore_index": 2}, dict(ignore_index=2), True, False),
    ({}, {}, False, True),
    ({"label_smoothing": 0.3}, dict(label_smoothing=0.3), True, True),
    ({"reduction": "sum"}, dict(reduction="sum"), False, True),
]
for attrs, kw, weighted, probs in CE_CASES:
    z = uniform((5, 4), -2, 2)
    t = torch.softmax(uniform((5, 4), -2, 2), -1) if probs else torch.tensor([1, 0, 3, 1, 2])
    ins = [z, t] + ([uniform((4,), 0.5, 2)] if weighted else [])
    add("cross_entropy", lambda z, t, w=None, kw=kw: F.cross_entropy(z, t, w, **kw), ins, attrs, const=(2,))
add("cross_entropy", lambda z, t: F.cross_entropy(z, t, reduction="none"), [uniform((4,), -2, 2), torch.tensor(2)], {"reduction": "none"})
for attrs, kw, weighted in [({}, {}, False), ({}, {}, True), ({"reduction": "sum"}, dict(reduction="sum"), True),
                            ({"reduction": "none"}, dict(reduction="none"), False), ({"ignore_index": 0}, dict(ignore_index=0), True)]:
    x = torch.log_softmax(uniform((5, 3), -2, 2), -1)
    ins = [x, torch.tensor([0, 2, 1, 0, 2])] + ([uniform((3,), 0.5, 2)] if weighted else [])
    add("nll_loss", lambda x, t, w=None, kw=kw: F.nll_loss(x, t, w, **kw), ins, attrs, const=(2,))
add("nll_loss", lambda x, t: F.nll_loss(x, t), [torch.log_softmax(uniform((4,), -2, 2), -1), torch.tensor(1)])



def pad_axis(x, ax, before, after, mode="constant", value=0.0):
    """F.pad along one axis: the axis moved last (F.pad pads the last axes; reflect and replicate want a batch)."""
    y = x.movedim(ax, -1)
    lead = y.shape[:-1]
    y = y.reshape(1, -1, y.shape[-1])
    y = F.pad(y, (before, after), mode=mode, value=value) if mode == "constant" else F.pad(y, (before, after), mode=mode)
    return y.reshape(*lead, y.shape[-1]).movedim(-1, ax)


for sx, ax, b, a, mode, value in [((3, 4), 1, 2, 1, "constant", 1.5), ((3, 4), 0, 1, 2, "constant", -2.0),
                                  ((3, 5), 1, 2, 3, "reflect", 0.0), ((4, 3), 0, 3, 1, "reflect", 0.0), ((6,), 0, 1, 0, "reflect", 0.0),
                                  ((3, 4), 1, 2, 3, "replicate", 0.0), ((2, 3, 2), 1, 1, 4, "replicate", 0.0)]:
    attrs = {"axis": ax, "before": b, "after": a}
    if mode != "constant":
        attrs["mode"] = mode
    else:
        attrs["value"] = value
    add("pad", lambda x, ax=ax, b=b, a=a, mode=mode, value=value: pad_axis(x, ax, b, a, mode, value), [uniform(sx, -2, 2)], attrs)

for sx, g in [((2, 4, 3), 2), ((2, 6, 2, 2), 3), ((3, 4), 4), ((1, 4, 5), 1)]:
    c = sx[1]
    add("group_norm", lambda x, w, b, g=g: F.group_norm(x, g, w, b, 1e-5),
        [uniform(sx, -2, 2), uniform((c,), 0.5, 1.5), uniform((c,), -0.5, 0.5)], {"num_groups": g})
for sx in [(4, 3), (2, 3, 4, 4), (3, 2, 5)]:
    c = sx[1]
    add("batch_norm", lambda x, m, v, w, b: F.batch_norm(x, m.detach().clone(), v.detach().clone(), w, b, True, 0.1, 1e-5),
        [uniform(sx, -2, 2), uniform((c,), -0.5, 0.5), uniform((c,), 0.5, 2), uniform((c,), 0.5, 1.5), uniform((c,), -0.5, 0.5)],
        {"eps": 1e-5, "training": True})



def attn_masked(q, k, v, m, causal):
    d = q.shape[-1]
    s = q @ k.transpose(-2, -1) / d ** 0.5 + m
    if causal:
        s = s + torch.triu(torch.full(s.shape[-2:], float("-inf"), dtype=s.dtype), diagonal=1)
    return torch.softmax(s, -1) @ v


for sq, sk, sv, sm, causal in [((3, 4), (3, 4), (3, 4), (3, 3), False), ((2, 3, 4), (2, 5, 4), (2, 5, 2), (5,), False),
                               ((2, 4, 3), (2, 4, 3), (2, 4, 2), (1, 4, 4), True)]:
    add("attention", lambda q, k, v, m, causal=causal: attn_masked(q, k, v, m, causal),
        [uniform(sq, -1, 1), uniform(sk, -1, 1), uniform(sv, -1, 1), uniform(sm, -1, 1)], {"causal": causal} if causal else {})
# the usual additive mask: −inf hides a key (its weight and gradient are 0)
add("attention", lambda q, k, v, m: attn_masked(q, k, v, m, False),
    [uniform((3, 4), -1, 1), uniform((3, 4), -1, 1), uniform((3, 2), -1, 1), torch.tensor([[0.0, -INF, 0.0], [0.0, 0.0, -INF],
                                                                                          [-INF, 0.0, 0.0]], dtype=torch.float64)])

# dropout: its mask is Gradscope's own (from the seed), so only p = 0 and p = 1 have PyTorch's values
for sx, p in [((3, 4), 0.0), ((5,), 1.0), ((2, 3), 0.0)]:
    add("dropout", lambda x, p=p: F.dropout(x, p, training=True), [uniform(sx, -2, 2)], {"p": p, "seed": 7})

for sx, size in [((2, 3, 6, 6), (3, 3)), ((1, 2, 5, 7), (3, 4)), ((2, 4, 4), (2, 3)), ((1, 1, 3, 3), (5, 4)), ((1, 2, 4, 4), (1, 1))]:
    add("adaptive_avg_pool2d", lambda x, size=size: F.adaptive_avg_pool2d(x, size), [uniform(sx, -2, 2)], {"output_size": list(size)})
for sx, size, mode, ac in [((1, 2, 3, 4), (6, 8), "nearest", False), ((2, 1, 5, 4), (3, 2), "nearest", False),
                           ((1, 2, 3, 4), (5, 7), "bilinear", False), ((1, 1, 4, 4), (2, 3), "bilinear", False),
                           ((1, 2, 3, 3), (5, 4), "bilinear", True), ((2, 3, 3), (4, 6), "bilinear", False)]:
    attrs = {"size": list(size)}
    if mode != "nearest":
        attrs["mode"] = mode
    if ac:
        attrs["align_corners"] = True
    def interp(x, size=size, mode=mode, ac=ac):
        if x.dim() == 3:
            return interp(x.unsqueeze(0))[0]
        return F.interpolate(x, size=size, mode=mode, align_corners=ac if mode == "bilinear" else None)
    add("interpolate", interp, [uniform(sx, -2, 2)], attrs)

CONVT2D = [((2, 3, 4, 4), (3, 2, 3, 3), True, dict(padding=1)),
           ((1, 4, 3, 3), (4, 1, 2, 3), False, dict(stride=2, padding=(1, 0), output_padding=1, groups=2)),
           ((1, 2, 3, 2), (2, 3, 2, 2), True, dict(stride=(1, 2), dilation=2))]
for sx, sw, bias, kw in CONVT2D:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[1] * kw.get("groups", 1),), -1, 1)] if bias else [])
    add("conv_transpose2d", lambda x, w, b=None, kw=kw: F.conv_transpose2d(x, w, b, **kw), ins, window_attrs(**kw))
CONVT1D = [((2, 3, 5), (3, 2, 3), True, dict(padding=1)), ((1, 4, 4), (4, 1, 3), False, dict(stride=2, output_padding=1, groups=2))]
for sx, sw, bias, kw in CONVT1D:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[1] * kw.get("groups", 1),), -1, 1)] if bias else [])
    add("conv_transpose1d", lambda x, w, b=None, kw=kw: F.conv_transpose1d(x, w, b, **kw), ins, window_attrs(**kw))

for eq, shapes in [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ij->ji", [(2, 3)]),
                   ("ij->", [(2, 3)]), ("i,i->", [(4,), (4,)]), ("i,j->ij", [(3,), (2,)]), ("ijk,k->ij", [(2, 3, 4), (4,)]),
                   ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]), ("ij,kj", [(2, 3), (4, 3)]), ("ij->i", [(3, 2)])]:
    add("einsum", lambda *xs, eq=eq: torch.einsum(eq, *xs), [uniform(sh, -1, 1) for sh in shapes], {"equation": eq})

# ceil_mode: the last window may hang past the padding (its overhang: -inf for max, left out of avg's divisor);
# a window that would start in the right padding is dropped ((1, 2, 5, 5), kernel 2, stride 2, padding 1).
for name, fn, cases in [
        ("max_pool2d", F.max_pool2d, [((1, 2, 5, 5), dict(kernel_size=2, ceil_mode=True)),
                                      ((1, 1, 6, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
                                      ((1, 2, 5, 5), dict(kernel_size=2, stride=2, padding=1, ceil_mode=True)),
                                      ((1, 1, 7, 6), dict(kernel_size=2, stride=2, dilation=2, ceil_mode=True))]),
        ("max_pool1d", F.max_pool1d, [((2, 2, 7), dict(kernel_size=2, ceil_mode=True)),
                                      ((1, 2, 8), dict(kernel_size=3, stride=3, padding=1, ceil_mode=True))]),
        ("avg_pool2d", F.avg_pool2d, [((1, 2, 5, 5), dict(kernel_size=2, ceil_mode=True)),
                                      ((1, 2, 6, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
                                      ((1, 2, 6, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
                                      ((1, 1, 5, 5), dict(kernel_size=2, stride=2, padding=1, ceil_mode=True))]),
        ("avg_pool1d", F.avg_pool1d, [((2, 2, 7), dict(kernel_size=3, stride=2, ceil_mode=True)),
                                      ((1, 2, 8), dict(kernel_size=3, stride=3, padding=1, ceil_mode=True, count_include_pad=False))])]:
    for shape, kw in cases:
        x = torch.randperm(int(torch.tensor(shape).prod()), generator=gen).double().reshape(shape) / 10 - 1
        add(name, lambda x, fn=fn, kw=kw: fn(x, **kw), [x], window_attrs(**kw))

# Unbatched inputs ([C, L], [C, H, W]), as PyTorch takes them: a batch of one, the batch axis dropped again.
for sx, sw, bias, kw in [((3, 5, 5), (4, 3, 3, 3), True, dict(padding=1)), ((4, 6, 5), (6, 2, 3, 2), False, dict(stride=(2, 1), groups=2))]:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[0],), -1, 1)] if bias else [])
    add("conv2d", lambda x, w, b=None, kw=kw: F.conv2d(x, w, b, **kw), ins, window_attrs(**kw))
for sx, sw, bias, kw in [((3, 7), (4, 3, 3), True, dict(padding=1, dilation=2))]:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[0],), -1, 1)] if bias else [])
    add("conv1d", lambda x, w, b=None, kw=kw: F.conv1d(x, w, b, **kw), ins, window_attrs(**kw))
for sx, sw, bias, kw in [((3, 4, 4), (3, 2, 3, 3), True, dict(padding=1, stride=2))]:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[1],), -1, 1)] if bias else [])
    add("conv_transpose2d", lambda x, w, b=None, kw=kw: F.conv_transpose2d(x, w, b, **kw), ins, window_attrs(**kw))
for sx, sw, bias, kw in [((3, 5), (3, 2, 3), False, dict(stride=2, output_padding=1))]:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[1],), -1, 1)] if bias else [])
    add("conv_transpose1d", lambda x, w, b=None, kw=kw: F.conv_transpose1d(x, w, b, **kw), ins, window_attrs(**kw))
for name, fn, cases in [
        ("max_pool2d", F.max_pool2d, [((2, 6, 6), dict(kernel_size=2)), ((2, 5, 5), dict(kernel_size=3, stride=2, ceil_mode=True))]),
        ("max_pool1d", F.max_pool1d, [((3, 8), dict(kernel_size=3, stride=2, padding=1))]),
        ("avg_pool2d", F.avg_pool2d, [((2, 5, 7), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False))]),
        ("avg_pool1d", F.avg_pool1d, [((3, 7), dict(kernel_size=2, ceil_mode=True))])]:
    for shape, kw in cases:
        x = torch.randperm(int(torch.tensor(shape).prod()), generator=gen).double().reshape(shape) / 10 - 1
        add(name, lambda x, fn=fn, kw=kw: fn(x, **kw), [x], window_attrs(**kw))

# interpolate with scale_factor: the output ⌊in · scale⌋, output i read at i / scale (not at i · in/out)
for sx, scale, mode, ac in [((1, 2, 5, 4), 1.5, "nearest", False), ((1, 2, 6, 5), 0.5, "nearest", False),
                            ((1, 1, 5, 3), 1.5, "bilinear", False), ((2, 3, 3), 2.0, "bilinear", True)]:
    attrs = {"scale_factor": scale}
    if mode != "nearest":
        attrs["mode"] = mode
    if ac:
        attrs["align_corners"] = True
    def interp_scale(x, scale=scale, mode=mode, ac=ac):
        if x.dim() == 3:
            return interp_scale(x.unsqueeze(0))[0]
        return F.interpolate(x, scale_factor=scale, mode=mode, align_corners=ac if mode == "bilinear" else None)
    add("interpolate", interp_scale, [uniform(sx, -2, 2)], attrs)

# ---- issue 44: windows that lie partly or wholly outside the input, against PyTorch ----------------
# A kernel column (or row) whose every read lies in the padding: convnext_tiny's 7x7 depthwise kernel,
# padding 3, on a 2x2 map; deeplabv3's dilation 24, padding 24, on 14x14 (here dilation 4 on 3x3).
EDGE_CONV2D = [((1, 2, 2, 2), (2, 1, 7, 7), True, dict(padding=3, groups=2)),
               ((1, 2, 3, 3), (3, 2, 3, 3), False, dict(padding=4, dilation=4)),
               ((1, 2, 2, 2), (3, 2, 3, 3), True, dict(padding=3)),
               ((2, 1, 1, 1), (2, 1, 3, 3), False, dict(padding=2)),
               ((1, 1, 3, 3), (2, 1, 3, 3), False, dict(stride=2, padding=3)),
               ((1, 2, 2, 3), (2, 2, 5, 3), True, dict(stride=(1, 2), padding=(4, 2), dilation=(1, 3)))]
for sx, sw, bias, kw in EDGE_CONV2D:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[0],), -1, 1)] if bias else [])
    add("conv2d", lambda x, w, b=None, kw=kw: F.conv2d(x, w, b, **kw), ins, window_attrs(**kw))
for sx, sw, kw in [((1, 2, 2), (3, 2, 5), dict(padding=4)), ((2, 1, 3), (2, 1, 3), dict(padding=3, dilation=3)),
                   ((1, 2, 1), (2, 2, 7), dict(padding=3, stride=3))]:
    add("conv1d", lambda x, w, kw=kw: F.conv1d(x, w, **kw), [uniform(sx, -1, 1), uniform(sw, -1, 1)], window_attrs(**kw))
# conv_transpose with padding past the kernel's reach (the 3x3 stride-1 correlation padded 2 - p < 0)
for sx, sw, kw in [((1, 2, 6, 6), (2, 3, 3, 3), dict(padding=3)), ((1, 2, 5, 4), (2, 2, 3, 3), dict(padding=(3, 2), dilation=2)),
                   ((1, 1, 3, 3), (1, 2, 3, 3), dict(padding=2))]:
    add("conv_transpose2d", lambda x, w, kw=kw: F.conv_transpose2d(x, w, **kw), [uniform(sx, -1, 1), uniform(sw, -1, 1)],
        window_attrs(**kw))
add("conv_transpose1d", lambda x, w: F.conv_transpose1d(x, w, padding=4, dilation=2), [uniform((1, 2, 7), -1, 1), uniform((2, 2, 3), -1, 1)],
    window_attrs(padding=4, dilation=2))
for name, fn, cases in [
        ("max_pool2d", F.max_pool2d, [((1, 2, 3, 3), dict(kernel_size=3, stride=2, padding=1, dilation=2)),
                                      ((1, 1, 1, 1), dict(kernel_size=3, stride=1, padding=1)),
                                      ((1, 1, 2, 2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True))]),
        ("max_pool1d", F.max_pool1d, [((1, 2, 2), dict(kernel_size=5, stride=1, padding=2)),
                                      ((1, 1, 3), dict(kernel_size=2, stride=1, padding=1, dilation=2))]),
        ("avg_pool2d", F.avg_pool2d, [((1, 2, 1, 1), dict(kernel_size=3, stride=1, padding=1)),
                                      ((1, 2, 2, 2), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
                                      ((1, 1, 2, 3), dict(kernel_size=(3, 5), stride=1, padding=(1, 2), ceil_mode=True))]),
        ("avg_pool1d", F.avg_pool1d, [((1, 2, 1), dict(kernel_size=3, padding=1)),
                                      ((1, 1, 2), dict(kernel_size=5, stride=2, padding=2, count_include_pad=False))])]:
    for shape, kw in cases:
        x = torch.randperm(int(torch.tensor(shape).prod()), generator=gen).double().reshape(shape) / 10 - 1
        add(name, lambda x, fn=fn, kw=kw: fn(x, **kw), [x], window_attrs(**kw))
for sx, kw in [((1, 2, 2, 2), dict(kernel_size=7, padding=3)), ((1, 1, 3, 3), dict(kernel_size=3, padding=4, dilation=4)),
               ((1, 1, 2, 2), dict(kernel_size=(1, 5), padding=(0, 4), stride=(1, 3)))]:
    add("unfold", lambda x, kw=kw: F.unfold(x, **kw), [uniform(sx, -1, 1)], window_attrs(**kw))
for sx, kw in [((1, 98, 4), dict(output_size=2, kernel_size=7, padding=3)), ((1, 9, 9), dict(output_size=3, kernel_size=3, padding=4, dilation=4))]:
    add("fold", lambda x, kw=kw: F.fold(x, **kw), [uniform(sx, -1, 1)], window_attrs(**kw))

# prod along axis 0 of a 0-d tensor (PyTorch takes dim 0 or -1 of a scalar)
for keep in (False, True):
    add("prod", lambda x, keep=keep: torch.prod(x, 0, keepdim=keep), [torch.tensor(-1.75, dtype=torch.float64)], {"axis": 0, "keepdim": keep})

# conv_transpose with output_padding >= stride (valid below max(stride, dilation))
for sx, sw, kw in [((1, 2, 3, 3), (2, 2, 3, 3), dict(stride=1, dilation=2, output_padding=1)),
                   ((1, 2, 3, 2), (2, 3, 2, 3), dict(stride=2, dilation=3, output_padding=2, padding=1)),
                   ((1, 2, 2, 3), (2, 1, 3, 2), dict(stride=(1, 2), dilation=(3, 1), output_padding=(2, 1), padding=(2, 0)))]:
    add("conv_transpose2d", lambda x, w, kw=kw: F.conv_transpose2d(x, w, **kw), [uniform(sx, -1, 1), uniform(sw, -1, 1)],
        window_attrs(**kw))
add("conv_transpose1d", lambda x, w: F.conv_transpose1d(x, w, stride=1, dilation=3, output_padding=2, padding=1),
    [uniform((1, 2, 4), -1, 1), uniform((2, 2, 3), -1, 1)], window_attrs(stride=1, dilation=3, output_padding=2, padding=1))

# max / min without an axis: torch.max(x), the gradient shared evenly by the ties (the NaNs where it is NaN)
for name, fn in [("max", torch.max), ("min", torch.min)]:
    for sx in [(2, 3, 4), (5,), ()]:
        add(name, lambda x, fn=fn: fn(x), [uniform(sx, -2, 2)])
    # ties (an infinity keeps central differences off the kink)
    ties = torch.tensor([[1.0, 3.0, -INF], [3.0, -2.0, 0.5]], dtype=torch.float64)
    add(name, lambda x, fn=fn: fn(x), [ties if name == "max" else -ties])
    # PyTorch 1.13's forward mode gives NaN at a NaN maximum (no element equals it): the JVP from its reverse mode
    add(name, lambda x, fn=fn: fn(x), [torch.tensor([1.0, NAN, 2.0, NAN], dtype=torch.float64)], reverse_jvp=True)

# pad in circular mode (the axis wraps around; at most the axis's length on each side)
for sx, ax, b, a in [((3, 4), 1, 2, 1), ((4, 3), 0, 4, 2), ((2, 3, 2), 1, 0, 3), ((5,), 0, 1, 1)]:
    add("pad", lambda x, ax=ax, b=b, a=a: pad_axis(x, ax, b, a, "circular"), [uniform(sx, -2, 2)],
        {"axis": ax, "before": b, "after": a, "mode": "circular"})

# K-dimensional cross_entropy and nll_loss (segmentation: scores [N, C, d1, ...], labels [N, d1, ...])
for sz, attrs, kw, weighted, probs in [((2, 3, 4), {}, {}, False, False),
                                       ((2, 3, 2, 3), {"reduction": "none"}, dict(reduction="none"), False, False),
                                       ((2, 4, 3, 2), {"ignore_index": 1}, dict(ignore_index=1), True, False),
                                       ((1, 3, 2, 2), {"label_smoothing": 0.2, "reduction": "sum"}, dict(label_smoothing=0.2, reduction="sum"),
                                        True, False),
                                       ((2, 3, 2, 2), {}, {}, False, True)]:
    c = sz[1]
    z = uniform(sz, -2, 2)
    lab = (sz[0],) + sz[2:]
    t = torch.softmax(uniform(sz, -2, 2), 1) if probs else torch.randint(0, c, lab, generator=gen)
    ins = [z, t] + ([uniform((c,), 0.5, 2)] if weighted else [])
    add("cross_entropy", lambda z, t, w=None, kw=kw: F.cross_entropy(z, t, w, **kw), ins, attrs, const=(2,))
for sz, attrs, kw, weighted in [((2, 3, 4), {}, {}, True), ((2, 3, 2, 2), {"reduction": "none"}, dict(reduction="none"), False)]:
    c = sz[1]
    x = torch.log_softmax(uniform(sz, -2, 2), 1)
    ins = [x, torch.randint(0, c, (sz[0],) + sz[2:], generator=gen)] + ([uniform((c,), 0.5, 2)] if weighted else [])
    add("nll_loss", lambda x, t, w=None, kw=kw: F.nll_loss(x, t, w, **kw), ins, attrs, const=(2,))

# interpolate, bicubic (size or scale_factor, align_corners both ways; an output smaller than the input too)
for sx, size, scale, ac in [((1, 2, 3, 4), (5, 7), None, False), ((1, 1, 4, 4), (2, 3), None, False), ((1, 2, 3, 3), (5, 4), None, True),
                            ((2, 3, 3), (4, 6), None, False), ((1, 1, 5, 3), None, 1.5, False), ((1, 1, 1, 3), (3, 2), None, True)]:
    attrs = {"mode": "bicubic"}
    if size is not None:
        attrs["size"] = list(size)
    else:
        attrs["scale_factor"] = scale
    if ac:
        attrs["align_corners"] = True

    def bicubic(x, size=size, scale=scale, ac=ac):
        if x.dim() == 3:
            return bicubic(x.unsqueeze(0))[0]
        return F.interpolate(x, size=size, scale_factor=scale, mode="bicubic", align_corners=ac)
    add("interpolate", bicubic, [uniform(sx, -2, 2)], attrs)

# slice with a step (swin_t's PatchMerging: x[..., 0::2, 1::2, :]); stop past the last kept element, an empty slice
for sx, ax, st, sp, step in [((4, 6), 1, 0, 6, 2), ((5, 3), 0, 1, 5, 2), ((2, 7, 2), -2, 1, 7, 3), ((4, 3), 0, 0, 4, 5),
                             ((2, 5, 3), 2, 1, 3, 2), ((3,), 0, 2, 2, 2)]:
    add("slice", lambda x, ax=ax, st=st, sp=sp, step=step: x[(slice(None),) * (ax % x.dim()) + (slice(st, sp, step),)],
        [uniform(sx, -2, 2)], {"axis": ax, "start": st, "stop": sp, "step": step})

# binary_cross_entropy_with_logits with weight and pos_weight (PyTorch takes no derivative for either: checked by
# central differences only). The attributes name the optional tensors a row gives, as a call's do.
for sx, sw, sp, red in [((3, 4), (3, 4), None, "mean"), ((3, 4), (4,), None, "sum"), ((3, 4), None, (4,), "mean"),
                        ((3, 4), (3, 1), (4,), "none"), ((2, 3, 4), None, (4,), "sum"), ((5,), (5,), (), "mean")]:
    ins = [uniform(sx, -3, 3), uniform(sx, 0, 1)]
    attrs = {}
    if sw is not None:
        ins.append(uniform(sw, 0.5, 2))
        attrs["weight"] = True
    if sp is not None:
        ins.append(uniform(sp, 0.5, 3))
        attrs["pos_weight"] = True
    if red != "mean":
        attrs["reduction"] = red

    def bce(x, y, *rest, sw=sw, sp=sp, red=red):
        w = rest[0] if sw is not None else None
        pw = rest[-1] if sp is not None else None
        return F.binary_cross_entropy_with_logits(x, y, w, reduction=red, pos_weight=pw)
    add("binary_cross_entropy_with_logits", bce, ins, attrs, const=tuple(range(2, len(ins))))

# einsum with "..." (broadcast axes, right-aligned; an axis of 1 against a longer one; implicit output) and a letter
# twice in an operand (a diagonal, a trace, a diagonal of a batch)
for eq, shapes in [("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]), ("...ij,jk", [(2, 1, 2, 3), (3, 2)]),
                   ("b...,b...->b", [(2, 3, 2), (2, 3, 2)]), ("...i,...i->...", [(2, 1, 3), (4, 3)]), ("i...->...i", [(3, 2, 2)]),
                   ("...", [(2, 3)]), ("ii->i", [(3, 3)]), ("ii", [(4, 4)]), ("bii->bi", [(2, 3, 3)]), ("iij,j->i", [(2, 2, 3), (3,)]),
                   ("ij,jj->i", [(2, 3), (3, 3)]), ("iii->", [(2, 2, 2)]), ("...ii->...i", [(2, 3, 3)])]:
    add("einsum", lambda *xs, eq=eq: torch.einsum(eq, *xs), [uniform(sh, -1, 1) for sh in shapes], {"equation": eq})

# interpolate, linear on [N, C, L] and trilinear on [N, C, D, H, W] (also without the batch axis; size or
# scale_factor, align_corners both ways, outputs smaller than the input)
for mode, sx, size, scale, ac in [("linear", (2, 3, 5), (8,), None, False), ("linear", (1, 2, 6), (4,), None, True),
                                  ("linear", (2, 2, 4), None, 1.5, False), ("linear", (3, 5), (7,), None, False),
                                  ("trilinear", (1, 2, 3, 4, 5), (4, 5, 3), None, False), ("trilinear", (1, 1, 2, 3, 3), None, 2.0, True),
                                  ("trilinear", (2, 4, 3, 2), (3, 2, 5), None, False), ("trilinear", (1, 1, 3, 3, 4), (2, 2, 2), None, True)]:
    attrs = {"mode": mode}
    if size is not None:
        attrs["size"] = list(size)
    else:
        attrs["scale_factor"] = scale
    if ac:
        attrs["align_corners"] = True

    def resize(x, mode=mode, size=size, scale=scale, ac=ac):
        if x.dim() == (2 if mode == "linear" else 4):
            return resize(x.unsqueeze(0))[0]
        return F.interpolate(x, size=size, scale_factor=scale, mode=mode, align_corners=ac)
    add("interpolate", resize, [uniform(sx, -2, 2)], attrs)

# adaptive_avg_pool3d (r3d_18's head): windows of every size, an output larger than the input, no batch axis
for sx, size in [((1, 2, 4, 5, 6), [2, 3, 4]), ((2, 3, 3, 3), 1), ((1, 1, 5, 3, 4), [3, 2, 5]), ((2, 1, 2, 2, 2), [2, 2, 2])]:
    add("adaptive_avg_pool3d", lambda x, size=size: F.adaptive_avg_pool3d(x, size), [uniform(sx, -2, 2)], {"output_size": size})

# conv3d, max_pool3d, avg_pool3d (depth stride, dilation and padding; groups; ceil_mode adding a depth window;
# count_include_pad both ways; no batch axis); the pools on distinct values (no ties)
for sx, sw, bias, kw in [((1, 2, 4, 5, 5), (3, 2, 2, 3, 3), True, {}),
                         ((2, 2, 5, 4, 6), (4, 2, 3, 2, 3), False, dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1))),
                         ((1, 4, 3, 4, 4), (4, 2, 2, 3, 3), True, dict(groups=2, padding=1)),
                         ((2, 4, 3, 3), (3, 2, 3, 1, 2), True, dict(stride=2, padding=(1, 0, 1))),
                         ((1, 1, 7, 3, 3), (2, 1, 3, 2, 2), False, dict(dilation=(2, 1, 1), stride=(3, 1, 1), padding=(2, 0, 0)))]:
    ins = [uniform(sx, -1, 1), uniform(sw, -1, 1)] + ([uniform((sw[0],), -1, 1)] if bias else [])
    add("conv3d", lambda x, w, b=None, kw=kw: F.conv3d(x, w, b, **kw), ins, window_attrs(**kw))
for name, fn, cases in [("max_pool3d", F.max_pool3d, [((1, 2, 4, 5, 5), dict(kernel_size=2)),
                                                     ((2, 1, 5, 6, 5), dict(kernel_size=3, stride=2, padding=1)),
                                                     ((1, 2, 5, 5, 4), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), dilation=(2, 1, 1),
                                                                            padding=(1, 0, 1))),
                                                     ((1, 1, 6, 5, 5), dict(kernel_size=3, stride=2, ceil_mode=True)),
                                                     ((2, 4, 4, 4), dict(kernel_size=2, stride=1))]),
                        ("avg_pool3d", F.avg_pool3d, [((1, 2, 4, 5, 5), dict(kernel_size=2)),
                                                     ((2, 1, 5, 6, 5), dict(kernel_size=3, stride=2, padding=1)),
                                                     ((1, 1, 5, 6, 5), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
                                                     ((1, 1, 6, 5, 7), dict(kernel_size=(3, 2, 3), stride=2, padding=1, ceil_mode=True)),
                                                     ((1, 2, 6, 5, 5), dict(kernel_size=3, stride=2, ceil_mode=True, count_include_pad=False)),
                                                     ((2, 3, 4, 4), dict(kernel_size=2, stride=1))])]:
    for shape, kw in cases:
        x = torch.randperm(int(torch.tensor(shape).prod()), generator=gen).double().reshape(shape) / 10 - 1
        add(name, lambda x, fn=fn, kw=kw: fn(x, **kw), [x], window_attrs(**kw))

out = os.path.join(os.path.dirname(__file__), "..", "resources", "optable.json")
with open(out, "w") as f:
    json.dump({"generator": "gen_op_table.py", "torch": torch.__version__, "rows": rows}, f)
print(len(rows), "rows ->", os.path.normpath(out))
