#!/usr/bin/env bash
# Rebuilds gradscope.ptx from gradscope.cu with nvcc (PTX for compute_80: the driver JITs it for
# newer GPUs such as the H200's sm_90). The PTX is committed, so machines without nvcc still run.
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=compute_80 -O3 -o gradscope.ptx gradscope.cu
echo "wrote $(pwd)/gradscope.ptx"
