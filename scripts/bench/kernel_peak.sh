#!/usr/bin/env bash
# How close the CPU GEMM's 12 x 32 micro-kernel comes to the core's peak: the kernel on slivers held
# in L1 against the same fused multiply-adds with nothing to load, in one JVM, taken in turns; then
# what a second thread adds to the FMAs. Needs AVX-512. Build first (mvn -DskipTests install).
# Usage: scripts/bench/kernel_peak.sh [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
src=engine/src/main/java/io/gradscope/engine/device/cpu/VectorGemm.java
pkg="$work/src/io/gradscope/engine/device/cpu"
mkdir -p "$pkg"
# The kernel as the engine has it, in a copy whose kernel the harness may call.
sed -e 's/class VectorGemm/class KernelCopy/' -e 's/private VectorGemm()/private KernelCopy()/' \
    -e 's/private static void kernel12(/static void kernel12(/' "$root/$src" > "$pkg/KernelCopy.java"
cp "$root/scripts/bench/kernel_peak/KernelPeak.java" "$pkg/"
classes="$root/engine/target/classes"
javac -nowarn --add-modules jdk.incubator.vector -cp "$classes" -d "$work/classes" "$pkg"/*.java 2>&1 | grep -v -i 'warning' || true
java --add-modules jdk.incubator.vector -cp "$work/classes:$classes" io.gradscope.engine.device.cpu.KernelPeak "${1:-101}" 2>/dev/null
