#!/usr/bin/env python3
"""How heavy the tails of real run-to-run noise are, against the verdicts' t factor
(`rule::TAIL`, README "The rule").

    scripts/tail-check.py BIN [--tail 1.25] RUNS...

Each RUNS folder holds an A/A set: back-to-back runs of one configuration, nothing changed
between them. Every run with at least 3 earlier runs is compared as `compare` does by default
(`BIN compare RUN --format json`: against the earlier runs of its configuration, gross changes
and the newest earlier run left out), and each case's distance from its history is put in units
of the spread it was judged with (its history's, or its family's run-to-run spread when larger:
`engine::family_spread`): `z = ln(history_ratio) / (floor / (TAIL t))`, where `floor` is the
case's noise floor (`TAIL t(1 - ALPHA/2, n - 1) sqrt(1 + 1/n) spread`, ALPHA = 1 in 10,000). A
case whose floor is the 3 % minimum gets a smaller `z` than its spread would give (this errs
towards light tails). If the t model were right, a fraction `a` of all values would fall beyond
its `a` quantile; the table prints how many do, for `z` as measured and for `z / TAIL` (the
verdict calls a change at `z / TAIL` beyond 1 in 10,000, and beyond every earlier run). `--tail`
must be the binary's `rule::TAIL` (the floors it reads include it; nothing checks this). A run
`compare` refuses, other than the oldest, is named on stderr. Python 3 standard library only.
"""
import json, math, os, subprocess, sys

LEVELS = [1e-1, 1e-2, 1e-3, 1e-4]


def t_tail(x, df):
    """P(|T| > x) for Student's t with `df` degrees of freedom (Simpson's rule: on t up to 1,
    on u = 1/t beyond)."""
    x = abs(x)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    pdf = lambda t: c * (1 + t * t / df) ** (-(df + 1) / 2)
    if x <= 1:
        # 1 - P(|T| <= x): Simpson's rule on [0, x], where the density is smooth. (The
        # substitution below spans [0, 1/x], too wide for its steps when x is small.)
        return max(0.0, 1 - 2 * simpson(pdf, x))
    return min(1.0, 2 * simpson(lambda u: 0.0 if u == 0 else pdf(1 / u) / (u * u), 1 / x))


def simpson(f, b, steps=2000):
    """The integral of `f` over [0, b] by Simpson's rule."""
    h = b / steps
    return (f(0) + f(b) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps))) * h / 3


def t_quantile(a, df):
    """The `x` with P(|T| > x) = a (bisection on a log scale)."""
    low, high = 1.0, 1e6
    for _ in range(100):
        mid = math.sqrt(low * high)
        low, high = (mid, high) if t_tail(mid, df) > a else (low, mid)
    return low


def judged(binary, runs, tail):
    """(z, degrees of freedom, where) of every case of every run with at least 3 earlier runs."""
    ids = sorted(d for d in os.listdir(runs) if os.path.isdir(os.path.join(runs, d)))
    quantiles = {}
    out = []
    for run in ids:
        done = subprocess.run([binary, "compare", "--runs", runs, run, "--format", "json"],
                              capture_output=True, text=True)
        if done.returncode not in (0, 1):
            # The oldest run has no baseline; any other refusal is said, not skipped silently.
            if "has no baseline" not in done.stderr:
                print(f"skipped {run}: {done.stderr.strip().splitlines()[:1]}", file=sys.stderr)
            continue
        for case in json.loads(done.stdout)["cases"]:
            n, ratio, floor = case["history_runs"], case["history_ratio"], case["effect_floor"]
            if n < 3 or ratio is None or floor <= 0:
                continue
            if n not in quantiles:
                quantiles[n] = t_quantile(1e-4, n - 1)
            z = math.log(ratio) * tail * quantiles[n] / math.log1p(floor)
            out.append((z, n - 1, (case["section"], case["metric"], case["case"], run)))
    return out


def main(argv):
    tail = 1.25
    if "--tail" in argv:
        at = argv.index("--tail")
        tail = float(argv[at + 1])
        del argv[at:at + 2]
    if len(argv) < 3:
        sys.exit(__doc__)
    binary, folders = argv[1], argv[2:]
    all_values = [v for runs in folders for v in judged(binary, runs, tail)]
    n = len(all_values)
    print(f"{n} values of {len(folders)} A/A sets, each judged against the earlier runs of its case")
    print("| z divided by | " + " | ".join(f"beyond 1 in {round(1 / a):,}" for a in LEVELS) + " |")
    print("|---|" + "---:|" * len(LEVELS))
    print("| expected | " + " | ".join(f"{a * n:.2f}" for a in LEVELS) + " |")
    for scale in (1.0, tail):
        counts = [sum(t_tail(z / scale, df) < a for z, df, _ in all_values) for a in LEVELS]
        print(f"| {scale:g} | " + " | ".join(str(c) for c in counts) + " |")
    print("most extreme:")
    for z, df, (section, metric, case, run) in sorted(all_values, key=lambda v: -abs(v[0]))[:5]:
        print(f"  z {z:.2f} ({df + 1} earlier runs): {section} {metric} {case}, run {run}")


if __name__ == "__main__":
    main(sys.argv)
