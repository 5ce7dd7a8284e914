#!/usr/bin/env bash
# Where a bench model's training step goes, op by op (forward and backward), from the packaged jars:
# build first (mvn -q -o -DskipTests install). Usage: scripts/bench/step_breakdown.sh [resnet18_224|transformer_encoder] [STEPS]
# OpenBLAS one thread a call, as the launcher sets it. -Drows=N (in JAVA_OPTS) sets how many op + shape rows print. PyTorch's side: scripts/bench/torch_breakdown.py.
# The tool: bench/src/main/java/io/gradscope/bench/tools/StepBreakdown.java.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/java_tool.sh" StepBreakdown "$@"
