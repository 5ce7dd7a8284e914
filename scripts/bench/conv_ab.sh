#!/usr/bin/env bash
# resnet18's stride-1 3x3 convolutions by im2col and by the 3x3 kernel (Winograd), in turns in one JVM:
# medians, forward and forward + backward. Build first (mvn -q -o -DskipTests package). Usage:
# scripts/bench/conv_ab.sh [ROUNDS] [REPS]. OpenBLAS one thread a call, as the launcher sets it.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/java_tool.sh" "scripts/bench/conv_ab/ConvAB.java" ConvAB "$@"
