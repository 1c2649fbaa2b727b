#!/usr/bin/env python3
"""An exec source for calpipe: turns a room-booking system's records into events.

Here the records come from a JSON file named on the command line (a real plugin would call the booking
system's API, with a token from its environment: the pipeline's "env" option). Each event is one line of
calpipe's JSON event form on standard output; a record that cannot become an event is reported as
{"error": "reason"} and calpipe rejects it with that reason.
"""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    bookings = json.load(f)

for booking in bookings:
    if "from" not in booking:
        print(json.dumps({"error": f"booking {booking.get('id', '?')} has no start"}))
        continue
    print(json.dumps({
        "uid": f"booking-{booking['id']}@rooms.example.org",
        "title": booking["purpose"],
        "location": booking["room"],
        "start": booking["from"],
        "end": booking["to"],
        "timezone": "Europe/Berlin",
    }))
