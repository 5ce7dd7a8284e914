"""PyTorch 1.13's checkpoint_sequential on the remat benchmark's chain, measured like gradscope memory.

The chain of assets/bench/chain64.grad: 64 layers of Linear(512, 512) + tanh, batch 512, float32,
loss = mean of the last layer. A step is forward + backward (gradients set to None first).

Memory: the CPU allocations of one step, from the profiler (profile_memory=True): each op's own
allocations at its start, frees outside ops as [memory] events, summed in time order; the bytes of
the parameters' gradients are taken out once AccumulateGrad keeps them. What is left is what
gradscope calls the working bytes (activations, temporaries, gradients on their way), and its peak
is compared with gradscope's max_working_bytes. Time: the median of --runs steps after a warm-up,
plain and checkpointed alternating. Prints one JSON object.

Run with Debian's python3-torch and libopenblas0-pthread (without it matmuls run on the reference
BLAS): /usr/bin/python3 scripts/bench/remat_chain.py
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile
from torch.utils.checkpoint import checkpoint_sequential


def chain(layers, width):
    mods = []
    for _ in range(layers):
        mods += [nn.Linear(width, width), nn.Tanh()]
    return nn.Sequential(*mods)


def step(model, x, segments):
    for p in model.parameters():
        p.grad = None
    y = checkpoint_sequential(model, segments, x) if segments else model(x)
    y.mean().backward()


def working_peak(model, x, segments):
    step(model, x, segments)  # warm
    for p in model.parameters():
        p.grad = None
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True) as prof:
        y = checkpoint_sequential(model, segments, x) if segments else model(x)
        y.mean().backward()
    live = 0
    kept = 0
    peak = 0
    for e in sorted(prof.events(), key=lambda e: e.time_range.start):
        live += e.self_cpu_memory_usage
        if e.name == "torch::autograd::AccumulateGrad" and e.input_shapes:
            n = 4
            for d in e.input_shapes[0]:
                n *= d
            kept += n
        peak = max(peak, live - kept)
    return peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=64)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--segments", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = chain(a.layers, a.width)
    # Reentrant checkpointing needs an input that requires a gradient for the parameters inside to get theirs.
    x = torch.randn(a.batch, a.width).requires_grad_(True)
    peaks = {"plain": working_peak(model, x, 0), "checkpoint": working_peak(model, x, a.segments)}
    times = {"plain": [], "checkpoint": []}
    step(model, x, 0)
    step(model, x, a.segments)
    for _ in range(a.runs):
        for name, seg in (("plain", 0), ("checkpoint", a.segments)):
            t0 = time.perf_counter()
            step(model, x, seg)
            times[name].append((time.perf_counter() - t0) * 1e3)
    ms = {k: statistics.median(v) for k, v in times.items()}
    print(json.dumps({
        "torch": torch.__version__, "threads": a.threads, "segments": a.segments,
        "working_peak_bytes": peaks, "ratio_peak": peaks["checkpoint"] / peaks["plain"],
        "step_ms": ms, "ratio_time": ms["checkpoint"] / ms["plain"]}))


if __name__ == "__main__":
    main()
