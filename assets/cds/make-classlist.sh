#!/usr/bin/env bash
# Writes window.classlist, the classes the launcher archives for the window's start (AppCDS, see
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
# Lambda proxies and lambda forms (lines starting with @) are left out: JDK 17's dump crashes on some.
{
  echo "# The classes the window's start and a first open load: written by assets/cds/make-classlist.sh."
  grep -v -e '^@' -e '^#' "$tmp/loaded.classlist"
} > "$root/assets/cds/window.classlist"
echo "wrote $root/assets/cds/window.classlist ($(grep -vc '^#' "$root/assets/cds/window.classlist") classes)"
