#!/usr/bin/env bash
# Re-runs issue 24's attacks against a built binary and counts cases, panics, losses, leaks
# and hangs. Usage: scripts/attack-issue24.sh [path/to/nccl-report] (default
# target/release/nccl-report). Needs git, mkfifo, python3; writes only under a temp folder.
# A panic is exit 101; a hang is a case over its timeout; a leak is the outside marker (or
# /etc/passwd's first line) found in a built site or printed; a loss is a live site missing
# its index.html after a failed or refused build.
set -u
BIN=$(realpath "${1:-target/release/nccl-report}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MARKER=OUTSIDE-MARKER-24
PASSWD=$(head -1 /etc/passwd)
cases=0 panics=0 losses=0 leaks=0 hangs=0 failures=0
log() { printf '%-58s %s\n' "$1" "$2"; }

# run NAME EXPECT TIMEOUT CMD...: EXPECT is an exit code, "any" or "nonzero".
run() {
  local name=$1 expect=$2 limit=$3; shift 3
  cases=$((cases + 1))
  timeout "$limit" "$@" >"$WORK/out" 2>&1
  local rc=$?
  local verdict=ok
  if [ $rc -eq 124 ]; then hangs=$((hangs + 1)); verdict="HANG"
  elif [ $rc -eq 101 ]; then panics=$((panics + 1)); verdict="PANIC"
  elif [ "$expect" = nonzero ] && [ $rc -eq 0 ]; then failures=$((failures + 1)); verdict="UNEXPECTED exit 0"
  elif [ "$expect" != any ] && [ "$expect" != nonzero ] && [ $rc -ne "$expect" ]; then
    failures=$((failures + 1)); verdict="UNEXPECTED exit $rc"
  fi
  if grep -qF -e "$MARKER" -e "$PASSWD" "$WORK/out"; then leaks=$((leaks + 1)); verdict="$verdict LEAK(printed)"; fi
  log "$name" "$verdict (exit $rc)"
}

site_leak() { # site_leak NAME SITE
  cases=$((cases + 1))
  if grep -rqF -e "$MARKER" -e "$PASSWD" "$2" 2>/dev/null; then leaks=$((leaks + 1)); log "$1" "LEAK"; else log "$1" ok; fi
}

site_kept() { # site_kept NAME SITE
  cases=$((cases + 1))
  if [ -f "$2/index.html" ]; then log "$1" ok; else losses=$((losses + 1)); log "$1" "LOSS"; fi
}

fresh_runs() { rm -rf "$WORK/runs" "$WORK/site" "$WORK/.nccl-report-cache"; mkdir -p "$WORK/runs"; cp -r "$ROOT/tests/fixtures/runs/synth-basic" "$WORK/runs/r1"; }
gz() { python3 -c 'import gzip,sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read()))'; }
mkdir -p "$WORK/outside"
for f in nvidia_smi_query.txt nvidia_smi_topo.txt ibv_devinfo.txt; do echo "$MARKER" > "$WORK/outside/$f"; done
echo x > "$WORK/outside/$MARKER-name.txt"

echo "== High: symlink swap race (60 --no-cache builds)"
fresh_runs
run "baseline build" 0 120 "$BIN" build --runs "$WORK/runs" --out "$WORK/site"
ln -s "$WORK/outside" "$WORK/runs/.swap"
python3 - "$WORK/runs/r1/artifacts" "$WORK/runs/.swap" "$WORK/stop" <<'EOF' &
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (p.encode() for p in sys.argv[1:])
n = 0
while not os.path.exists(stop):
    libc.renameat2(-100, a, -100, b, 2)
    n += 1
if n % 2:
    libc.renameat2(-100, a, -100, b, 2)
EOF
SWAPPER=$!
for i in $(seq 1 60); do
  run "race build $i" 0 120 "$BIN" build --runs "$WORK/runs" --out "$WORK/site" --no-cache
  site_leak "race site $i" "$WORK/site"
done
touch "$WORK/stop"; wait $SWAPPER; rm -f "$WORK/stop" "$WORK/runs/.swap"

echo "== Medium: run ids with dots, .gz twins, import special files, budgets"
fresh_runs
for id in a "b..c" "a..b" c; do cp -r "$ROOT/tests/fixtures/runs/synth-basic" "$WORK/runs/$id"; done
run "build with ids a, b..c, a..b, c" 0 120 "$BIN" build --runs "$WORK/runs" --out "$WORK/site" --no-cache
cases=$((cases + 1)); n=$(ls -d "$WORK"/site/runs/*/ 2>/dev/null | wc -l); log "run pages (distinct folders)" "$n folders"
fresh_runs
gz < "$ROOT/tests/fixtures/runs/synth-basic/raw/nccl_tests_g2.stdout" > "$WORK/runs/r1/raw/nccl_tests_g2.stdout.gz"
echo "run_id=$MARKER" | gz > "$WORK/runs/r1/manifest.txt.gz"
echo "$MARKER" | gz > "$WORK/runs/r1/artifacts/nvidia_smi_query.txt.gz"
run "gz twins build" 0 120 "$BIN" build --runs "$WORK/runs" --out "$WORK/site" --no-cache
site_leak "gz twins: .gz copies not read" "$WORK/site"
cases=$((cases + 1)); w=$(grep -o "only [a-z_/.0-9]* read" "$WORK/site/runs/r1/index.html" | wc -l); log "gz twins: warnings" "$w"
mkdir -p "$WORK/src/imp1/raw"; mkfifo "$WORK/src/imp1/manifest.txt"
run "import: FIFO manifest" nonzero 30 "$BIN" import "$WORK/src/imp1" --runs "$WORK/runs"
rm -rf "$WORK/src/imp1"; mkdir -p "$WORK/src/imp2/raw"; ln -s /dev/zero "$WORK/src/imp2/manifest.txt"
run "import: manifest -> /dev/zero" nonzero 30 "$BIN" import "$WORK/src/imp2" --runs "$WORK/runs"
rm -rf "$WORK/src/imp2"; mkdir -p "$WORK/src/imp3/raw" "$WORK/src/imp3/artifacts"; ln -s /dev/zero "$WORK/src/imp3/artifacts/nvidia_smi_query.txt"
run "import: nvidia_smi_query -> /dev/zero" nonzero 30 "$BIN" import "$WORK/src/imp3" --runs "$WORK/runs"
fresh_runs
python3 - "$WORK/runs/r1/raw/nccl_tests_g2.stdout" "$WORK/runs/r1/manifest.txt" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
open(sys.argv[1], "w").write("\n".join(lines[:19] * 20000 + lines[-8:]))
with open(sys.argv[2], "a") as f:
    f.write("huge=" + "v" * (64 << 20) + "\n")
EOF
run "budgets: 35 MB stdout + 64 MB manifest value" 0 300 "$BIN" build --runs "$WORK/runs" --out "$WORK/site" --no-cache
cases=$((cases + 1)); log "budgets: site size" "$(find "$WORK/site" -type f | wc -l) files, $(du -sm "$WORK/site" | cut -f1) MB"

echo "== serve: 70 silent clients, POST, deadline"
fresh_runs
run "build for serve" 0 120 "$BIN" build --runs "$WORK/runs" --out "$WORK/site"
head -c $((63 << 20)) /dev/zero > "$WORK/site/big.bin"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --out "$WORK/site" --port "$PORT" --send-timeout 10 2>/dev/null &
SERVER=$!
sleep 1
cases=$((cases + 1))
python3 - "$PORT" "$SERVER" <<'EOF'
import socket, sys, time
port, pid = int(sys.argv[1]), sys.argv[2]
silent = []
for _ in range(70):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"GET /big.bin HTTP/1.1\r\n\r\n"); silent.append(s)
time.sleep(1)
lat = []
for _ in range(20):
    t = time.time(); c = socket.create_connection(("127.0.0.1", port), timeout=30)
    c.sendall(b"GET / HTTP/1.1\r\n\r\n"); data = b""
    while True:
        d = c.recv(65536)
        if not d: break
        data += d
    lat.append(time.time() - t); assert data.startswith(b"HTTP/1.1 200"), data[:40]
rss = [l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")][0].split()[1]
c = socket.create_connection(("127.0.0.1", port)); c.sendall(b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
post = c.recv(100).split(b"\r\n")[0].decode()
lat.sort()
print(f"serve: others' latency median {lat[10]*1000:.2f} ms, max {lat[-1]*1000:.2f} ms; server RSS {int(rss)//1024} MiB; POST -> {post}")
EOF
log "serve under 70 silent clients" "exit $?"
kill $SERVER; wait $SERVER 2>/dev/null

echo "== Low"
fresh_runs
run "empty runs folder" 2 30 "$BIN" build --runs "$WORK/outside/none" --out "$WORK/site2"
mkdir -p "$WORK/empty"; run "empty runs folder (exists)" 2 30 "$BIN" build --runs "$WORK/empty" --out "$WORK/site2"
ln -s /etc/passwd "$WORK/runs/NOTES.md"
run "runs/NOTES.md -> /etc/passwd" 0 60 "$BIN" build --runs "$WORK/runs" --out "$WORK/site" --no-cache
site_leak "runs/NOTES.md link not read" "$WORK/site"
rm "$WORK/runs/NOTES.md"; mkfifo "$WORK/runs/NOTES.md"
run "runs/NOTES.md FIFO" 0 60 "$BIN" build --runs "$WORK/runs" --out "$WORK/site" --no-cache
rm "$WORK/runs/NOTES.md"
truncate -s 20G "$WORK/runs/r1/artifacts/sparse.txt"
run "20 GB sparse artifact (cache key)" 0 60 "$BIN" build --runs "$WORK/runs" --out "$WORK/site"
rm "$WORK/runs/r1/artifacts/sparse.txt"
mkfifo "$WORK/runs/r1/raw/results/world4_full/rank9_async.csv"
run "FIFO rank file" 0 60 "$BIN" build --runs "$WORK/runs" --out "$WORK/site"
ln -s /dev/zero "$WORK/runs/r1/raw/zero.stdout"
run "link to /dev/zero in a run" 0 60 "$BIN" build --runs "$WORK/runs" --out "$WORK/site"
site_kept "site kept after every build" "$WORK/site"
run "inspect /dev/zero" nonzero 10 "$BIN" inspect /dev/zero
run "collect --dry-run with nccl-tests" any 30 "$BIN" collect --dry-run --runs "$WORK/runs" --nccl-tests /bin/true
run "collect: newline in nccl-tests path" 2 30 "$BIN" collect --runs "$WORK/runs" --nccl-tests "$(printf '/bin/true\nnccl=x')"
run "collect slurm --nodelist node[1-2] --dry-run" 0 30 "$BIN" collect --launcher slurm --dry-run --runs "$WORK/runs" --worker "$ROOT/suite/worker.py" --nodelist 'node[1-2]'
cd "$WORK" && git init -q repo && cd repo && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init
git symbolic-ref refs/heads/alias refs/heads/"$(git branch --show-current)"
head=$(git rev-parse HEAD)
run "publish to alias of the checked-out branch" 2 60 "$BIN" publish --out "$WORK/site" --branch alias --no-push
cases=$((cases + 1)); [ "$(git rev-parse HEAD)" = "$head" ] && log "checked-out branch unmoved" ok || { losses=$((losses + 1)); log "checked-out branch unmoved" LOSS; }
run "publish --branch refs/heads/pages" 0 60 "$BIN" publish --out "$WORK/site" --branch refs/heads/pages --no-push
cases=$((cases + 1)); log "refs after publish" "$(git for-each-ref --format='%(refname)' | tr '\n' ' ')"
for i in $(seq 1 20); do "$BIN" publish --out "$WORK/site" --branch gh-pages --no-push >/dev/null 2>&1 & done; wait
cases=$((cases + 1)); n=$(git rev-list --count gh-pages); [ "$n" = 20 ] && log "20 concurrent publishes" "20 commits" || { losses=$((losses + 1)); log "20 concurrent publishes" "LOSS: $n commits"; }
cd "$ROOT"

echo
echo "cases $cases, panics $panics, losses $losses, leaks $leaks, hangs $hangs, unexpected exits $failures"
