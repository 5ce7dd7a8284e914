#!/usr/bin/env bash
# resnet18's stride-1 3x3 convolutions by im2col and by the 3x3 kernel (Winograd), in turns in one JVM:
# medians, forward and forward + backward. Build first (mvn -q -o -DskipTests package). Usage:
# scripts/bench/conv_ab.sh [ROUNDS] [REPS]. OpenBLAS one thread a call, as the launcher sets it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
cp="app/target/gradscope-app-0.1.0-SNAPSHOT.jar:app/target/lib/*"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
javac -nowarn -cp "$cp" -d "$work" scripts/bench/conv_ab/ConvAB.java
flags=" $(grep -m1 '^flags' /proc/cpuinfo || true) "
case "$flags" in *" avx512f "*) core=SkylakeX ;; *" avx2 "*) core=Haswell ;; *) core="" ;; esac
OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-$core}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" exec java -XX:+UseParallelGC \
    ${JAVA_OPTS:-} --add-modules jdk.incubator.vector -cp "$work:$cp" ConvAB "$@" 2> >(grep -v 'incubator' >&2)
