#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/gpu/prepare.sh here; DEVICE=cpu checks the script itself anywhere): the CUDA test suite, the shared
# conformance cases through `gradscope run --device cuda` checked with NumPy, Gradscope's GPU
# bench, and PyTorch's torch.mm at 4096 (TF32 off) as the baseline. Writes everything to $OUT:
# glibc.txt (checked first), gpu.txt, tests.txt (the whole test log), conformance.txt, bench.txt,
# torch.txt. Without a GPU, JAVA_TOOL_OPTIONS=-Dgradscope.cuda.driver=engine/target/cuda-standin/libcuda.so.1
# runs the tests and the conformance cases on the tests' driver stand-in (the bench would crawl).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-/tmp/gpu-out}"
mkdir -p "$OUT"
# First the C library: the jlinked runtime was built against a glibc, and an older one fails
# with a cryptic loader error.
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
need=$(cat "$root/.gpu/glibc-needed" 2>/dev/null || echo 2.34)
echo "glibc ${glibc:-unknown} (the runtime needs $need or newer)" | tee "$OUT/glibc.txt"
if [ -z "$glibc" ] || [ "$(printf '%s\n%s\n' "$need" "$glibc" | sort -V | head -1)" != "$need" ]; then
  echo "this machine's glibc is too old for .gpu/jre: stopping" | tee -a "$OUT/glibc.txt"
  exit 1
fi
# JCuda's driver binding is loaded from .gpu/native (nothing is unpacked into /tmp).
JAVA="$root/.gpu/jre/bin/java --add-modules jdk.incubator.vector -Djava.library.path=$root/.gpu/native"
CP="$root/.gpu/lib/*"
# JUnit's console launcher does not expand "*": list the jars.
JARS=$(ls "$root"/.gpu/lib/*.jar | grep -v console-standalone | tr '\n' ':')
nvidia-smi -L 2>&1 | tee "$OUT/gpu.txt"

# The whole test log stays in $OUT/tests.txt; the console gets its summary.
echo "== CUDA tests: op-table parity, kernels, the backend's own tests" | tee "$OUT/tests.txt"
(cd engine && $JAVA -jar "$root"/.gpu/lib/junit-platform-console-standalone-*.jar \
   execute -cp "$root/.gpu/test-classes/engine:$JARS" --select-class io.gradscope.engine.ops.CudaParityTest \
   --select-class io.gradscope.engine.device.KernelPtxTest --select-class io.gradscope.engine.device.LayerNormPrecisionTest \
   --select-package io.gradscope.engine.device.cuda --details=tree --disable-banner --disable-ansi-colors) >> "$OUT/tests.txt" 2>&1
tail -25 "$OUT/tests.txt"

echo "== conformance through gradscope run --device cuda" | tee "$OUT/conformance.txt"
for dir in engine/src/test/resources/conformance/*/; do
  name=$(basename "$dir")
  for dtype in float64 float32; do
    args=()
    for f in "$dir"in/*.npy; do args+=(--input "$(basename "$f" .npy)=$f"); done
    $JAVA -cp "$CP" io.gradscope.app.Launcher run "$dir/program.grad" --device "${DEVICE:-cuda}" --dtype $dtype "${args[@]}" \
        --out "$OUT/conf/$name/$dtype" > /dev/null 2>> "$OUT/conformance.txt"
    python3 - "$dir" "$OUT/conf/$name/$dtype" "$dtype" <<'PY' | tee -a "$OUT/conformance.txt"
import sys, os, glob, numpy as np
ref, got, dtype = sys.argv[1], sys.argv[2], sys.argv[3]
rtol, atol = (1e-6, 1e-8) if dtype == "float64" else (2e-3, 2e-4)
bad = []
for f in [os.path.join(ref, "ref", "objective.npy")] + glob.glob(os.path.join(ref, "ref", "grad", "*.npy")) + glob.glob(os.path.join(ref, "ref", "value", "*.npy")):
    rel = os.path.relpath(f, os.path.join(ref, "ref"))
    g = os.path.join(got, rel)
    if not os.path.exists(g) or not np.allclose(np.load(f), np.load(g), rtol=rtol, atol=atol):
        bad.append(rel)
print(f"{os.path.basename(ref.rstrip('/'))} {dtype}: {'ok' if not bad else 'FAIL ' + ' '.join(bad)}")
PY
  done
done

echo "== Gradscope GPU bench" | tee "$OUT/bench.txt"
$JAVA -cp "$CP" io.gradscope.app.Launcher bench --device cuda --runs 7 2>&1 | tee -a "$OUT/bench.txt"

echo "== PyTorch torch.mm baseline (TF32 off)" | tee "$OUT/torch.txt"
python3 - <<'PY' 2>&1 | tee -a "$OUT/torch.txt"
import torch, time, statistics
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
for dt in (torch.float32, torch.float64):
    a = torch.randn(4096, 4096, device="cuda", dtype=dt); b = torch.randn(4096, 4096, device="cuda", dtype=dt)
    for _ in range(3): torch.mm(a, b)
    torch.cuda.synchronize(); ts = []
    for _ in range(7):
        t = time.perf_counter(); torch.mm(a, b); torch.cuda.synchronize(); ts.append(time.perf_counter() - t)
    print(f"torch.mm 4096 {dt}: median {2*4096**3/statistics.median(ts)/1e12:.2f} TFLOP/s")
n = 1 << 26
x = torch.zeros(n, device="cuda"); y = torch.zeros(n, device="cuda")
for _ in range(3): x + y
torch.cuda.synchronize(); ts = []
for _ in range(7):
    t = time.perf_counter(); x + y; torch.cuda.synchronize(); ts.append(time.perf_counter() - t)
print(f"torch add 64M float32: median {3*4*n/statistics.median(ts)/1e9:.0f} GB/s (HBM3e peak 4800 GB/s)")
PY
