#!/usr/bin/env bash
# Writes window.classlist.gz, the classes the launcher archives for the window's start (AppCDS, see
# ./gradscope): those loaded while the window starts and opens a generated 2,000-node program, as
# `./gradscope open FILE` does. Run it again when the window's start loads other classes (a class
# missing from the list only loads the slow way; one that is gone is skipped). Needs a display or xvfb-run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$root/gradscope" bench-ui --shape blocks --nodes 2000 --write "$tmp/blocks.grad" > /dev/null
display=()
[ -n "${DISPLAY:-}" ] || display=(xvfb-run -a -s "-screen 0 1280x900x24")
JAVA_OPTS="-XX:DumpLoadedClassList=$tmp/loaded.classlist" ${display[@]+"${display[@]}"} \
    "$root/gradscope" bench-ui --open "$tmp/blocks.grad" > /dev/null
# The lambdas of classes in signed jars are left out: the dump skips those classes, and JDK 17's
# dump then crashes on their lambdas. The build writes ELK's and EMF's jars without their signatures
# (UnsignedJars), so normally none is left out. Every other lambda is archived with its class.
lib="$root/app/target/lib"
: > "$tmp/signed-classes"
for j in "$lib"/*.jar; do
  # (grep reads the whole listing: with -q it would stop early, and pipefail take unzip's broken pipe as a no)
  if unzip -Z1 "$j" 2>/dev/null | grep '^META-INF/.*\.SF$' > /dev/null; then
    unzip -Z1 "$j" '*.class' 2>/dev/null | sed 's/\.class$//' >> "$tmp/signed-classes"
  fi
done
{
  echo "# The classes (and lambdas) the window's start and a first open load: written by assets/cds/make-classlist.sh."
  grep -v '^#' "$tmp/loaded.classlist" | awk -v signed="$tmp/signed-classes" '
    BEGIN { while ((getline c < signed) > 0) skip[c] = 1 }
    $1 == "@lambda-proxy" && ($2 in skip) { next }
    { print }'
} > "$tmp/window.classlist"
gzip -9 -n -c "$tmp/window.classlist" > "$root/assets/cds/window.classlist.gz"
echo "wrote $root/assets/cds/window.classlist.gz ($(grep -vc -e '^#' -e '^@' "$tmp/window.classlist") classes," \
     "$(grep -c '^@lambda-proxy' "$tmp/window.classlist") lambdas)"
