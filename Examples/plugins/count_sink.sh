#!/bin/sh
# An exec sink for calpipe, in shell: counts the events it is given and says each one was "created".
# calpipe writes one JSON event per line on standard input and closes it at the end; a line
# {"uid": "...", "outcome": "created"} on standard output reports a record's outcome.
count=0
while IFS= read -r line; do
  uid=$(printf '%s\n' "$line" | sed -n 's/.*"uid" *: *"\([^"]*\)".*/\1/p')
  printf '{"uid": "%s", "outcome": "created"}\n' "$uid"
  count=$((count + 1))
done
