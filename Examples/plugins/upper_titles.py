#!/usr/bin/env python3
"""An exec stage for calpipe: upper-cases every event's title.

calpipe writes one event per line (its JSON event form) and reads one answer per line, in order:
the event (changed or not), a list of events, null to drop it, or {"error": "reason"} to reject it.
Flush after each answer: calpipe sends the next events while it reads the answers.
"""
import json
import sys

for line in sys.stdin:
    event = json.loads(line)
    if not event.get("title"):
        print(json.dumps({"error": "the event has no title"}), flush=True)
        continue
    event["title"] = event["title"].upper()
    print(json.dumps(event), flush=True)
