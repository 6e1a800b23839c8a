"""Compare two folders of suite results (results.json per suite), ignoring timing fields.

Timings, memory, load and speed-ups differ from run to run, and the scaling suite's
"Parallel execution" table depends on a time budget, so those are left out.

python compare_suites.py BASE_DIR NEW_DIR [suite ...]
"""

import json
import math
import sys
from pathlib import Path

VOLATILE = (
    "seconds",
    "time",
    "memory",
    "mib",
    "mb",
    "peak",
    "load",
    "speed",
    "ratio",
    "rate_per",
    # CPU seconds per representative of the lfs-fig11 suite
    "per_representative",
)


def volatile(key):
    k = key.lower()
    return any(v in k for v in VOLATILE)


TIMED_METRICS = ("(s)", "second", "time", "memory", "speed", "within target", "(mb)", "(mib)")


def clean(rec):
    out = {}
    timed = any(t in str(rec.get("metric", "")).lower() for t in TIMED_METRICS)
    for k, v in rec.items():
        if volatile(k) or (timed and k in ("value", "std", "status", "protocol")):
            continue
        if k == "protocol":
            continue
        if isinstance(v, float) and math.isnan(v):
            v = "nan"
        out[k] = v
    return out


def main():
    base, new = Path(sys.argv[1]), Path(sys.argv[2])
    suites = sys.argv[3:] or sorted(p.name for p in new.iterdir() if (p / "results.json").exists())
    bad = 0
    for s in suites:
        a = json.loads((base / s / "results.json").read_text())["records"]
        b = json.loads((new / s / "results.json").read_text())["records"]
        ca = [clean(r) for r in a if "Parallel" not in str(r.get("table"))]
        cb = [clean(r) for r in b if "Parallel" not in str(r.get("table"))]
        same = ca == cb
        # records equal except volatile fields whose *values* are timings
        diffs = sum(1 for x, y in zip(ca, cb) if x != y) + abs(len(ca) - len(cb))
        print(f"{s}: {len(a)} vs {len(b)} records, {diffs} differ" + ("" if same else "  <--"))
        if not same:
            bad += 1
            for x, y in zip(ca, cb):
                if x != y:
                    keys = {k for k in set(x) | set(y) if x.get(k) != y.get(k)}
                    print("   first differing record, keys:", sorted(keys)[:8])
                    print("   ", {k: x.get(k) for k in sorted(keys)[:8]})
                    print("   ", {k: y.get(k) for k in sorted(keys)[:8]})
                    break
    sys.exit(1 if bad else 0)


main()
