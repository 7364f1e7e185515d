"""Check that a result directory written after issue 12 item 3 (the `completed`
column and the unfinished-work counts) holds exactly the old values: every
old CSV/Parquet column, every old summary.json value and every sweep run
file of OLD must be equal in NEW. Usage: compare-old-columns.py OLD NEW
(prints one line per file, then ALL OLD VALUES IDENTICAL or DIFFERENCES)."""
import csv, json, sys, os, glob
import pyarrow.parquet as pq
NEW_METRICS = {"transfers", "transfers_unfinished", "messages_undelivered", "completed", "of"}
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if k != "unfinished" and k not in NEW_METRICS}
    if isinstance(d, list):
        return [strip(x) for x in d]
    return d
old, new = sys.argv[1], sys.argv[2]
ok = True
def runfile(p):
    d = json.load(open(p))
    d["summary"] = strip(d["summary"])
    for t in d["tables"]:
        t["columns"] = [c for c in t["columns"] if c["name"] != "completed"]
    return d
nrun = 0
for root, _, fs in os.walk(os.path.join(old, "runs")):
    for f in fs:
        a = os.path.join(root, f); b = os.path.join(new, os.path.relpath(a, old))
        same = runfile(a) == runfile(b) if f.startswith("run-") else open(a, "rb").read() == open(b, "rb").read()
        nrun += 1
        if not same:
            print("DIFF", a)
        ok &= same
print(f"runs/: {nrun} files compared")
for f in sorted(os.listdir(old)):
    a, b = os.path.join(old, f), os.path.join(new, f)
    if os.path.isdir(a):
        continue
    if f.endswith(".csv"):
        ra = list(csv.reader(open(a))); rb = list(csv.reader(open(b)))
        ha, hb = ra[0], rb[0]
        idx = [hb.index(c) for c in ha]
        extra = [c for c in hb if c not in ha]
        same = len(ra) == len(rb) and all([row[i] for i in idx] == ra[k] for k, row in enumerate(rb))
        ok &= same
        print(f"{f}: rows {len(ra)-1}, old columns identical: {same}, new columns: {extra}")
    elif f.endswith(".parquet"):
        ta, tb = pq.read_table(a), pq.read_table(b)
        same = tb.select(ta.column_names).equals(ta)
        ok &= same
        print(f"{f}: old columns identical: {same}, new: {[c for c in tb.column_names if c not in ta.column_names]}")
    elif f == "summary.json":
        ja, jb = json.load(open(a)), json.load(open(b))
        same = strip(jb) == ja
        ok &= same
        print(f"{f}: old keys identical: {same}")
    else:
        same = open(a, "rb").read() == open(b, "rb").read()
        ok &= same
        print(f"{f}: identical: {same}")
print("ALL OLD VALUES IDENTICAL" if ok else "DIFFERENCES")
sys.exit(0 if ok else 1)
