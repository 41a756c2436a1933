#!/usr/bin/env python3
"""Numeric fuzz of `nccl-report compare` (written by a fuzzing review, stop 60).

    scripts/fuzz-compare.py BIN [WORK] [SECONDS] [SEED]

Copies the eight A/A runs of 2026-12-04 (runs/20261204T11*Z) into WORK/runs, then each
iteration hard-links them into a fresh folder, adds a copy of the newest run under an id that
sorts last, and edits numbers of its per-rank CSVs (and, in about a third of the iterations, of
earlier runs; in a quarter, deletes runs to leave 0-4 earlier ones): 0, -0, negatives,
subnormals, 1e300, values around the 1e15 bound, one cycle 1e6x, whole sections scaled, cases
copied from another run or set to the history's median, and text the seed refuses (nan, inf,
"", abc, 1e400). Each iteration runs `compare` in json, text, csv and md and checks: no panic,
signal or hang (20 s); exit 0/1/2, the same in every format; JSON without NaN or Infinity, no
`nan`/`inf` in text, csv or md; `slower` if and only if exit 1; no verdict inside its own
floor; a case copied from the base, another run or the history median never `slower` or
`faster`; an unedited copy flagged nowhere. A failing iteration is kept under
WORK-findings/itNNNNN (its runs, command, outputs); every iteration is a line of
WORK-findings/log-seedSEED.jsonl. Defaults: WORK /tmp/fuzz-compare, 600 s, seed 1. Stop 60's
review ran 3,445 iterations (13,780 compares): it found subnormal and 1e300 values taken as
measurements and floors shown as `inf` (fixed), and no crash. Python 3 standard library only.
"""
import csv, itertools, json, math, os, random, re, shutil, subprocess, sys, time, statistics

if len(sys.argv) < 2:
    sys.exit(__doc__)
NR = os.path.abspath(sys.argv[1])
WORK_ROOT = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else '/tmp/fuzz-compare')
PRISTINE = os.path.join(WORK_ROOT, 'runs')
WORK = os.path.join(WORK_ROOT, 'work')
FIND = WORK_ROOT + '-findings'
REPO_RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'runs')
RES = 'raw/results/world1_full'
SECTIONS = {
    'async': ['host_enqueue_us', 'host_wait_us', 'gpu_dependency_us'],
    'decomposition': ['duration_us'],
    'fragmentation': ['duration_us'],
    'decode': ['duration_us'],
}
AUX = ['host_issue_us', 'device_us']  # feed the family decision, not timed themselves
METRIC = {'duration_us': None}
CONSTS = ['0', '-0', '-0.0', '-1', '-3.5', '-1e300', '1e-300', '1e300', '5e-324', '2.2250738585072014e-308',
          '1e15', '1.0000000000000002e15', '1e16', '1.7976931348623157e308', '1e-5', '3.1', '1']
FACTORS = [1000, 0.001, 1e6, 1e-6, 1e3, 1e-3, 1.5, 2, 10, 0.1, 1e300, 1e-300, 1e12, -1, 1e-12]
BAD_TEXT = ['nan', 'NaN', 'inf', '-inf', 'infinity', '', 'abc', '1e400', '0x10', '1_0', '3.1e', '--1']
IDS_NEW = ['20261204T235900Z', '20261204T235959Z', '20261204T235901Z-fuzz', '20261231T000000Z']
BADTOK = re.compile(r'(?i)(?<![a-z])(nan|[+-]?inf(inity)?)(?![a-z])')


def read(path):
    with open(path, newline='') as f:
        return list(csv.reader(f))


def write(path, rows):
    tmp = path + '.tmp'
    with open(tmp, 'w', newline='') as f:
        csv.writer(f, lineterminator='\n').writerows(rows)
    os.replace(tmp, path)  # breaks the hard link


def case_key(section, header, row):
    g = lambda c: row[header.index(c)]
    if section == 'async':
        return 'bytes=%s' % g('size_bytes')
    if section == 'decomposition':
        return 'bytes=%s;mode=%s' % (g('size_bytes'), g('mode'))
    if section == 'fragmentation':
        return 'count=%s;fragment_bytes=%s' % (g('fragment_count'), g('fragment_bytes'))
    return 'tokens=%s;bytes=%s;calls=%s' % (g('tokens'), g('message_bytes'), g('collectives'))


def metric_name(section, col):
    if section == 'async':
        return col
    return {'decomposition': 'duration_us', 'fragmentation': 'duration_us_for_80MiB', 'decode': 'replay_total_us'}[section]


def fnum(s):
    try:
        return float(s)
    except ValueError:
        return None


def fmt(v):
    return repr(float(v))


def usable(v):
    return v is not None and math.isfinite(v) and 0 < v <= 1e15


class Iter:
    def __init__(self, n, rng):
        self.n, self.rng = n, rng
        self.dir = os.path.join(WORK, 'it%05d' % n)
        self.runs = os.path.join(self.dir, 'runs')
        self.log = []          # edits applied, human readable
        self.touched = {}      # (section, case, metric) in the candidate -> list of ops
        self.hist_mutated = False
        self.bad_text = False
        self.expect = []       # oracle entries

    def setup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        subprocess.run(['cp', '-al', PRISTINE, self.runs], check=True)

    def earlier(self):
        return sorted(d for d in os.listdir(self.runs) if d != self.cand_id)

    # ---- editing helpers ----
    def edit_run(self, run, section, col, scope, op, arg, cand):
        path = os.path.join(self.runs, run, RES, 'rank0_%s.csv' % section)
        rows = read(path)
        h = rows[0]
        ci = h.index(col)
        body = rows[1:]
        keys = sorted({case_key(section, h, r) for r in body})
        if scope == 'case':
            k = self.rng.choice(keys)
            sel = [r for r in body if case_key(section, h, r) == k]
        elif scope == 'cycle':
            sel = [self.rng.choice(body)]
        else:  # column
            sel = body
        desc = '%s %s.%s[%s] %s %s' % (run, section, col, scope if scope != 'case' else 'case ' + k, op, arg)
        if op == 'outlier':  # one cycle of each selected case x arg
            bycase = {}
            for r in sel:
                bycase.setdefault(case_key(section, h, r), []).append(r)
            sel2 = [self.rng.choice(v) for v in bycase.values()]
            for r in sel2:
                v = fnum(r[ci])
                r[ci] = fmt(v * arg)
            changed = sel2
        else:
            changed = sel
            if op == 'equal':
                # every selected cycle of a case equal to its first cycle
                first = {}
                for r in sel:
                    first.setdefault(case_key(section, h, r), r[ci])
                for r in sel:
                    r[ci] = first[case_key(section, h, r)]
            elif op == 'copy':  # identical to another run's values (same row)
                src = read(os.path.join(self.runs, arg, RES, 'rank0_%s.csv' % section))
                assert src[0] == h and len(src) == len(rows)
                idx = {id(r): i for i, r in enumerate(body)}
                for r in sel:
                    r[ci] = src[1 + idx[id(r)]][ci]
            elif op == 'histmedian':  # each cycle = median over earlier runs of the case's run-level values
                meds = {}
                for run2 in arg:
                    src = read(os.path.join(self.runs, run2, RES, 'rank0_%s.csv' % section))
                    per = {}
                    for r2 in src[1:]:
                        v2 = fnum(r2[ci])
                        if v2 is not None and math.isfinite(v2):
                            per.setdefault(case_key(section, src[0], r2), []).append(v2)
                    for kk, vv in per.items():
                        meds.setdefault(kk, []).append(statistics.median(vv))
                for r in sel:
                    r[ci] = fmt(statistics.median(meds[case_key(section, h, r)]))
            else:
                for r in sel:
                    if op == 'set':
                        r[ci] = arg
                    elif op == 'scale':
                        r[ci] = fmt(fnum(r[ci]) * arg)
                    elif op == 'badtext':
                        r[ci] = arg
        write(path, rows)
        self.log.append(desc)
        if cand and col in SECTIONS[section]:
            for r in changed:
                kk = (section, case_key(section, h, r), metric_name(section, col))
                self.touched.setdefault(kk, []).append((op, arg, scope))
        return desc

    def random_edit(self, run, cand, allow_copy_from=None):
        rng = self.rng
        section = rng.choice(list(SECTIONS))
        col = rng.choice(SECTIONS[section] + (AUX if section != 'async' and rng.random() < 0.15 else []))
        scope = rng.choices(['case', 'cycle', 'column'], [5, 2, 2])[0]
        r = rng.random()
        if r < 0.30:
            op, arg = 'set', rng.choice(CONSTS)
        elif r < 0.62:
            op, arg = 'scale', rng.choice(FACTORS)
        elif r < 0.74:
            op, arg = 'outlier', rng.choice([1e6, 1e-6, 1e3])
        elif r < 0.84:
            op, arg = 'equal', None
        elif r < 0.94 and allow_copy_from:
            op, arg = 'copy', rng.choice(allow_copy_from)
            scope = 'case' if rng.random() < 0.7 else 'column'
        elif allow_copy_from:
            op, arg = 'histmedian', allow_copy_from
            scope = 'case'
        else:
            op, arg = 'scale', rng.choice(FACTORS)
        return self.edit_run(run, section, col, scope, op, arg, cand)

    def set_manifest(self, run, new_id, stamp):
        p = os.path.join(self.runs, run, 'manifest.txt')
        lines = open(p).read().split('\n')
        lines = ['run_id=' + new_id if l.startswith('run_id=') else
                 'timestamp_utc=' + stamp if l.startswith('timestamp_utc=') else l for l in lines]
        tmp = p + '.tmp'
        open(tmp, 'w').write('\n'.join(lines))
        os.replace(tmp, p)

    def build(self):
        rng = self.rng
        self.setup()
        runs = sorted(os.listdir(self.runs))
        # history size
        mode = rng.random()
        if mode < 0.25:
            keep = rng.choice([0, 1, 2, 3, 4])
            drop = runs[:len(runs) - keep] if rng.random() < 0.6 else rng.sample(runs, len(runs) - keep)
            for d in drop:
                shutil.rmtree(os.path.join(self.runs, d))
            self.log.append('deleted runs %s (kept %d)' % (drop, keep))
            if keep == 0:
                # candidate needs a source: use the pristine newest
                shutil.copytree(os.path.join(PRISTINE, '20261204T114816Z'), os.path.join(self.runs, '20261204T114816Z'))
                self.log.append('restored 20261204T114816Z as the only earlier run')
        earlier = sorted(os.listdir(self.runs))
        newest = earlier[-1]
        self.cand_id = rng.choice(IDS_NEW)
        stamp = {'20261204T235900Z': '2026-12-04T23:59:00.000000+00:00',
                 '20261204T235959Z': '2026-12-04T23:59:59.000000+00:00',
                 '20261204T235901Z-fuzz': '2026-12-04T23:59:01.000000+00:00',
                 '20261231T000000Z': '2026-12-31T00:00:00+00:00'}[self.cand_id]
        shutil.copytree(os.path.join(self.runs, newest), os.path.join(self.runs, self.cand_id), copy_function=shutil.copy2)
        self.set_manifest(self.cand_id, self.cand_id, stamp)
        self.log.append('candidate %s = copy of %s' % (self.cand_id, newest))
        self.oracle_mode = rng.random() < 0.5
        if self.oracle_mode:
            self.earlier_ids, self.newest, self.base = earlier, newest, None
            if rng.random() < 0.15 and len(earlier) > 1:
                self.base = rng.choice(earlier)
            self.base_id = self.base or newest
            section = rng.choice(list(SECTIONS))
            col = rng.choice(SECTIONS[section])
            r = rng.random()
            if r < 0.5:
                self.edit_run(self.cand_id, section, col, rng.choice(['case', 'case', 'column']), 'scale',
                              rng.choice([1000, 1e4, 1e6, 1e9, 0.001, 1e-4, 1e-6]), True)
            elif r < 0.7:
                self.edit_run(self.cand_id, section, col, rng.choice(['case', 'column']), 'copy', self.base_id, True)
            elif r < 0.85:
                self.edit_run(self.cand_id, section, col, 'case', 'copy', rng.choice(earlier), True)
            else:
                self.edit_run(self.cand_id, section, col, 'case', 'histmedian', earlier, True)
            return
        # history edits
        if rng.random() < 0.3 and earlier:
            for _ in range(rng.choice([1, 1, 2, 3])):
                run = rng.choice(earlier)
                self.random_edit(run, False)
            self.hist_mutated = True
        # explicit base?
        self.base = None
        if rng.random() < 0.15 and len(earlier) > 1:
            self.base = rng.choice(earlier)
        base_for_copy = self.base or newest
        # candidate edits
        nops = rng.choice([0, 1, 1, 2, 2, 3, 4])
        if rng.random() < 0.05:
            nops = 0
        for _ in range(nops):
            self.random_edit(self.cand_id, True, allow_copy_from=earlier)
        if rng.random() < 0.06:
            section = rng.choice(list(SECTIONS))
            col = rng.choice(SECTIONS[section])
            self.edit_run(self.cand_id, section, col, 'cycle', 'badtext', rng.choice(BAD_TEXT), True)
            self.bad_text = True
        if rng.random() < 0.03 and earlier:
            section = rng.choice(list(SECTIONS))
            self.edit_run(rng.choice(earlier), section, rng.choice(SECTIONS[section]), 'cycle', 'badtext',
                          rng.choice(BAD_TEXT), False)
        self.earlier_ids = earlier
        self.newest = newest
        self.base_id = base_for_copy

    # ---- running ----
    def run_all(self):
        out = {}
        for fmt_ in ['json', 'text', 'csv', 'md']:
            args = [NR, 'compare'] + ([self.base] if self.base else []) + [self.cand_id, '--runs', self.runs, '--format', fmt_]
            t = time.time()
            try:
                p = subprocess.run(args, capture_output=True, timeout=20)
                out[fmt_] = (p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace'), time.time() - t)
            except subprocess.TimeoutExpired:
                out[fmt_] = ('timeout', '', '', 20)
        self.cmd = ' '.join([NR, 'compare'] + ([self.base] if self.base else []) + [self.cand_id, '--runs', '<RUNS>', '--format', 'json'])
        return out


def check(it, out):
    problems = []
    rcs = {f: o[0] for f, o in out.items()}
    for f, (rc, so, se, dt) in out.items():
        if rc == 'timeout':
            problems.append(('hang', f))
            continue
        if rc < 0:
            problems.append(('signal', '%s rc=%d' % (f, rc)))
        if rc == 101 or 'panicked' in se:
            problems.append(('panic', '%s: %s' % (f, se[-300:])))
        if rc not in (0, 1, 2):
            problems.append(('bad_rc', '%s rc=%s' % (f, rc)))
        if f in ('text', 'csv', 'md'):
            for line in so.splitlines():
                if BADTOK.search(re.sub(r"value \d+ of \d+ \([^)]*\) is not a measurement", "", line)):
                    problems.append(('nonfinite_%s' % f, line.strip()[:400]))
                    break
    if len(set(rcs.values())) > 1:
        problems.append(('rc_mismatch', str(rcs)))
    rc, so, se, _ = out['json']
    verdicts = []
    d = None
    if rc in (0, 1) or (rc == 2 and so.strip()):
        bad_consts = []
        try:
            d = json.loads(so, parse_constant=lambda c: bad_consts.append(c) or None)
        except Exception as e:
            problems.append(('json_parse', str(e)))
        if bad_consts:
            problems.append(('json_nonfinite', str(bad_consts)))
    if d is not None:
        fields = ['ratio', 'ci_low', 'ci_high', 'cost_ratio', 'history_ratio', 'effect_floor', 'timer_step']
        any_slower = False
        for c in d['cases']:
            for fl in fields:
                v = c.get(fl)
                if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v)):
                    problems.append(('json_field', '%s %s %s=%r' % (c['section'], c['case'], fl, v)))
            if c['verdict'] in ('slower', 'faster') and c.get('effect_floor') is None:
                problems.append(('verdict_null_floor', '%s %s %s' % (c['section'], c['case'], c['metric'])))
            if c['verdict'] == 'slower':
                any_slower = True
            # rule consistency
            ef, hr, cr = c.get('effect_floor'), c.get('history_ratio'), c.get('cost_ratio')
            if c['verdict'] == 'slower' and ef is not None and hr is not None and cr is not None:
                if not (hr > (1 + ef) * 0.999999 and cr > (1 + ef) * 0.999999):
                    problems.append(('slower_inside_floor', '%s %s %s hr=%r cr=%r floor=%r' % (c['section'], c['case'], c['metric'], hr, cr, ef)))
            if c['verdict'] == 'faster' and ef is not None and hr is not None and cr is not None:
                if not (hr < 1.000001 / (1 + ef) and cr < 1.000001 / (1 + ef)):
                    problems.append(('faster_inside_floor', '%s %s %s hr=%r cr=%r floor=%r' % (c['section'], c['case'], c['metric'], hr, cr, ef)))
            verdicts.append(c)
        for s in d['shifts']:
            for fl in ['ratio', 'effect_floor']:
                v = s.get(fl)
                if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v)):
                    problems.append(('json_shift_field', '%s %s=%r' % (s['family'], fl, v)))
            if s['verdict'] == 'slower':
                any_slower = True
        if any_slower and rc != 1:
            problems.append(('slower_but_rc', 'rc=%s' % rc))
        if not any_slower and rc == 1:
            problems.append(('rc1_without_slower', ''))
        # oracles on the candidate's edits
        bykey = {(c['section'], c['case'], c['metric']): c for c in d['cases']}
        for key, ops in it.touched.items():
            c = bykey.get(key)
            if c is None:
                continue
            # read the candidate's values now
            vals = cand_values(it, key)
            if vals is None:
                continue
            if any(not usable(v) for v in vals):
                if c['verdict'] != 'not_comparable':
                    problems.append(('unusable_value_judged', '%s values=%s verdict=%s' % (key, vals[:3], c['verdict'])))
                continue
            if it.hist_mutated or it.bad_text:
                continue
            kinds = set((o[0], o[1]) if o[0] in ('scale',) else (o[0],) for o in ops)
            if len(ops_unique(ops)) != 1:
                continue
            op = ops[0]
            it.notes.append('oracle-checked %s %s -> %s' % (op[0], op[1] if op[0] == 'scale' else '', c['verdict']))
            if op[0] == 'scale' and op[2] in ('case', 'column') and c['history_runs'] >= 3:
                f = op[1]
                hr, cr, ef = c['history_ratio'], c['cost_ratio'], c['effect_floor']
                if f >= 1000 and c['verdict'] != 'slower':
                    tag = 'x%g_not_slower' % f
                    if ef is not None and hr is not None and hr > (1 + ef) * 1.001 and cr > (1 + ef) * 1.001:
                        problems.append((tag + '_beyond_floor', '%s verdict=%s hr=%r cr=%r floor=%r reason=%r' % (key, c['verdict'], hr, cr, ef, c['reason'])))
                    else:
                        it.notes.append('%s: %s verdict=%s floor=%r hr=%r (floor wide)' % (tag, key, c['verdict'], ef, hr))
                if f <= 0.001 and c['verdict'] != 'faster':
                    tag = 'x%g_not_faster' % f
                    if ef is not None and hr is not None and hr * (1 + ef) < 0.999 and cr * (1 + ef) < 0.999:
                        problems.append((tag + '_beyond_floor', '%s verdict=%s hr=%r cr=%r floor=%r reason=%r' % (key, c['verdict'], hr, cr, ef, c['reason'])))
                    else:
                        it.notes.append('%s: %s verdict=%s floor=%r hr=%r' % (tag, key, c['verdict'], ef, hr))
            if op[0] == 'copy' and op[1] == it.base_id and c['verdict'] in ('slower', 'faster'):
                problems.append(('identical_to_base_but_%s' % c['verdict'], '%s %r' % (key, {k: c[k] for k in ('history_ratio', 'cost_ratio', 'effect_floor')})))
            if op[0] in ('copy', 'histmedian') and c['verdict'] in ('slower', 'faster') and c['history_left_out'] == 0:
                problems.append(('history_copy_%s' % c['verdict'], '%s from %s %r' % (key, op[1] if op[0] == 'copy' else 'median', {k: c[k] for k in ('history_ratio', 'cost_ratio', 'effect_floor', 'history_left_out')})))
        if not it.touched and not it.hist_mutated and not it.bad_text and it.base is None:
            if rc != 0 or any(c['verdict'] in ('slower', 'faster') for c in d['cases']):
                problems.append(('unchanged_copy_flagged', 'rc=%s' % rc))
    return problems, d


def ops_unique(ops):
    return {(o[0], str(o[1]), o[2]) for o in ops}


def cand_values(it, key):
    section, case, metric = key
    path = os.path.join(it.runs, it.cand_id, RES, 'rank0_%s.csv' % section)
    rows = read(path)
    h = rows[0]
    col = metric if section == 'async' else 'duration_us'
    ci = h.index(col)
    return [fnum(r[ci]) for r in rows[1:] if case_key(section, h, r) == case]


def main():
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 600
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if os.path.exists(WORK_ROOT) and not os.path.exists(os.path.join(WORK_ROOT, '.fuzz-compare')):
        sys.exit(f'{WORK_ROOT} exists and was not made by this script; give a new folder')
    shutil.rmtree(WORK_ROOT, ignore_errors=True)
    os.makedirs(WORK)
    open(os.path.join(WORK_ROOT, '.fuzz-compare'), 'w').close()
    for name in sorted(os.listdir(REPO_RUNS)):
        if re.fullmatch(r'20261204T11\d{4}Z', name):
            shutil.copytree(os.path.join(REPO_RUNS, name), os.path.join(PRISTINE, name))
    deadline = time.time() + seconds
    os.makedirs(FIND, exist_ok=True)
    stats = {'iterations': 0, 'rc': {}, 'problems': {}, 'slower_runs': 0, 'invalid': 0}
    summary_f = open(os.path.join(FIND, 'log-seed%d.jsonl' % seed), 'a')
    for i in itertools.count():
        if time.time() > deadline:
            break
        rng = random.Random(seed * 100000 + i)
        it = Iter(seed * 100000 + i, rng)
        it.notes = []
        it.build()
        out = it.run_all()
        problems, d = check(it, out)
        stats['iterations'] += 1
        rc = out['json'][0]
        stats['rc'][str(rc)] = stats['rc'].get(str(rc), 0) + 1
        rec = {'it': it.n, 'edits': it.log, 'base': it.base, 'cand': it.cand_id, 'rcs': {f: o[0] for f, o in out.items()},
               'problems': problems, 'notes': it.notes, 'stderr': out['json'][2][-300:],
               'counts': d['counts'] if d else None, 'shifts': [(s['family'], s['ratio'], s['effect_floor'], s['verdict']) for s in d['shifts']] if d else None}
        summary_f.write(json.dumps(rec) + '\n')
        summary_f.flush()
        if problems:
            kinds = sorted({p[0] for p in problems})
            for k in kinds:
                stats['problems'][k] = stats['problems'].get(k, 0) + 1
            dest = os.path.join(FIND, 'it%05d' % it.n)
            shutil.rmtree(dest, ignore_errors=True)
            # keep only the runs (real copies), the command and the outputs
            shutil.copytree(it.runs, os.path.join(dest, 'runs'))
            with open(os.path.join(dest, 'README.txt'), 'w') as f:
                f.write('edits:\n  ' + '\n  '.join(it.log) + '\n')
                f.write('command (each of --format json/text/csv/md):\n  ' + it.cmd.replace('<RUNS>', os.path.join(dest, 'runs')) + '\n')
                f.write('exit codes: %s\n' % {fm: o[0] for fm, o in out.items()})
                f.write('problems:\n  ' + '\n  '.join('%s: %s' % p for p in problems) + '\n')
            for fm, o in out.items():
                open(os.path.join(dest, 'out.' + fm), 'w').write(str(o[1]))
                open(os.path.join(dest, 'err.' + fm), 'w').write(str(o[2]))
        shutil.rmtree(it.dir, ignore_errors=True)
    json.dump(stats, open(os.path.join(FIND, 'stats-seed%d.json' % seed), 'w'), indent=1)
    print(json.dumps(stats, indent=1))


if __name__ == '__main__':
    main()
