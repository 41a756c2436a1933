#!/usr/bin/env python3
"""Whole-program mutation fuzzer for `nccl-report build` (written by a fuzzing review, stop 34).

    scripts/fuzz-build.py BIN [WORK] [SECONDS] [SEED]

Each iteration copies two good bundled runs and one mutated copy of a bundled run (runs/)
into WORK, builds them with BIN (`build --no-cache`), and checks: no panic (exit 101 or
"panicked"), no crash, at most 1.5 GB of memory and 30 s, the good runs on the index with
their own pages, every page parseable with balanced tags. Mutations: truncation, bit flips,
numbers replaced (NaN, inf, 1e309, -1, 2^64...), empty files, duplicated or shuffled lines,
columns added or dropped, invalid UTF-8, CRLF and bare CR, lines up to 5 MB, files repeated;
gzip truncated, corrupt, concatenated, bombs; symlinks (to /dev/zero, outside the runs
folder, loops), FIFOs, folders for files; odd names. A failing iteration is kept under
WORK-findings/SEED-N with what was wrong (WORK itself is emptied every iteration). Defaults: WORK /tmp/fuzz-build, 600 s, seed 1.
Stop 34's review ran 1,933 builds in 900 s: none failed, and the six problems that review
found came from reading the code (bounds on lengths, counts and rescans), not from this script.
"""
import os, sys, random, shutil, subprocess, gzip, time, json, re, html.parser, resource
if len(sys.argv) < 2:
    sys.exit(__doc__)
BIN = os.path.abspath(sys.argv[1])
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runs")
GOOD = ["20261204T114025Z", "h200-rdzv"]
VICTIMS = ["20261204T114050Z", "20261203T081106Z", "20261204T114621Z-blocking", "h200-rdzv"]
WORK = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/fuzz-build")
MARK = os.path.join(WORK, ".fuzz-build")
# WORK is emptied every iteration: only a folder this script made (its marker) or a new one.
if os.path.exists(WORK) and not os.path.exists(MARK):
    sys.exit(f"{WORK} exists and was not made by this script; give a new folder")
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 600
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 1
FIND = WORK + "-findings"
# What a symlink "outside the runs folder" points to: a copy of a bundled manifest beside
# WORK, never the bundled runs themselves (a later mutation may write through the link).
OUTSIDE = WORK + "-outside"

rnd = random.Random(SEED)
os.makedirs(FIND, exist_ok=True)
os.makedirs(OUTSIDE, exist_ok=True)
shutil.copy(os.path.join(SRC, "h200-rdzv", "manifest.txt"), os.path.join(OUTSIDE, "manifest.txt"))

NUMS = [b"NaN", b"nan", b"inf", b"-inf", b"Infinity", b"1e309", b"-1e309", b"1e308", b"-1", b"-0", b"0",
        b"99999999999999999999999999", b"18446744073709551615", b"18446744073709551616", b"9223372036854775807",
        b"-9223372036854775808", b"4294967296", b"4294967295", b"1e-320", b"0x10", b"1_000", b"", b"  ", b"+5",
        b"1e100", b"2147483648", b"65536", b"1000000000", b"True", b"False", b"\xff", b"\"\"", b"\"1,2\""]

def read(p):
    with open(p, "rb") as f: return f.read()

def maybe_gunzip(data):
    try: return gzip.decompress(data), True
    except Exception: return data, False

def mut_bytes(data):
    """One random byte-level/text-level mutation."""
    m = rnd.randrange(17)
    n = len(data)
    if m == 0: return data[:rnd.randint(0, n)], "truncate"
    if m == 1:
        b = bytearray(data)
        for _ in range(rnd.randint(1, 8)):
            if b: b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        return bytes(b), "bitflip"
    if m == 2:
        toks = list(re.finditer(rb"-?\d+(\.\d+)?(e[-+]?\d+)?", data))
        if not toks: return data + b"\n" + rnd.choice(NUMS), "appendnum"
        b = data
        t = rnd.choice(toks)
        return data[:t.start()] + rnd.choice(NUMS) + data[t.end():], "numreplace"
    if m == 3: return b"", "empty"
    if m == 4:
        lines = data.split(b"\n")
        i = rnd.randrange(len(lines)); lines.insert(i, lines[rnd.randrange(len(lines))])
        return b"\n".join(lines), "dupline"
    if m == 5:
        i = rnd.randint(0, n); return data[:i] + rnd.choice([b"\xff\xfe", b"\xc3", b"\xe2\x82", b"\x00", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]) + data[i:], "nonutf8"
    if m == 6: return data.replace(b"\n", b"\r\n"), "crlf"
    if m == 7: return data.replace(b"\n", b"\r"), "barecr"
    if m == 8:
        i = rnd.randint(0, n); L = rnd.choice([70000, 1 << 20, 17 * 1024, 5 << 20])
        return data[:i] + rnd.choice([b"x", b"1", b",", b"\"", b"-> ", b" ", b"\xe2\x96\x88"]) * (L // 1) + data[i:], "longline"
    if m == 9:
        lines = data.split(b"\n"); rnd.shuffle(lines); return b"\n".join(lines), "shuffle"
    if m == 10:
        lines = data.split(b"\n")
        if len(lines) > 1:
            i = rnd.randrange(len(lines)); lines[i] = lines[i] + b"," + rnd.choice(NUMS)
        return b"\n".join(lines), "extracol"
    if m == 11:
        lines = data.split(b"\n")
        i = rnd.randrange(len(lines)); cols = lines[i].split(b",")
        if len(cols) > 1: del cols[rnd.randrange(len(cols))]
        lines[i] = b",".join(cols); return b"\n".join(lines), "dropcol"
    if m == 12:
        lines = data.split(b"\n"); k = rnd.randint(1, 3000)
        return b"\n".join(lines * min(k, max(1, 3000000 // max(1, n)))), "repeat"
    if m == 13:
        i = rnd.randint(0, n); return data[:i] + b"\"" + data[i:], "quote"
    if m == 14:
        # insert random chunk from another position
        if n < 2: return data + data, "dup"
        a = rnd.randrange(n); b = rnd.randint(a, min(n, a + 500)); i = rnd.randint(0, n)
        return data[:i] + data[a:b] + data[i:], "splice"
    if m == 15:
        return data + b"\n" * rnd.randint(0, 3) + rnd.choice([b"# x\n", b",,,,\n", b"\"\n", b"\x00\x00", b"---\n", b"commands:\n  " + b"a" * 100000]), "trailer"
    return bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 300))), "random"

def gz_mut(data):
    m = rnd.randrange(5)
    z = gzip.compress(data)
    if m == 0: return z[:rnd.randint(0, len(z))], "gz-truncated"
    if m == 1:
        b = bytearray(z)
        for _ in range(3): b[rnd.randrange(len(b))] ^= 0xff
        return bytes(b), "gz-corrupt"
    if m == 2: return z + b"garbage\x00\x01", "gz-trailing-garbage"
    if m == 3: return z + gzip.compress(data), "gz-concat"
    return b"\x1f\x8b" + os.urandom(rnd.randint(0, 100)), "gz-garbage"

def list_files(run):
    out = []
    for dp, dn, fn in os.walk(run):
        for f in fn: out.append(os.path.join(dp, f))
    return sorted(out)

def structural(run, files, log):
    m = rnd.randrange(12)
    # Never a link an earlier mutation made: reading or writing through it would touch the
    # file it points to (/etc/passwd, /dev/zero, the decoy beside WORK).
    files = [f for f in files if not os.path.islink(f)]
    if not files: return
    p = rnd.choice(files)
    if m == 0:
        os.remove(p); os.symlink("/dev/zero", p); log.append(f"symlink {p} -> /dev/zero")
    elif m == 1:
        os.remove(p); os.symlink("/etc/passwd", p); log.append(f"symlink {p} -> /etc/passwd")
    elif m == 2:
        os.remove(p); os.symlink(os.path.basename(p), p); log.append(f"symlink loop {p}")
    elif m == 3:
        os.remove(p); os.mkfifo(p); log.append(f"fifo {p}")
    elif m == 4:
        os.remove(p); os.mkdir(p); log.append(f"dir in place of {p}")
    elif m == 5:
        d = os.path.dirname(p); b = os.path.basename(p)
        new = rnd.choice([b"rank99999999999999999999999_async.csv", b"rank-1_decode.csv", b"rank0_async.csv.gz",
                          b"rank\xff_async.csv", b"rank0_\xffasync.csv", b"a\nb.csv", b"rank0_contracts.csv\n",
                          b"x" * 250, b"nccl_tests_g99999999999999999999.stdout", b"nccl_tests_g0.stdout", b"nccl_tests_g-1.json",
                          b"rank4294967296_numerics.csv", b"<script>.log", b"h-pid.log", b".hidden.csv",
                          b"rank0_async.CSV", b"rank00_async.csv", b"rank1_async.csv.gz.gz", b"manifest.txt.gz", b"NOTES.md.gz"])
        np_ = os.path.join(os.fsencode(d), new)
        try: os.rename(p, np_); log.append(f"rename {p} -> {new!r}")
        except OSError as e: log.append(f"rename failed {e}")
    elif m == 6:
        # gzip a file (renamed .gz) possibly corrupt
        data = read(p)
        if p.endswith(".gz"):
            data, _ = maybe_gunzip(data); target = p
        else: target = p + ".gz"; os.remove(p)
        z, how = gz_mut(data) if rnd.random() < 0.7 else (gzip.compress(data), "gz-ok")
        open(target, "wb").write(z); log.append(f"{how} {target}")
    elif m == 7:
        # case folder odd names
        res = os.path.join(run, "raw", "results")
        if os.path.isdir(res):
            for c in os.listdir(res):
                new = rnd.choice(["world1_full ", "<b>x</b>", "world\u00e9", "world99999999999999999999999_full", "..x", "a b", "world1_full\nx", "x" * 200, "world0_full", "world-1_decode"])
                try: os.rename(os.path.join(res, c), os.path.join(res, new)); log.append(f"case {c} -> {new!r}")
                except OSError as e: log.append(f"case rename failed {e}")
                break
    elif m == 8:
        # gzip bomb
        target = p + ".gz" if not p.endswith(".gz") else p
        if not p.endswith(".gz"): os.remove(p)
        with gzip.open(target, "wb", compresslevel=9) as g:
            chunk = (b"1," * 512 + b"\n") * 512
            for _ in range(rnd.choice([10, 300])): g.write(chunk)
        log.append(f"gzbomb {target}")
    elif m == 9:
        # symlink to outside / dir symlink
        os.remove(p); os.symlink(os.path.join(OUTSIDE, "manifest.txt"), p); log.append(f"symlink outside {p}")
    elif m == 10:
        # copy a file to another kind's name
        q = rnd.choice(files)
        if q != p and os.path.isfile(q):
            shutil.copy(q, p); log.append(f"copy {q} over {p}")
    else:
        # add a second rank file copy, or extra case folder
        if "rank0_" in p:
            q = p.replace("rank0_", "rank" + str(rnd.choice([1, 2, 3, 7, 63, 1000])) + "_")
            shutil.copy(p, q); log.append(f"extra rank {q}")

class V(html.parser.HTMLParser):
    def __init__(self): super().__init__(); self.stack = []; self.errors = []
    VOID = {"area","base","br","col","embed","hr","img","input","link","meta","source","track","wbr","path","rect","line","circle","polyline","polygon","stop","use","text" }
    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID and tag not in ("p", "li", "td", "th", "tr", "option", "dt", "dd", "thead", "tbody"): self.stack.append(tag)
        if tag == "script":
            pass
    def handle_endtag(self, tag):
        if tag in self.VOID or tag in ("p", "li", "td", "th", "tr", "option", "dt", "dd", "thead", "tbody"): return
        if tag in self.stack:
            while self.stack and self.stack[-1] != tag: self.errors.append(f"unclosed {self.stack.pop()} before </{tag}>")
            self.stack.pop()
        else: self.errors.append(f"stray </{tag}> at {self.getpos()}")

def check_html(site):
    probs = []
    for dp, dn, fn in os.walk(site):
        for f in fn:
            if not f.endswith(".html"): continue
            p = os.path.join(dp, f)
            try: t = read(p).decode("utf-8")
            except UnicodeDecodeError: probs.append(f"non-utf8 {p}"); continue
            if "<script>" in t.split("</head>", 1)[-1] and "alert" in t: probs.append(f"script {p}")
            v = V()
            try: v.feed(t); v.close()
            except Exception as e: probs.append(f"parse {p}: {e}")
            if v.errors: probs.append(f"{p}: {v.errors[:3]}")
    return probs

def main():
    t_end = time.time() + SECONDS
    it = 0; nfind = 0; seen = set()
    stats = {}
    while time.time() < t_end:
        it += 1
        shutil.rmtree(WORK, ignore_errors=True)
        runs = os.path.join(WORK, "runs"); os.makedirs(runs)
        open(MARK, "w").close()
        for g in GOOD: shutil.copytree(os.path.join(SRC, g), os.path.join(runs, g))
        victim_src = rnd.choice(VICTIMS)
        vid = "zz-victim"
        vrun = os.path.join(runs, vid)
        shutil.copytree(os.path.join(SRC, victim_src), vrun)
        log = [f"seed={SEED} it={it} victim={victim_src}"]
        for _ in range(rnd.choice([1, 1, 1, 2, 3, 5])):
            files = list_files(vrun)
            if not files: break
            if rnd.random() < 0.2:
                try: structural(vrun, files, log)
                except OSError as e: log.append(f"structural failed {e}")
                continue
            p = rnd.choice(files)
            if not os.path.isfile(p) or os.path.islink(p): continue
            data = read(p); data, was_gz = maybe_gunzip(data)
            new, how = mut_bytes(data)
            if was_gz: new = gzip.compress(new, compresslevel=1)
            open(p, "wb").write(new); log.append(f"{how} {os.path.relpath(p, runs)} ({len(data)}->{len(new)})")
        site = os.path.join(WORK, "site")
        t0 = time.time()
        try:
            r = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M", BIN, "build", "--runs", runs, "--out", site, "--no-cache"],
                               capture_output=True, timeout=120, env=dict(os.environ, RUST_BACKTRACE="1"))
            rc, err, out = r.returncode, r.stderr.decode("utf-8", "replace"), r.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err, out = "TIMEOUT", "", ""
        dt = time.time() - t0
        m = re.search(r"MAXRSS (\d+)", err); rss = int(m.group(1)) if m else 0
        problems = []
        if rc != 0: problems.append(f"rc={rc}")
        if "panicked" in err: problems.append("panic")
        if rss > 1_500_000: problems.append(f"rss={rss}KB")
        if dt > 30: problems.append(f"slow {dt:.1f}s")
        if rc == 0:
            for g in GOOD:
                if not os.path.exists(os.path.join(site, "runs", g, "index.html")): problems.append(f"good run {g} missing")
            idx = os.path.join(site, "index.html")
            if os.path.exists(idx):
                t = read(idx).decode("utf-8", "replace")
                for g in GOOD:
                    if g not in t: problems.append(f"good run {g} not on index")
            else: problems.append("no index")
            problems += check_html(site)[:5]
        kind = " ".join(sorted(set(x.split(" ")[0].split(":")[0] for x in problems)))
        stats[kind] = stats.get(kind, 0) + 1
        if problems:
            first_panic = re.search(r"panicked at ([^\n]*)\n([^\n]*)", err)
            sig = (kind, first_panic.group(1) if first_panic else "")
            if sig not in seen:
                seen.add(sig); nfind += 1
                d = os.path.join(FIND, f"{SEED}-{it}")
                shutil.rmtree(d, ignore_errors=True)
                subprocess.run(["cp", "-a", runs, d + "-runs"])
                with open(d + ".txt", "w") as f:
                    f.write("\n".join(log) + "\nPROBLEMS: " + repr(problems) + f"\nrc={rc} dt={dt:.1f} rss={rss}\nSTDOUT:\n" + out[-3000:] + "\nSTDERR:\n" + err[-6000:])
                print("FINDING", d, problems[:3], flush=True)
        if it % 20 == 0: print(f"it={it} stats={stats}", flush=True)
    print(f"DONE it={it} stats={stats} findings={nfind}", flush=True)

main()
