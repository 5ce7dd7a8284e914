#!/usr/bin/env bash
# A bench model's training step under two settings of a property (default gradscope.conv: im2col, then auto), in turns
# step by step in one JVM: medians and the median of the pairs' ratios. From the packaged jars: build first
# (mvn -q -o -DskipTests install). Usage: scripts/bench/step_ab.sh [resnet18_224] [PAIRS]; -Dprop=NAME -Dmodes=A,B in JAVA_OPTS.
# OpenBLAS one thread a call, as the launcher sets it. The tool: bench/src/main/java/io/gradscope/bench/tools/StepAB.java.
set -euo pipefail
TOOL_JAVA_FLAGS="-XX:+UseTransparentHugePages" exec "$(dirname "${BASH_SOURCE[0]}")/java_tool.sh" StepAB "$@"
