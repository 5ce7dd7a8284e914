#!/usr/bin/env bash
# Builds the CUDA driver stand-in: OUT/libcuda.so.1 (see standin.cpp). Run by the engine's and the
# app's test builds (exec-maven-plugin, process-test-classes) with the same OUT, engine/target/cuda-standin:
# the first builds it, the second finds it up to date. build.sh OUT [JAVA_HOME].
# Where it cannot be built (no C++ compiler, not x86-64 Linux, no jni.h) it writes the reason to
# OUT/NOT-BUILT and exits 0: the CUDA tests then skip, saying why. Rebuilds only when its inputs
# (this folder, the kernels' .cu and PTX) are newer than the library.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kernels="$(cd "$here/../../../../../assets/kernels" && pwd)"
out="$1"
java_home="${2:-${JAVA_HOME:-}}"
mkdir -p "$out"
lib="$out/libcuda.so.1"
skip() {
  rm -f "$lib"
  echo "$1" > "$out/NOT-BUILT"
  echo "cuda stand-in: not built: $1"
  exit 0
}
rm -f "$out/NOT-BUILT"
cxx="${CXX:-g++}"
command -v "$cxx" > /dev/null || skip "no C++ compiler ($cxx) on this machine"
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || skip "the stand-in's fibers need x86-64 Linux, this is $(uname -s)-$(uname -m)"
if [ -z "$java_home" ] && command -v javac > /dev/null; then
  java_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
fi
[ -f "$java_home/include/jni.h" ] || skip "no jni.h under JAVA_HOME ($java_home)"
if [ -f "$lib" ] && [ -z "$(find "$here" "$kernels/gradscope.cu" "$kernels/gradscope.ptx" -newer "$lib" -type f -print -quit)" ]; then
  exit 0
fi
# The kernels the committed PTX holds; the stand-in checks the PTX it is given against them.
# (Written under names of this build's own, then moved into place: two builds at once, say of two
# modules run in parallel, each produce a whole library.)
work="$(mktemp -d "$out/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
sed -n 's/^\.visible \.entry \([A-Za-z0-9_]*\)(.*/K(\1)/p' "$kernels/gradscope.ptx" > "$work/kernels.inc"
[ -s "$work/kernels.inc" ] || skip "no .entry found in $kernels/gradscope.ptx"
start=$(date +%s)
"$cxx" -std=c++17 -O2 -g -fPIC -shared -fvisibility=hidden -fno-strict-aliasing \
    -I "$here/include" -I "$kernels" -I "$work" -I "$java_home/include" -I "$java_home/include/linux" \
    -Wl,-soname,libcuda.so.1 -Wl,-z,noexecstack -o "$work/libcuda.so.1" "$here/standin.cpp" -lpthread
mv "$work/libcuda.so.1" "$lib"
echo "cuda stand-in: built $lib in $(( $(date +%s) - start )) s"
