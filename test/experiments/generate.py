#!/usr/bin/env python3
"""Seeded experiment data sets and the numbers scipy computes for them.

Run from the repository root:  python3 test/experiments/generate.py
Writes test/experiments/datasets.json. Each data set holds compact per-user records that the
test expands into events (exposures, metric events before and after exposure, noise, users seen
in two variants), and `expected`: what docs/experiments.md defines, computed here with
scipy.stats.ttest_ind(equal_var=False), its confidence_interval(0.95), scipy.stats.norm and
scipy.stats.chisquare. flagpost's results must match to 1e-6 relative.
"""
import json
import math
from pathlib import Path

import numpy as np
from scipy import stats

SPECS = [
    # name, seed, variants with weight, true conversion rate and mean revenue of a buyer, users, SRM skew
    ("two-variants", 1, [("control", 50, 0.10, 40.0), ("treatment", 50, 0.12, 42.0)], 4000, None),
    ("three-variants-uneven", 2, [("control", 50, 0.20, 15.0), ("b", 30, 0.21, 15.0), ("c", 20, 0.25, 18.0)], 6000, None),
    ("srm-and-mixed", 3, [("alpha", 50, 0.05, 100.0), ("beta", 50, 0.05, 100.0)], 5000, ("alpha", 0.53)),
]


def dataset(name, seed, variants, n_users, skew):
    rng = np.random.default_rng(seed)
    keys = [v[0] for v in variants]
    weights = np.array([v[1] for v in variants], dtype=float) / 100
    if skew is not None:  # a broken split: more users in one variant than its weight says
        index = keys.index(skew[0])
        weights = np.full(len(keys), (1 - skew[1]) / (len(keys) - 1))
        weights[index] = skew[1]
    users = []
    for u in range(n_users):
        k = int(rng.choice(len(keys), p=weights))
        key, _, rate, mean_revenue = variants[k]
        exposed = int(rng.integers(0, 1000))
        purchases = []
        # A purchase before exposure never counts.
        if rng.random() < 0.05:
            purchases.append([exposed - int(rng.integers(1, 50)), round(float(rng.exponential(mean_revenue)), 2)])
        if rng.random() < rate:
            for _ in range(1 + int(rng.poisson(0.3))):
                revenue = None if rng.random() < 0.1 else round(float(rng.exponential(mean_revenue)), 2)
                purchases.append([exposed + int(rng.integers(0, 500)), revenue])
        second_exposure = None
        if rng.random() < 0.01:  # seen in a second variant: excluded
            second_exposure = keys[(k + 1) % len(keys)]
        users.append([f"u{u}", key, exposed, purchases, second_exposure])
    return users


def per_user(users):
    """(variant, converted, revenue) for every user kept, and how many were excluded.
    A user is [id, variant, exposure second, [[second, revenue or null], ...], other variant or null]."""
    kept, excluded = [], 0
    for _, variant, exposed, purchases, also_in in users:
        if also_in is not None:
            excluded += 1
            continue
        counted = [p for p in purchases if p[0] >= exposed]
        revenue = sum(p[1] for p in counted if p[1] is not None)
        kept.append((variant, 1.0 if counted else 0.0, float(revenue)))
    return kept, excluded


def comparison(x, c):
    res = stats.ttest_ind(x, c, equal_var=False)
    ci = res.confidence_interval(0.95)
    diff = float(np.mean(x) - np.mean(c))
    se = math.sqrt(np.var(x, ddof=1) / len(x) + np.var(c, ddof=1) / len(c))
    return {
        "difference": diff,
        "differenceCI95": [float(ci.low), float(ci.high)],
        "relativeUplift": diff / float(np.mean(c)),
        "pValue": float(res.pvalue),
        "chanceToBeatControl": float(stats.norm.cdf(diff / se)),
    }


def expected(variants, users):
    kept, excluded = per_user(users)
    keys = [v[0] for v in variants]
    control = "control" if "control" in keys else keys[0]
    columns = {k: (np.array([u[1] for u in kept if u[0] == k]), np.array([u[2] for u in kept if u[0] == k])) for k in keys}
    out = []
    for key, weight, _, _ in variants:
        conv, rev = columns[key]
        row = {
            "key": key,
            "weight": weight,
            "users": len(conv),
            "conversions": int(conv.sum()),
            "conversionRate": float(conv.mean()),
            "revenue": float(rev.sum()),
            "revenuePerUser": float(rev.mean()),
            "vsControl": None,
        }
        if key != control:
            cconv, crev = columns[control]
            row["vsControl"] = {"conversionRate": comparison(conv, cconv), "revenuePerUser": comparison(rev, crev)}
        out.append(row)
    observed = [len(columns[k][0]) for k in keys]
    f_exp = [sum(observed) * v[1] / 100 for v in variants]
    chi = stats.chisquare(observed, f_exp)
    srm = {"chiSquare": float(chi.statistic), "degreesOfFreedom": len(keys) - 1, "pValue": float(chi.pvalue), "detected": bool(chi.pvalue < 0.001)}
    return {"control": control, "variants": out, "srm": srm, "excludedUsers": excluded}


def main():
    sets = []
    for name, seed, variants, n_users, skew in SPECS:
        users = dataset(name, seed, variants, n_users, skew)
        sets.append({
            "name": name,
            "experimentId": name,
            "metric": "purchase",
            "flagVariants": [{"key": v[0], "weight": v[1]} for v in variants],
            "users": users,
            "expected": expected(variants, users),
        })
    path = Path(__file__).with_name("datasets.json")
    path.write_text(json.dumps({"generator": "test/experiments/generate.py", "scipy": __import__("scipy").__version__, "datasets": sets}, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
