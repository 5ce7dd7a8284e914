#!/usr/bin/python3
"""Measures the model zoo through the command line, for the README's table: per model, the ONNX nodes, the
imported program's ops (its statements but the leaves and the objective),
the wall time of `gradscope import` and of `gradscope run --dtype float64` (each a fresh JVM, start-up
included), the peak of `gradscope memory` (float64, active bytes) and the largest relative error of the
run's gradients against PyTorch's float64 checks in reference.json (norms, dot products, samples).

Run: /usr/bin/python3 engine/src/test/python/gen_onnx_zoo.py --full /tmp/zoo-full
     GRADSCOPE=./gradscope /usr/bin/python3 engine/src/test/python/zoo_table.py /tmp/zoo-full [NAME ...]
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen_onnx_zoo import MODELS, OUT, splitmix, DOT_SEED  # noqa: E402

GS = shlex.split(os.environ.get("GRADSCOPE", "./gradscope"))


def timed(args):
    t = time.perf_counter()
    p = subprocess.run(GS + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(args) + ": " + p.stderr.strip()[-400:])
    return time.perf_counter() - t, p.stdout


def worst_error(ref, grads_dir, names):
    worst = 0.0
    for onnx_name, c in ref["grads"].items():
        g = np.load(os.path.join(grads_dir, names[onnx_name] + ".npy")).astype(np.float64).reshape(-1)
        r = 2.0 * splitmix(DOT_SEED, g.size) - 1.0
        worst = max(worst, abs(np.linalg.norm(g) - c["norm"]) / c["norm"] if c["norm"] else 0.0,
                    abs(np.dot(g, r) - c["dot"]) / max(c["absdot"], 1e-300))
        for i, v in c["samples"]:
            worst = max(worst, abs(g[i] - v) / max(abs(v), 0.1 * c["max"], 1e-300))
    return worst


def main():
    full = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    print("| model | nodes | program ops | import | run (float64) | peak memory | max gradient error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in names:
        out = os.path.join("/tmp", "zoo-table", name)
        shutil.rmtree(out, ignore_errors=True)
        t_import, said = timed(["import", "--out", out, os.path.join(full, name + ".onnx")])
        nodes = said.split(" nodes")[0].rsplit(" ", 1)[-1]
        with open(os.path.join(out, "names.json")) as fh:
            mapping = json.load(fh)
        inp = "--input=%s=%s" % (mapping["inputs"]["input"], os.path.join(OUT, name, "input.npy"))
        grad = os.path.join(out, "model.grad")
        t_run, _ = timed(["run", "--dtype=float64", "--out", os.path.join(out, "run"), inp, grad])
        _, mem = timed(["memory", "--json", "--runs=1", "--dtype=float64", inp, grad])
        peak = json.loads(mem)["peak_bytes"]
        with open(os.path.join(OUT, name, "reference.json")) as fh:
            ref = json.load(fh)
        err = worst_error(ref, os.path.join(out, "run", "grad"), mapping["initializers"])
        size = "%.1f MiB" % (peak / 2 ** 20) if peak >= 2 ** 20 else "%.0f KiB" % (peak / 2 ** 10)
        print("| %s | %s | %d | %.1f s | %.1f s | %s | %.0e |" % (name, nodes, program_ops(grad), t_import, t_run, size, err), flush=True)


def program_ops(grad):
    """The program's statements other than its leaves (param, input, labels) and the objective."""
    with open(grad) as fh:
        lines = fh.read().splitlines()
    ops = [l for l in lines if re.match(r"^\s*\w+ = ", l) and not re.match(r"^\s*\w+ = (param|input|labels)\(", l)]
    return len(ops) - 1


if __name__ == "__main__":
    main()
