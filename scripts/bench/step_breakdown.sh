#!/usr/bin/env bash
# Where a bench model's training step goes, op by op (forward and backward), from the packaged jars:
# build first (mvn -q -o -DskipTests package). Usage: scripts/bench/step_breakdown.sh [resnet18_224|transformer_encoder] [STEPS]
# OpenBLAS one thread a call, as the launcher sets it. -Drows=N (in JAVA_OPTS) sets how many op + shape rows print. PyTorch's side: scripts/bench/torch_breakdown.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
cp="app/target/gradscope-app-0.1.0-SNAPSHOT.jar:app/target/lib/*"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
javac -nowarn -cp "$cp" -d "$work" scripts/bench/step_breakdown/StepBreakdown.java
flags=" $(grep -m1 '^flags' /proc/cpuinfo || true) "
case "$flags" in *" avx512f "*) core=SkylakeX ;; *" avx2 "*) core=Haswell ;; *) core="" ;; esac
OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-$core}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" exec java -XX:+UseParallelGC ${JAVA_OPTS:-} --add-modules jdk.incubator.vector \
    -cp "$work:$cp" StepBreakdown "$@" 2> >(grep -v 'incubator' >&2)
