#!/bin/sh
# Issue 27's footprint of a built site: files and bytes of each run folder (site/runs/<id>/,
# its evidence/ left out: the archived inputs are counted apart), their mean and largest, the
# whole site without evidence, and the evidence.
#   cargo run --release -- build --runs runs --out /tmp/site && scripts/footprint.sh /tmp/site
set -eu
site=${1:?usage: scripts/footprint.sh SITE}
for d in "$site"/runs/*/; do
  n=$(find "$d" -type f -not -path '*/evidence/*' | wc -l)
  b=$(find "$d" -type f -not -path '*/evidence/*' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  echo "$(basename "$d") $n $b"
done | awk '{n += $2; b += $3; if ($2 > mn) mn = $2; if ($3 > mb) mb = $3; r++; print}
  END {printf "runs %d: mean %.1f files, %.1f KB per run; largest %d files, %.1f KB\n", r, n / r, b / r / 1000, mn, mb / 1000}'
find "$site" -type f -not -path '*/evidence/*' -printf '%s\n' |
  awk '{s += $1; n++} END {printf "whole site without evidence: %d files, %.1f KB\n", n, s / 1000}'
find "$site" -type f -path '*/evidence/*' -printf '%s\n' |
  awk '{s += $1; n++} END {printf "evidence: %d files, %.1f KB\n", n, s / 1000}'
