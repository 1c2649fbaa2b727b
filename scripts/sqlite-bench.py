#!/usr/bin/env python3
"""Benchmark of the sqlite sink against a C floor, in the same run.

usage: python3 scripts/sqlite-bench.py [EVENTS] [--reps N] [--skip-build] [--keep DIR]

1. builds calpipe in release mode (swift build -c release --product calpipe) and scripts/sqlite-floor.c (cc -O2);
2. writes a synthetic feed (scripts/gen-sqlite-bench-feed.py, default 100000 events) and a pipeline
   json -> split -> sqlite into a fresh database;
3. runs the pipeline into a new database and the same pipeline with --dry-run (read, split, no sink), N times
   each; the sink's time is the best full run minus the best dry run;
4. runs the C floor N times on the rows calpipe wrote (events, attendees, occurrences, day_entries): one
   prepared INSERT per table, one transaction, WAL, no secondary indexes; and once more per repetition into
   calpipe's own schema (--same-schema: unique keys, indexes; foreign keys not enforced, as in the sink), to
   show what the schema alone costs; and with --bulk-schema: plain tables, calpipe's unique keys and indexes
   built after the rows (what the sink's bulk load does on a new database);
5. prints rows/s of both and the ratios in CPU time (the sink writes on its own thread while the feed is
   read, so wall-time differences are not its time): sink / plain floor (the issue's target, 1.5x), sink /
   same-schema floor (what the Swift side adds), and the whole pipeline's wall time / plain floor (issue 8's
   target (c), 2x).
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, **kw):
    """Runs cmd; returns (wall seconds, stdout). CPU time comes from RUSAGE_CHILDREN around it."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    out, err = p.communicate()
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{err.decode()}")
    return wall, out.decode()


def child_cpu():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("events", nargs="?", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--keep", help="work in this folder and keep it")
    args = ap.parse_args()

    work = args.keep or tempfile.mkdtemp(prefix="calpipe-bench-")
    os.makedirs(work, exist_ok=True)
    if not args.skip_build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "calpipe"], cwd=ROOT, check=True)
    calpipe = os.path.join(ROOT, ".build", "release", "calpipe")
    floor = os.path.join(work, "sqlite-floor")
    subprocess.run(["cc", "-O2", "-o", floor, os.path.join(ROOT, "scripts", "sqlite-floor.c"), "-lsqlite3"], check=True)

    feed = os.path.join(work, "feed.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-sqlite-bench-feed.py"), str(args.events), feed], check=True)
    db = os.path.join(work, "bench.db")
    pipeline = os.path.join(work, "bench.json")
    with open(pipeline, "w") as f:
        json.dump({
            "name": "bench", "timezone": "Europe/Berlin", "window": {"from": "2026-11-01", "to": "2027-01-01"},
            "sources": [{"type": "json", "path": "feed.json", "name": "bench"}],
            "stages": [{"type": "split"}],
            "sinks": [{"type": "sqlite", "path": "bench.db"}],
        }, f)

    def fresh():
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)

    full, dry = [], []
    for _ in range(args.reps):
        fresh()
        c0 = child_cpu()
        wall, _ = timed([calpipe, "run", "--quiet", pipeline])
        full.append((wall, child_cpu() - c0))
        c0 = child_cpu()
        wall, _ = timed([calpipe, "run", "--quiet", "--dry-run", pipeline])
        dry.append((wall, child_cpu() - c0))

    con = sqlite3.connect(db)
    rows = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("events", "attendees", "occurrences", "day_entries"))
    con.close()

    def run_floor(*extra):
        best = []
        for _ in range(args.reps):
            out = subprocess.run([floor, db, os.path.join(work, "floor.db"), *extra], check=True, capture_output=True, text=True).stdout
            n, wall, cpu = out.split()
            assert int(n) == rows, (n, rows)
            best.append((float(wall), float(cpu)))
        return min(w for w, _ in best), min(c for _, c in best)

    floor_wall, floor_cpu = run_floor()
    schema_wall, schema_cpu = run_floor("--same-schema")
    bulk_wall, bulk_cpu = run_floor("--bulk-schema")

    sink_cpu = min(c for _, c in full) - min(c for _, c in dry)
    print(f"events: {args.events}, rows written (events+attendees+occurrences+day_entries): {rows}, best of {args.reps}")
    print(f"calpipe full run   wall {min(w for w, _ in full):8.3f} s   cpu {min(c for _, c in full):8.3f} s")
    print(f"calpipe dry run    wall {min(w for w, _ in dry):8.3f} s   cpu {min(c for _, c in dry):8.3f} s")
    # The sink writes on a thread of its own while the feed is read (Runner's SinkPump), so the difference of
    # wall times is not the sink's time: its CPU time is the figure to compare.
    print(f"calpipe sqlite sink                                     cpu {sink_cpu:7.3f} s = {rows / sink_cpu:10.0f} rows/s")
    print(f"C floor            wall {floor_wall:7.3f} s = {rows / floor_wall:10.0f} rows/s   cpu {floor_cpu:7.3f} s = {rows / floor_cpu:10.0f} rows/s")
    print(f"C, calpipe's schema wall {schema_wall:7.3f} s = {rows / schema_wall:10.0f} rows/s   cpu {schema_cpu:7.3f} s = {rows / schema_cpu:10.0f} rows/s")
    print(f"C, keys built after  wall {bulk_wall:7.3f} s = {rows / bulk_wall:10.0f} rows/s   cpu {bulk_cpu:7.3f} s = {rows / bulk_cpu:10.0f} rows/s")
    print(f"ratio sink / floor: cpu {sink_cpu / floor_cpu:.2f}x (target: within 1.5x)")
    print(f"ratio C with calpipe's schema / floor: wall {schema_wall / floor_wall:.2f}x, cpu {schema_cpu / floor_cpu:.2f}x (unique keys, indexes)")
    print(f"ratio sink / C with calpipe's schema: cpu {sink_cpu / schema_cpu:.2f}x")
    print(f"ratio sink / C with keys built after the rows: cpu {sink_cpu / bulk_cpu:.2f}x")
    full_wall = min(w for w, _ in full)
    print(f"ratio whole pipeline (json -> split -> sqlite) / floor: wall {full_wall / floor_wall:.2f}x (target: at most 2x)")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
