#!/usr/bin/env bash
# Compiles a bench tool's Java sources against the packaged jars and runs its main class, with the
# OpenBLAS settings the launcher uses (its core type, one thread a call). Build first (mvn -q -o
# -DskipTests package). Usage: scripts/bench/java_tool.sh "SOURCE.java ..." MAIN [ARGS...]; extra JVM
# flags in TOOL_JAVA_FLAGS (the tool's own) and JAVA_OPTS (the user's).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
sources="$1"
main="$2"
shift 2
cp="app/target/gradscope-app-0.1.0-SNAPSHOT.jar:app/target/lib/*"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086 # the sources are a word list
javac -nowarn -cp "$cp" -d "$work" $sources
flags=" $(grep -m1 '^flags' /proc/cpuinfo || true) "
case "$flags" in *" avx512f "*) core=SkylakeX ;; *" avx2 "*) core=Haswell ;; *) core="" ;; esac
# (not exec: the trap removes the compiled classes afterwards)
# shellcheck disable=SC2086 # flags are word lists
OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-$core}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" java -XX:+UseParallelGC \
    ${TOOL_JAVA_FLAGS:-} ${JAVA_OPTS:-} --add-modules jdk.incubator.vector -cp "$work:$cp" "$main" "$@" 2> >(grep -v 'incubator' >&2)
