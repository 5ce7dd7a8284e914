#!/usr/bin/env bash
# The CPU GEMM of git revision REV against the working tree's, in one JVM, taken in turns: medians
# of GFLOP/s on the MLP step's shapes and at 1024, one thread then the pool. Build first
# (mvn -DskipTests install). Usage: scripts/bench/gemm_ab.sh REV [ROUNDS] [SIZE]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rev="${1:?usage: gemm_ab.sh REV [ROUNDS] [SIZE]}"
rounds="${2:-15}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
src=engine/src/main/java/io/gradscope/engine/device/cpu/VectorGemm.java
pkg="$work/src/io/gradscope/engine/device/cpu"
mkdir -p "$pkg"
(cd "$root" && git show "$rev:$src") | sed -e 's/class VectorGemm/class GemmOld/' -e 's/private VectorGemm()/private GemmOld()/' > "$pkg/GemmOld.java"
sed -e 's/class VectorGemm/class GemmNew/' -e 's/private VectorGemm()/private GemmNew()/' "$root/$src" > "$pkg/GemmNew.java"
cp "$root/scripts/bench/gemm_ab/GemmAB.java" "$pkg/"
classes="$root/engine/target/classes"
javac -nowarn --add-modules jdk.incubator.vector -cp "$classes" -d "$work/classes" "$pkg"/*.java 2>&1 | grep -v -i 'warning' || true
for mode in s p; do
  echo "== $([ $mode = s ] && echo 'one thread' || echo 'the pool'): $rev (old) against the working tree (new)"
  java --add-modules jdk.incubator.vector -cp "$work/classes:$classes" io.gradscope.engine.device.cpu.GemmAB "$mode" "$rounds" ${3:-} 2>/dev/null
done
