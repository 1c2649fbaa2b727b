#!/usr/bin/env python3
"""Prints the events of an iCalendar file as python icalendar reads them, for Tests/ServeTests: one JSON list of
[uid, summary] pairs, sorted. Exits 1 with the parser's message when the file does not parse."""
import json
import sys

import icalendar

with open(sys.argv[1], "rb") as f:
    calendar = icalendar.Calendar.from_ical(f.read())
events = sorted([str(e.get("UID")), str(e.get("SUMMARY"))] for e in calendar.walk("VEVENT"))
print(json.dumps(events))
