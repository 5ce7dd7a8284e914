#!/usr/bin/env bash
# resnet18's stride-1 3x3 convolutions under each way of -Dmodes in JAVA_OPTS (gradscope.conv's values,
# default im2col,auto), in turns in one JVM: medians, forward and forward + backward. Build first
# (mvn -q -o -DskipTests install). Usage: scripts/bench/conv_ab.sh [ROUNDS] [REPS]. OpenBLAS one thread
# a call, as the launcher sets it. The tool: bench/src/main/java/io/gradscope/bench/tools/ConvAB.java.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/java_tool.sh" ConvAB "$@"
