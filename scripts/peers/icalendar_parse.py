#!/usr/bin/env python3
"""python icalendar peer for scripts/bench, task (a): parse an .ics file into components, count VEVENTs.

    python3 scripts/peers/icalendar_parse.py FILE      -> "events N"
"""
import sys

import icalendar

with open(sys.argv[1], "rb") as f:
    cal = icalendar.Calendar.from_ical(f.read())
print(f"events {len(cal.walk('VEVENT'))}")
