#!/usr/bin/env bash
# A bench model's training step under two settings of gradscope.conv (default im2col, then auto), in turns
# step by step in one JVM: medians and the median of the pairs' ratios. From the packaged jars: build first
# (mvn -q -o -DskipTests package). Usage: scripts/bench/step_ab.sh [resnet18_224] [PAIRS]; -Dmodes=A,B in JAVA_OPTS.
# OpenBLAS one thread a call, as the launcher sets it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
cp="app/target/gradscope-app-0.1.0-SNAPSHOT.jar:app/target/lib/*"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
javac -nowarn -cp "$cp" -d "$work" scripts/bench/step_ab/StepAB.java scripts/bench/step_breakdown/StepBreakdown.java
flags=" $(grep -m1 '^flags' /proc/cpuinfo || true) "
case "$flags" in *" avx512f "*) core=SkylakeX ;; *" avx2 "*) core=Haswell ;; *) core="" ;; esac
OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-$core}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" exec java -XX:+UseParallelGC -XX:+UseTransparentHugePages ${JAVA_OPTS:-} --add-modules jdk.incubator.vector \
    -cp "$work:$cp" StepAB "$@" 2> >(grep -v 'incubator' >&2)
