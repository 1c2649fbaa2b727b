#!/usr/bin/env python3
"""Generates data/agenda.json, the bundled sample agenda (calpipe's own JSON event format).

About 50 events over six weeks (2026-10-12 to 2026-11-22, Europe/Berlin): timed meetings with locations
and attendees, all-day holidays, multi-day trips and conferences, events crossing midnight and the DST
change of 2026-10-25, and one meeting with 12 attendees. Deterministic (fixed seed): run
`python3 scripts/gen-sample-agenda.py > data/agenda.json` to regenerate.
"""
import datetime as dt
import json
import random

rng = random.Random(20261012)
people = [
    ("Anna Schmidt", "anna@example.org"), ("Ben Okafor", "ben@example.org"), ("Chiara Rossi", "chiara@example.org"),
    ("Daniel Weber", "daniel@example.org"), ("Emma Lindqvist", "emma@example.org"), ("Farid Haddad", "farid@example.org"),
    ("Greta Müller", "greta@example.org"), ("Hiro Tanaka", "hiro@example.org"), ("Ines García", "ines@example.org"),
    ("Jonas Becker", "jonas@example.org"), ("Karin Nowak", "karin@example.org"), ("Luca Bianchi", "luca@example.org"),
]
places = [
    ("Room Spree, Alexanderplatz 1, Berlin", 52.5219, 13.4132),
    ("Café Müller, Oranienstraße 12, Berlin", 52.5013, 13.4190),
    ("Hamburg Office, Jungfernstieg 7", 53.5530, 9.9925),
    ("München Messe", 48.1366, 11.6975),
    ("Online", None, None),
]
colors = ["#1E88E5", "#43A047", "#E53935", "#8E24AA", "#FB8C00", "#00897B"]
topics = ["Stand-up", "Design review", "1:1", "Sprint planning", "Customer call", "Budget review",
          "Hiring panel", "Architecture sync", "Lunch & learn", "Retro", "Release check", "Vendor meeting"]

events = []
start_day = dt.date(2026, 10, 12)
n = 0

def add(e):
    global n
    n += 1
    e.setdefault("uid", f"sample-{n:03d}@calpipe.example")
    events.append(e)

# Timed meetings on weekdays.
for week in range(6):
    for weekday in range(5):
        day = start_day + dt.timedelta(days=7 * week + weekday)
        for _ in range(2 if rng.random() < 0.3 else 1):
            hour = rng.choice([9, 10, 11, 13, 14, 15, 16])
            minutes = rng.choice([30, 45, 60, 90])
            place = rng.choice(places)
            attendees = rng.sample(people, rng.randint(2, 5))
            e = {
                "title": rng.choice(topics),
                "start": f"{day.isoformat()}T{hour:02d}:{rng.choice([0, 30]):02d}:00",
                "duration": f"PT{minutes // 60}H{minutes % 60}M" if minutes % 60 else f"PT{minutes // 60}H",
                "timezone": "Europe/Berlin",
                "location": place[0],
                "color": rng.choice(colors),
                "organizer": {"name": attendees[0][0], "email": attendees[0][1]},
                "attendees": [{"name": p[0], "email": p[1], "role": "REQ-PARTICIPANT",
                               "status": rng.choice(["ACCEPTED", "TENTATIVE", "NEEDS-ACTION"])} for p in attendees[1:]],
            }
            if place[1] is not None:
                e["geo"] = {"latitude": place[1], "longitude": place[2]}
            add(e)

# All-day holidays (DTEND exclusive).
add({"title": "Reformation Day (Brandenburg)", "start": "2026-10-31", "end": "2026-11-01", "categories": ["holiday"], "color": "#9E9E9E"})
add({"title": "All Saints' Day (Bavaria)", "start": "2026-11-01", "end": "2026-11-02", "categories": ["holiday"], "color": "#9E9E9E"})
add({"title": "Team offsite", "start": "2026-11-03", "end": "2026-11-06", "location": "Hamburg Office, Jungfernstieg 7",
     "geo": {"latitude": 53.553, "longitude": 9.9925}, "categories": ["travel"], "color": "#F4511E"})
# Multi-day timed: a conference across the DST change (clocks go back on 2026-10-25 at 03:00).
add({"title": "CalDev Conference", "start": "2026-10-23T09:00:00", "end": "2026-10-26T17:00:00", "timezone": "Europe/Berlin",
     "location": "München Messe", "geo": {"latitude": 48.1366, "longitude": 11.6975}, "categories": ["conference"], "color": "#3949AB"})
# Crossing midnight.
add({"title": "Night train to Munich", "start": "2026-10-22T22:15:00", "end": "2026-10-23T06:40:00", "timezone": "Europe/Berlin",
     "location": "Berlin Hbf", "geo": {"latitude": 52.5251, "longitude": 13.3694}, "categories": ["travel"]})
add({"title": "Release night", "start": "2026-11-12T22:00:00", "end": "2026-11-13T02:00:00", "timezone": "Europe/Berlin", "location": "Online"})
# A flight written in UTC.
add({"title": "Flight BER-LIS", "start": "2026-11-16T06:05:00Z", "end": "2026-11-16T09:50:00Z", "location": "Berlin Brandenburg Airport",
     "geo": {"latitude": 52.3667, "longitude": 13.5033}, "categories": ["travel"]})
add({"title": "Lisbon trip", "start": "2026-11-16", "end": "2026-11-20", "location": "Lisbon", "geo": {"latitude": 38.7223, "longitude": -9.1393},
     "categories": ["travel"], "color": "#F4511E"})
# One meeting with 12 attendees.
add({"title": "All-hands", "start": "2026-11-10T15:00:00", "end": "2026-11-10T16:30:00", "timezone": "Europe/Berlin",
     "location": "Room Spree, Alexanderplatz 1, Berlin", "geo": {"latitude": 52.5219, "longitude": 13.4132}, "color": "#D81B60",
     "organizer": {"name": people[0][0], "email": people[0][1]},
     "attendees": [{"name": p[0], "email": p[1], "role": "REQ-PARTICIPANT", "status": "ACCEPTED"} for p in people]})
# Recurring: a weekly jour fixe (expanded by the expand stage), with one cancelled week.
add({"title": "Jour fixe", "start": "2026-10-13T08:30:00", "duration": "PT30M", "timezone": "Europe/Berlin",
     "rrule": "FREQ=WEEKLY;BYDAY=TU;COUNT=6", "exdate": ["2026-11-03T08:30:00"], "location": "Online"})
# A floating reminder (same wall-clock time wherever you are).
add({"title": "Water the plants", "start": "2026-10-18T19:00:00", "duration": "PT15M", "all_day": False})
# A birthday, all-day, recurring yearly.
add({"title": "Greta's birthday", "start": "2026-11-08", "rrule": "FREQ=YEARLY", "categories": ["birthday"]})

json.dump(events, __import__("sys").stdout, indent=2, ensure_ascii=False)
print()
