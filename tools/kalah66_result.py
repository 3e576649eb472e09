#!/usr/bin/env python3
"""The result of a finished Kalah(6,6) proof, audited (issue 51, item 4).

Reads the proof's journal (`kalah journal show`), proves a sample of its
bounds again from scratch (`kalah journal verify --sample N`, over the
proof's database), and writes data/kalah-6-6/start-CAPTURE.json: the value
with "exact": true, the nodes, sessions and hours the proof took, the
commit that holds its journal, the audit, and the bounds the journal holds
on each of South's opening turns beside Rawlings' values where published
(data/rawlings-6-6-openings.csv, empty capture). Refuses a journal whose
value is not exact, and writes nothing if a bound of the sample is wrong.

    tools/kalah66_result.py empty|standard [SAMPLE [SEED]]   (defaults 200, 20261206)

A proof still running is summed up as far as it has come by
tools/kalah66_bounds.sh (data/kalah-6-6/bounds-CAPTURE.json, the
journal's summary; `kalah journal verify` audits its journal).

With AUDIT=FILE, the `kalah journal verify --json` report of that sample
and seed, run before (the same journal), is taken instead of running it.

The database is $KALAH_DB_DIR (default data/db)/kalah-h6-nN-CAPTURE-...kdb
with N = $KALAH66_DB_SEEDS (default 32 for empty capture, 34 for
standard), as for tools/kalah66_proof.sh.
The proof's runs used kalah's default threads, every core of the machine
(THREADS, default the cores here): CPU-hours are at most hours x threads.
"""
import csv
import json
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
if len(sys.argv) < 2 or sys.argv[1] not in ("empty", "standard"):
    sys.exit("usage: tools/kalah66_result.py empty|standard [SAMPLE [SEED]]")
capture = sys.argv[1]
sample = int(sys.argv[2]) if len(sys.argv) > 2 else 200
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261206
threads = int(os.environ.get("THREADS") or os.cpu_count())
kalah = os.environ.get("KALAH_BIN") or subprocess.run(
    ["bash", "-c", ". tools/release_kalah.sh && echo $kalah"], check=True, capture_output=True, text=True
).stdout.strip()
journal = f"data/kalah-6-6/journal-{capture}"
seeds = os.environ.get("KALAH66_DB_SEEDS") or ("34" if capture == "standard" else "32")
db = os.path.join(os.environ.get("KALAH_DB_DIR", "data/db"), f"kalah-h6-n{seeds}-{capture}-instant-owner-ccw-relayoff.kdb")


def run_json(args):
    out = subprocess.run([kalah, *args, "--json"], capture_output=True, text=True)
    if out.returncode not in (0, 2) or not out.stdout.strip():
        sys.exit(f"kalah {' '.join(args)}: exit code {out.returncode}\n{out.stderr}")
    return json.loads(out.stdout)


summary = run_json(["journal", "show", journal])
exact = summary["value"] is not None
if not exact:
    sys.exit(f"{journal}: the value is not exact yet ({summary['lower']}..{summary['upper']}); the proof goes on (tools/kalah66_bounds.sh sums up the bounds proven)")


def text(v):
    return "?" if v is None else format(v, "+")


print(f"value {text(summary['lower'])}..{text(summary['upper'])}, {summary['nodes']:,} nodes, {summary['sessions']} sessions; auditing {sample} entries (seed {seed})", flush=True)
if os.environ.get("AUDIT"):
    with open(os.environ["AUDIT"]) as f:
        audit = json.load(f)
    if (audit["seed"], audit["sampled"], audit["entries"], audit["path"]) != (seed, min(sample, summary["entries"]), summary["entries"], summary["path"]):
        sys.exit(f"{os.environ['AUDIT']}: the report of another sample, seed or journal")
else:
    audit = run_json(["journal", "verify", journal, "--sample", str(sample), "--seed", str(seed), "--db", db])
if audit["disagreements"]:
    sys.exit(f"{journal}: {audit['disagreements']} of the sampled bounds are wrong; nothing written")
commit = subprocess.run(["git", "log", "-1", "--format=%H", "--", f"{journal}/journal.kj"], capture_output=True, text=True).stdout.strip()
changed = subprocess.run(["git", "status", "--porcelain", "--", f"{journal}/journal.kj"], capture_output=True, text=True).stdout.strip()
if not commit or changed:
    sys.exit(f"{journal}/journal.kj: commit it first (the result names the commit that holds it)")

published = {}
if capture == "empty":
    with open("data/rawlings-6-6-openings.csv") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        published = {tuple(int(h) for h in r["opening"].split("-")): int(r["value"]) for r in rows}

hours = summary["seconds"] / 3600
result = {
    "position": summary["position"],
    "rules": summary["rules"],
    "value": summary["value"],
    "exact": exact,
    "lower": summary["lower"],
    "upper": summary["upper"],
    "published": {"source": "Rawlings (2015)", "value": 2} if capture == "empty" else None,
    "nodes": summary["nodes"],
    "sessions": summary["sessions"],
    "wall_hours": round(hours, 2),
    "threads": threads,
    "cpu_hours_at_most": round(hours * threads, 1),
    "database_seeds": summary["database_seeds"],
    "journal": f"{journal}/journal.kj",
    "journal_entries": summary["entries"],
    "commit": commit,
    "audit": {
        "command": f"kalah journal verify {journal} --sample {sample} --seed {seed} --db {db}",
        "sampled": audit["sampled"],
        "bounds_checked": len(audit["checked"]),
        "disagreements": audit["disagreements"],
        "unchecked": audit["unchecked"],
        "nodes": audit["nodes"],
        "seconds": round(audit["seconds"], 1),
    },
    "openings": [
        {
            "turn": t["turn"],
            "lower": t["lower"],
            "upper": t["upper"],
            "value": t["value"],
            "published": published.get(tuple(t["turn"])),
        }
        for t in summary["turns"]
    ],
}
target = f"data/kalah-6-6/start-{capture}.json"
with open(target + ".partial", "w") as f:
    json.dump(result, f, indent=1)
    f.write("\n")
    f.flush()
    os.fsync(f.fileno())
os.replace(target + ".partial", target)
print(f"{target}: value {text(result['lower'])}..{text(result['upper'])} (exact), audit {audit['sampled']} entries, {len(audit['checked'])} bounds, "
      f"{audit['disagreements']} wrong, {audit['unchecked']} not decided in time")
for o in result["openings"]:
    bounds = text(o["value"]) if o["value"] is not None else f"{text(o['lower'])}..{text(o['upper'])}"
    print(f"  {'-'.join(map(str, o['turn'])):<6} {bounds:<8} published {o['published']}")
