#!/usr/bin/python3
"""Dense Jacobians and Hessians of the conformance cases, from PyTorch 1.13 in float64.

Each case's program.grad runs as Python with the functions of gen_hvp.py (read from that file, so
the two scripts agree). For every named value `of` and every param `wrt`, and for the pairs of
named values in NODE_PAIRS, torch.autograd.functional.jacobian of `of` with respect to `wrt` (the
other leaves held fixed; for a named value, the statements before it held fixed and the value
itself replaced) is written, flattened to (of.numel, wrt.numel), to
resources/jacobian/CASE/OF.WRT.npy; the Hessian of the objective with respect to every param to
resources/jacobian/CASE/hessian.WRT.npy.

Run: /usr/bin/python3 engine/src/test/python/gen_jacobians.py  (Debian's python3-torch)
"""
import ast
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
CONFORMANCE = os.path.join(HERE, "..", "resources", "conformance")
OUT = os.path.join(HERE, "..", "resources", "jacobian")

# gen_hvp.py's function table, without running its main().
_tree = ast.parse(open(os.path.join(HERE, "gen_hvp.py")).read())
_tree.body = [s for s in _tree.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call))]
_hvp = {"__file__": os.path.join(HERE, "gen_hvp.py")}
exec(compile(_tree, "gen_hvp.py", "exec"), _hvp)
FUNCTIONS = _hvp["FUNCTIONS"]

# Jacobians of one named value with respect to another (an intermediate node).
NODE_PAIRS = {
    "attention": [("obj", "o")],
    "layernorm": [("obj", "y")],
    "mlp_checkpoint": [("h2", "h1"), ("out", "h1"), ("loss", "out")],
    "reductions": [("obj", "a"), ("obj", "z")],
    "softmax_ce": [("p", "logits"), ("loss", "logits")],
    "views": [("s", "t"), ("s", "r")],
}


def statements(source):
    out = []

    def walk(stmts):
        for st in stmts:
            if isinstance(st, ast.With):
                walk(st.body)
            else:
                out.append(st)
    walk(ast.parse(source).body)
    return out


def values(stmts, leaves, replace=None):
    """Every named value; `replace` = (name, tensor) puts the tensor in place of that statement."""
    env = dict(FUNCTIONS)
    named = {}
    for st in stmts:
        name = st.targets[0].id
        call = st.value
        if replace is not None and name == replace[0]:
            env[name] = replace[1]
        elif isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("param", "input", "labels"):
            env[name] = leaves[name]
        else:
            env[name] = eval(compile(ast.Expression(call), "<grad>", "eval"), env)
        named[name] = env[name]
    return named


def flat(j, of, wrt):
    return j.reshape(of.numel(), wrt.numel()).numpy()


def main():
    for case in sorted(os.listdir(CONFORMANCE)):
        folder = os.path.join(CONFORMANCE, case)
        if not os.path.isdir(folder):
            continue
        source = open(os.path.join(folder, "program.grad")).read()
        stmts = statements(source)
        leaves = {f[:-4]: torch.from_numpy(np.load(os.path.join(folder, "in", f))) for f in os.listdir(os.path.join(folder, "in"))}
        base = values(stmts, leaves)
        objective = stmts[-1].targets[0].id
        assert np.allclose(base[objective].numpy(), np.load(os.path.join(folder, "ref", "objective.npy")), rtol=1e-10, atol=0)
        params = sorted(n for n in leaves if f"{n} = param(" in source)
        computed = [st.targets[0].id for st in stmts if st.targets[0].id not in leaves]
        pairs = [(of, wrt) for of in computed for wrt in params] + NODE_PAIRS.get(case, [])
        out = os.path.join(OUT, case)
        os.makedirs(out, exist_ok=True)
        for of, wrt in pairs:
            if wrt in leaves:
                f = lambda x, of=of, wrt=wrt: values(stmts, {**leaves, wrt: x})[of]
            else:
                f = lambda x, of=of, wrt=wrt: values(stmts, leaves, (wrt, x))[of]
            j = torch.autograd.functional.jacobian(f, base[wrt])
            np.save(os.path.join(out, f"{of}.{wrt}.npy"), flat(j, base[of], base[wrt]))
            print(case, of, wrt, tuple(j.shape))
        for wrt in params:
            h = torch.autograd.functional.hessian(lambda x, wrt=wrt: values(stmts, {**leaves, wrt: x})[objective], base[wrt])
            np.save(os.path.join(out, f"hessian.{wrt}.npy"), flat(h, base[wrt], base[wrt]))
            print(case, "hessian", wrt, tuple(h.shape))


main()
