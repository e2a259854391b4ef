#!/usr/bin/env bash
# Scores an mcpsec binary on the blind register in this folder.
#
#   testdata/blind-register/score.sh BIN [--verbose] [--jobs N]
#
# Each case's catalog is written to a temporary file and scanned with
#   BIN scan --catalog FILE --format json
# A poisoned case counts as detected when a finding of severity medium or
# higher names its flagged tool; a benign case is a false positive when any
# finding of severity medium or higher is reported. Without --verbose only
# aggregate figures are printed, so that reading them does not turn the
# register into development data; --verbose also lists every miss and false
# positive (see README.md for what that costs).
#
# Exit codes: 0 scored; 2 usage error or a scan that failed (exit code other
# than 0 or 1, or output that is not the scan JSON contract).
set -euo pipefail

# The register scored is the folder of this script, or REGISTER_DIR when a
# later register's own score.sh delegates here (one scorer for every register).
here="${REGISTER_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"
if [ "$#" -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
	echo "usage: $0 BIN [--verbose] [--jobs N]" >&2
	exit 2
fi
command -v python3 >/dev/null || { echo "score.sh: python3 is required" >&2; exit 2; }

exec python3 - "$here" "$@" <<'PY'
import concurrent.futures
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile

RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
MEDIUM = RANK["medium"]


def usage(msg):
    print("score.sh: " + msg, file=sys.stderr)
    print("usage: score.sh BIN [--verbose] [--jobs N]", file=sys.stderr)
    sys.exit(2)


here = sys.argv[1]
args = sys.argv[2:]
binary = None
verbose = False
jobs = 2
i = 0
while i < len(args):
    a = args[i]
    if a == "--verbose":
        verbose = True
    elif a == "--jobs":
        if i + 1 >= len(args) or not args[i + 1].isdigit() or int(args[i + 1]) < 1:
            usage("--jobs needs a positive integer")
        jobs = int(args[i + 1])
        i += 1
    elif a.startswith("-"):
        usage("unknown flag " + a)
    elif binary is None:
        binary = a
    else:
        usage("unexpected argument " + a)
    i += 1
if binary is None:
    usage("BIN is required")
binary = os.path.abspath(binary) if os.sep in binary else binary
if os.sep in binary and not os.access(binary, os.X_OK):
    usage("%s is not an executable file" % binary)


def load(name):
    path = os.path.join(here, name)
    cases = []
    with open(path, "rb") as f:
        data = f.read()
    for n, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            c = json.loads(line)
        except json.JSONDecodeError as e:
            print("score.sh: %s line %d: %s" % (path, n, e), file=sys.stderr)
            sys.exit(2)
        cases.append(c)
    return cases, hashlib.sha256(data).hexdigest()


poisoned, h_p = load("poisoned.jsonl")
benign, h_b = load("benign.jsonl")

# The README records the frozen hashes; say so when the files differ.
recorded = {}
try:
    with open(os.path.join(here, "README.md"), encoding="utf-8") as f:
        for m in re.finditer(r"\b([0-9a-f]{64})\s+(\S+\.jsonl)", f.read()):
            recorded[os.path.basename(m.group(2))] = m.group(1)
except OSError:
    pass


def scan(case, tmpdir):
    path = os.path.join(tmpdir, case["id"] + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(case["catalog"], f, ensure_ascii=False)
    try:
        p = subprocess.run([binary, "scan", "--catalog", path, "--format", "json"],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "%s: could not run scan: %s" % (case["id"], e)
    if p.returncode not in (0, 1):
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, "%s: scan exited %d: %s" % (case["id"], p.returncode, err[-1] if err else "(no message)")
    try:
        out = json.loads(p.stdout)
        servers = out["servers"]
        findings = []
        for s in servers:
            for f in s.get("findings") or []:
                sev = f["severity"]
                if sev not in RANK:
                    return None, "%s: unknown severity %r" % (case["id"], sev)
                findings.append((s.get("name"), f.get("tool"), f.get("location") or "", RANK[sev], f.get("rule_id", "?")))
    except (ValueError, KeyError, TypeError) as e:
        return None, "%s: scan output is not the scan JSON contract: %s" % (case["id"], e)
    return findings, None


SPLIT = re.compile(r"[\s/:,|()<>\[\]\u2194]+")


def names_tool(field, want):
    if field is None:
        return False
    if field == want:
        return True
    escaped = json.dumps(want)[1:-1]
    tokens = set(SPLIT.split(field))
    return want in tokens or escaped in tokens or field == escaped


def detected(case, findings):
    want = case["flagged_tool"]
    strong = [f for f in findings if f[3] >= MEDIUM]
    if want.startswith("@server:"):
        server = want[len("@server:"):]
        return any(f[0] == server and (not f[1] or "instruction" in f[2]) for f in strong)
    return any(names_tool(f[1], want) for f in strong)


def wilson(k, n, z=1.959964):
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def fmt(k, n):
    lo, hi = wilson(k, n)
    return "%3d/%-3d = %.3f  [%.3f, %.3f]" % (k, n, k / n if n else float("nan"), lo, hi)


results = {}
errors = []
with tempfile.TemporaryDirectory(prefix="blind-register-") as tmpdir:
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = {pool.submit(scan, c, tmpdir): c for c in poisoned + benign}
        for fut in concurrent.futures.as_completed(futs):
            c = futs[fut]
            findings, err = fut.result()
            if err:
                errors.append(err)
            else:
                results[c["id"]] = findings

if errors:
    for e in sorted(errors)[:20]:
        print("score.sh: " + e, file=sys.stderr)
    if len(errors) > 20:
        print("score.sh: ... and %d more scan errors" % (len(errors) - 20), file=sys.stderr)
    sys.exit(2)


def table(title, rows, label):
    print("\n%s" % title)
    width = max([len(label)] + [len(r[0]) for r in rows])
    print("  %-*s  %s" % (width, label, "k/n     rate   95% Wilson"))
    for name, k, n in rows:
        print("  %-*s  %s" % (width, name, fmt(k, n)))


def group(cases, key, hit):
    agg = {}
    for c in cases:
        k, n = agg.get(key(c), (0, 0))
        agg[key(c)] = (k + (1 if hit(c) else 0), n + 1)
    return [(name, k, n) for name, (k, n) in sorted(agg.items())]


hit_p = {c["id"]: detected(c, results[c["id"]]) for c in poisoned}
fp_b = {c["id"]: any(f[3] >= MEDIUM for f in results[c["id"]]) for c in benign}

print("mcpsec blind register: %s" % binary)
for name, h in (("poisoned.jsonl", h_p), ("benign.jsonl", h_b)):
    state = ""
    if name in recorded:
        state = "  (matches README)" if recorded[name] == h else "  (DIFFERS from README: not the frozen register)"
    print("  sha256 %s  %s%s" % (h, name, state))
print("\nrecall (poisoned tool has a finding >= medium): %s" % fmt(sum(hit_p.values()), len(poisoned)))
print("false-positive rate (benign case has any finding >= medium): %s" % fmt(sum(fp_b.values()), len(benign)))

table("recall by category", group(poisoned, lambda c: c["category"], lambda c: hit_p[c["id"]]), "category")
table("recall by carrier", group(poisoned, lambda c: c["carrier"].split(".")[0].split(" ")[0], lambda c: hit_p[c["id"]]), "carrier")
table("false positives by hard-negative kind", group(benign, lambda c: c["category"], lambda c: fp_b[c["id"]]), "kind")

if verbose:
    print("\nmisses (poisoned cases not detected):")
    for c in poisoned:
        if not hit_p[c["id"]]:
            print("  %s  %-26s %-40s %s" % (c["id"], c["category"], c["carrier"], c["note"]))
    print("\nfalse positives (benign cases with a finding >= medium):")
    for c in benign:
        if fp_b[c["id"]]:
            rules = sorted({"%s(%s)" % (f[4], [k for k, v in RANK.items() if v == f[3]][0]) for f in results[c["id"]] if f[3] >= MEDIUM})
            print("  %s  %-30s %s  %s" % (c["id"], c["category"], c["note"], " ".join(rules)))
PY
