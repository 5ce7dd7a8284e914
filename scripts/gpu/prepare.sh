#!/usr/bin/env bash
# Prepares .gpu/ for the GPU machine (CUDA 13, PyTorch, no Java): a jlinked Java 17 runtime, the
# jars, the engine's test classes and JUnit's console launcher. Then, from the repository root:
#   run (device tool) with carry [".gpu"] and command: bash scripts/gpu/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
mvn -q -DskipTests install
mvn -q test-compile -pl engine
rm -rf .gpu && mkdir -p .gpu/lib .gpu/test-classes
jlink --add-modules java.base,java.logging,jdk.unsupported,jdk.incubator.vector,java.xml \
      --strip-debug --no-header-files --no-man-pages --compress=2 --output .gpu/jre
# Runtime jars without the UI-only ones (the command line loads no JavaFX class). The whole of
# .gpu must stay under 64 MiB.
for j in app/target/lib/*.jar app/target/gradscope-app-*.jar; do
  case "$(basename "$j")" in
    javafx-*|gs-*|org.eclipse.*|guava-*|controlsfx-*|richtextfx-*|flowless-*|reactfx-*|undofx-*|wellbehavedfx-*|mbox2-*|pherd-*) ;;
    jcuda-natives-*) ;;
    *) cp "$j" .gpu/lib/ ;;
  esac
done
# JCuda's driver binding as a plain file in .gpu/native: run.sh passes -Djava.library.path, so
# JCuda loads it from there instead of unpacking it from a jar into /tmp (which may be noexec).
mkdir -p .gpu/native
unzip -q -j -o "$(ls app/target/lib/jcuda-natives-*.jar)" 'lib/libJCudaDriver-*' -d .gpu/native
# The newest glibc symbol version the runtime and the binding need: run.sh checks the machine has it.
need=$(find .gpu/jre .gpu/native -name '*.so' -exec objdump -T {} + 2>/dev/null \
  | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
echo "${need:-2.34}" > .gpu/glibc-needed
cp -r engine/target/test-classes .gpu/test-classes/engine
mvn -q dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.11.4 -DoutputDirectory=.gpu/lib
du -sh .gpu .gpu/jre .gpu/lib .gpu/native
echo "the runtime needs glibc $(cat .gpu/glibc-needed) or newer"
echo "ready: run 'bash scripts/gpu/run.sh' on the GPU machine with carry [\".gpu\"]"
