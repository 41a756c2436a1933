#!/usr/bin/env bash
# Screenshots of the site for docs/screenshots/ (a dev tool, not run by CI: it needs Debian's
# chromium and poppler-utils; optipng or pngquant shrink the PNGs when installed).
#
# Builds the demo site (scripts/demo-site.sh: bundled runs, synth runs of another
# configuration, a failed run, a run with a warning, a planted slower run) into a temp folder,
# then takes (take.mjs) the index, the comparison with its baseline of the bundled
# CUDA_LAUNCH_BLOCKING run (7 slower cases; its run page, every case unfolded), the planted run's page (scrolled to
# its async section, and to its evidence list) and the decode section page (three
# configurations) at 1280 and 390 px wide, light and dark
# (prefers-color-scheme), each 1600 px high, and the first page of the run page printed to
# PDF (A4), as PNG by pdftoppm.
#
#   docs/screenshots/take.sh            # writes docs/screenshots/*.png
#   KEEP=1 docs/screenshots/take.sh     # also keeps the temp folder (printed) to look around
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "temp folder: $tmp"; fi
"$repo/scripts/demo-site.sh" "$tmp"

# only the shots this script takes (the history, regressions and two-node shots are not)
rm -f "$here"/{index,compare,run-page,run-evidence,decode-section}-*.png
# playwright-core drives Debian's chromium (viewport, colorScheme, scrolling to an anchor,
# printing); it is installed from npm into a cache folder, never into the repository.
pw="${XDG_CACHE_HOME:-$HOME/.cache}/nccl-report-screenshots"
[ -d "$pw/node_modules/playwright-core" ] || npm install --prefix "$pw" --no-save --no-audit --no-fund playwright-core@1 >/dev/null
cp "$here/take.mjs" "$pw/take.mjs"
node "$pw/take.mjs" "$tmp/site" "$tmp" 20261203T090000Z 20261204T114621Z-blocking
mv "$tmp"/*-1280-*.png "$tmp"/*-390-*.png "$here/"
pdftoppm -png -r 80 -f 1 -l 1 -singlefile "$tmp/run-page.pdf" "$here/run-page-print"
# and the printed page that holds the widest table (async: nothing may be cut off)
table_page=$(for p in $(seq 1 60); do pdftotext -f "$p" -l "$p" "$tmp/run-page.pdf" - 2>/dev/null | grep -q "event ready" && echo "$p" && break; done)
pdftoppm -png -r 80 -f "$table_page" -l "$table_page" -singlefile "$tmp/run-page.pdf" "$here/run-page-print-table"

if command -v pngquant >/dev/null; then
  pngquant --force --skip-if-larger --ext .png --quality 70-95 "$here"/*.png || true
fi
if command -v optipng >/dev/null; then optipng -quiet -o2 "$here"/*.png; fi
ls -l "$here"/*.png | awk '{ total += $5; print $5, $9 } END { print total, "bytes in all" }'
