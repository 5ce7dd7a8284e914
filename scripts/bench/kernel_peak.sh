#!/usr/bin/env bash
# How close the CPU GEMM's 12 x 32 micro-kernel comes to the core's peak: the kernel on slivers held
# in L1 against the same fused multiply-adds with nothing to load, in one JVM, taken in turns; then
# what a second thread adds to the FMAs. Needs AVX-512. Build first (mvn -q -o -DskipTests install).
# Usage: scripts/bench/kernel_peak.sh [ROUNDS]. The tool: bench/src/main/java/io/gradscope/bench/tools/KernelPeak.java.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/java_tool.sh" KernelPeak "${1:-101}"
