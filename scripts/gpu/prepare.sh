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
# Runtime jars without the UI-only ones (the command line loads no JavaFX class); the JCuda
# natives trimmed to the driver binding. The whole of .gpu must stay under 64 MiB.
for j in app/target/lib/*.jar app/target/gradscope-app-*.jar; do
  case "$(basename "$j")" in
    javafx-*|gs-*|org.eclipse.*|guava-*|controlsfx-*|richtextfx-*|flowless-*|reactfx-*|undofx-*|wellbehavedfx-*|mbox2-*|pherd-*) ;;
    jcuda-natives-*) ;;
    *) cp "$j" .gpu/lib/ ;;
  esac
done
natives=$(ls app/target/lib/jcuda-natives-*.jar)
tmp=$(mktemp -d)
(cd "$tmp" && unzip -q "$root/$natives" 'lib/libJCudaDriver-*' && zip -q -r "$root/.gpu/lib/$(basename "$natives")" lib)
rm -rf "$tmp"
cp -r engine/target/test-classes .gpu/test-classes/engine
mvn -q dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.11.4 -DoutputDirectory=.gpu/lib
du -sh .gpu .gpu/jre .gpu/lib
echo "ready: run 'bash scripts/gpu/run.sh' on the GPU machine with carry [\".gpu\"]"
