#!/usr/bin/env bash
# The CPU GEMM of git revision REV against the working tree's, in one JVM, taken in turns: medians
# of GFLOP/s on the MLP step's shapes and at 1024, one thread then the pool. Build first
# (mvn -q -o -DskipTests install). Usage: scripts/bench/gemm_ab.sh REV [ROUNDS] [SIZE]
# REV's VectorGemm is compiled here as GemmOld, beside the engine's classes (it uses their package's
# helpers); the harness is the bench module's io.gradscope.bench.tools.GemmAB.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rev="${1:?usage: gemm_ab.sh REV [ROUNDS] [SIZE]}"
rounds="${2:-15}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
src=engine/src/main/java/io/gradscope/engine/device/cpu/VectorGemm.java
pkg="$work/src/io/gradscope/engine/device/cpu"
mkdir -p "$pkg" "$work/classes"
# A revision before the package was renamed (backend -> device) has the file at its old path.
(cd "$root" && { git show "$rev:$src" 2>/dev/null || git show "$rev:${src/\/device\//\/backend\/}"; }) \
  | sed -e 's/class VectorGemm/class GemmOld/' -e 's/private VectorGemm()/private GemmOld()/' \
        -e 's/^package io\.gradscope\.engine\.backend\.cpu;/package io.gradscope.engine.device.cpu;/' > "$pkg/GemmOld.java"
javac -nowarn --add-modules jdk.incubator.vector -cp "$root/engine/target/classes" -d "$work/classes" "$pkg/GemmOld.java" 2>&1 \
  | { grep -v -i 'warning' || true; } >&2
for mode in s p; do
  echo "== $([ $mode = s ] && echo 'one thread' || echo 'the pool'): $rev (old) against the working tree (new)"
  TOOL_CP="$work/classes" "$root/scripts/bench/java_tool.sh" GemmAB "$mode" "$rounds" ${3:-}
done
