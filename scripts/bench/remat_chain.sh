#!/usr/bin/env bash
# The remat benchmark: the 64-layer chain (Linear 512 + tanh, batch 512, float32), plain and with
# recomputation, in gradscope (--remat sqrt) and in PyTorch 1.13 (checkpoint_sequential, 8
# segments), one after the other in the same run. Prints both JSON objects and a summary.
#   scripts/bench/remat_chain.sh [RUNS]     (default 5 timed steps of each; the machine is noisy)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
runs="${1:-5}"
ours="$("$root/gradscope" memory "$root/assets/bench/chain64.grad" --dtype float32 --remat sqrt --json --runs "$runs")"
theirs="$(/usr/bin/python3 "$root/scripts/bench/remat_chain.py" --runs "$runs")"
echo "$ours" > /tmp/remat_chain_gradscope.json
echo "$theirs" > /tmp/remat_chain_torch.json
/usr/bin/python3 - "$ours" "$theirs" <<'PY'
import json, sys
g = json.loads(sys.argv[1]); t = json.loads(sys.argv[2])
mib = lambda b: b / 2**20
print("                          plain        remat      ratio")
print("gradscope activations  %8.1f MiB %8.1f MiB %7.1f%%" % (mib(g["plain"]["max_activation_bytes"]), mib(g["max_activation_bytes"]),
      100 * g["max_activation_bytes"] / g["plain"]["max_activation_bytes"]))
print("gradscope working      %8.1f MiB %8.1f MiB %7.1f%%" % (mib(g["plain"]["max_working_bytes"]), mib(g["max_working_bytes"]),
      100 * g["max_working_bytes"] / g["plain"]["max_working_bytes"]))
print("pytorch working        %8.1f MiB %8.1f MiB %7.1f%%" % (mib(t["working_peak_bytes"]["plain"]), mib(t["working_peak_bytes"]["checkpoint"]),
      100 * t["ratio_peak"]))
print("gradscope step         %8.0f ms  %8.0f ms  %7.2fx" % (g["time_ms"]["plain"], g["time_ms"]["remat"], g["time_ms"]["remat"] / g["time_ms"]["plain"]))
print("pytorch step           %8.0f ms  %8.0f ms  %7.2fx" % (t["step_ms"]["plain"], t["step_ms"]["checkpoint"], t["ratio_time"]))
print("gradscope: %d ops recomputed in %d segments, %.1f GFLOP" % (g["recomputed_ops"], g["segments"], g["recomputed_flops"] / 1e9))
PY
