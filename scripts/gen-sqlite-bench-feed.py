#!/usr/bin/env python3
"""Writes a synthetic JSON event feed for the sqlite benchmark and the process tests.

usage: python3 scripts/gen-sqlite-bench-feed.py COUNT OUT.json [SEED]
Events are spread over 2026-11-01 .. 2026-12-31 (Europe/Berlin): 1 in 10 all-day (1-3 days), 1 in 20
overnight, the rest 15 min to 3 h; each has 0-3 attendees. Same COUNT and SEED give the same bytes.
"""
import json
import random
import sys


def main() -> None:
    count = int(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 42)
    words = ["Standup", "Review", "Planning", "Retro", "1:1", "Lunch", "Demo", "Sync", "Workshop", "Interview"]
    rooms = ["Room Spree", "Room Havel", "Atrium", None, None]
    people = [("Ann", "ann"), ("Ben", "ben"), ("Cleo", "cleo"), ("Dan", "dan"), ("Eve", "eve")]
    with open(out, "w") as f:
        f.write("[\n")
        for i in range(count):
            day = 1 + rng.randrange(61)
            month, dom = (11, day) if day <= 30 else (12, day - 30)
            e = {"uid": f"ev{i}@bench", "title": f"{rng.choice(words)} {i}", "timezone": "Europe/Berlin"}
            room = rng.choice(rooms)
            if room:
                e["location"] = room
            kind = rng.randrange(20)
            if kind < 2:
                e["start"] = f"2026-{month:02d}-{dom:02d}"
                e["all_day"] = True
                e["duration"] = f"P{1 + rng.randrange(3)}D"
            elif kind == 2:
                e["start"] = f"2026-{month:02d}-{dom:02d}T22:00:00"
                e["duration"] = "PT6H"
            else:
                h, m = 7 + rng.randrange(11), rng.choice([0, 15, 30, 45])
                e["start"] = f"2026-{month:02d}-{dom:02d}T{h:02d}:{m:02d}:00"
                e["duration"] = f"PT{rng.choice([15, 30, 45, 60, 90, 180])}M"
            n = rng.randrange(4)
            if n:
                e["attendees"] = [{"name": p[0], "email": p[1] + "@example.org"} for p in rng.sample(people, n)]
            f.write(json.dumps(e, sort_keys=True))
            f.write(",\n" if i < count - 1 else "\n")
        f.write("]\n")


if __name__ == "__main__":
    main()
