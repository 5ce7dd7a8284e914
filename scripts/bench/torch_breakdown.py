"""PyTorch's side of scripts/bench/step_breakdown.sh: where the bench's training step goes in PyTorch
1.13 (the same module, eval mode, forward + the sum's backward, as torch_bench.py times it), by op,
from torch.profiler (self CPU time, ms a step). Usage: python3 torch_breakdown.py [resnet18|encoder] [STEPS] [THREADS]"""
import sys
import time

import torch
import torch.profiler

name = sys.argv[1] if len(sys.argv) > 1 else "resnet18"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 2)
if name == "resnet18":
    import torchvision
    model, x = torchvision.models.resnet18(weights=None).eval(), torch.randn(1, 3, 224, 224)
else:
    layer = torch.nn.TransformerEncoderLayer(256, 8, dim_feedforward=1024, dropout=0.0, batch_first=True)
    model, x = torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False).eval(), torch.randn(8, 128, 256)


def step():
    model(x).sum().backward()
    for p in model.parameters():
        p.grad = None


for _ in range(5):
    step()
times = []
for _ in range(steps):
    t0 = time.perf_counter()
    step()
    times.append((time.perf_counter() - t0) * 1e3)
times.sort()
print(f"{name}: step median {times[len(times) // 2]:.1f} ms (min {times[0]:.1f}), {steps} steps, "
      f"{torch.get_num_threads()} threads")
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
    for _ in range(steps):
        step()
rows = []
for e in prof.key_averages(group_by_input_shape=True):
    rows.append((e.self_cpu_time_total / 1e3 / steps, e.count / steps, e.key, str(e.input_shapes)[:90]))
rows.sort(reverse=True)
print("== by op and shapes (self ms a step, calls a step)")
for ms, n, key, shapes in rows[:40]:
    print(f"{ms:8.2f} {n:5.0f}  {key} {shapes}")
