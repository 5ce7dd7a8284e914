#!/usr/bin/env bash
# Runs a bench tool (a main class of the bench module, io.gradscope.bench.tools) from the built jars,
# on the launcher's class path (the bench's jar, the app's and app/target/lib), with the OpenBLAS
# settings the launcher uses (its core type, one thread a call). Build first (mvn -q -o -DskipTests
# install). Usage: scripts/bench/java_tool.sh MAIN [ARGS...]; extra class path entries in TOOL_CP (put
# first), extra JVM flags in TOOL_JAVA_FLAGS (the tool's own) and JAVA_OPTS (the user's).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
main="$1"
shift
bench="bench/target/gradscope-bench-0.1.0-SNAPSHOT.jar"
if [ ! -f "$bench" ] || [ ! -d app/target/lib ]; then
  echo "error: $bench is not built; build first: mvn -q -o -DskipTests install" >&2
  exit 2
fi
cp="${TOOL_CP:+$TOOL_CP:}$bench:app/target/gradscope-app-0.1.0-SNAPSHOT.jar:app/target/lib/*"
flags=" $(grep -m1 '^flags' /proc/cpuinfo || true) "
case "$flags" in *" avx512f "*) core=SkylakeX ;; *" avx2 "*) core=Haswell ;; *) core="" ;; esac
# (not exec: the callers' traps remove their temporary classes afterwards)
# shellcheck disable=SC2086 # flags are word lists
OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-$core}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" java -XX:+UseParallelGC \
    ${TOOL_JAVA_FLAGS:-} ${JAVA_OPTS:-} --add-modules jdk.incubator.vector -cp "$cp" "io.gradscope.bench.tools.$main" "$@" \
    2> >(grep -v 'incubator' >&2)
