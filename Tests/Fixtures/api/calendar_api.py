#!/usr/bin/env python3
"""A small calendar service for the library tests of docs/architecture.md ("A source that talks to an API", "A sink
that writes to a server"), on 127.0.0.1 only. It keeps its data in memory and changes it as a real service would.

Started by Tests/LibraryTests/CalendarAPIServer.swift as `python3 calendar_api.py`; it prints "PORT <n>" and serves
until its standard input closes (the test process ends) or 15 minutes pass.

The API a source reads (the shape of Google Calendar's events.list, made small):
  GET /v1/events?page_size=N                 every event, in pages of N (ordered by id)
  GET /v1/events?sync_token=T&page_size=N    what changed since T: changed and new events, and deleted ones as
                                             {"id": ..., "deleted": true}; 410 Gone when T is unknown
  GET /v1/events?page_token=P                the next page of either listing
  Each answer: {"items": [...], "next_page_token": P} until the last page, which has {"next_sync_token": T}.
  An event: {"id", "title", "start", "end"} (RFC 3339 texts).

The store a sink writes to (one resource per UID, like a CalDAV collection):
  PUT /v1/store/UID     with If-None-Match: * creates (412 when it exists); with If-Match: ETAG replaces
                        (412 when the resource's ETag differs or it is missing). 201 created, 204 replaced; ETag.
  DELETE /v1/store/UID  with If-Match: ETAG (412 when it differs); 204, or 404 when there is none.

Control endpoints (the tests' hands, never calpipe's), all POST with a JSON body:
  /__control/event   {"id", "title", "start", "end"} adds or changes an event; {"id", "deleted": true} deletes it
  /__control/edit    {"uid", "body"} someone else changes a stored resource (its ETag changes)
  /__control/fail    {"method": "PUT", "status": 503} answers every such request with that status; {} stops
  /__control/store   answers the store: {UID: {"etag", "body"}}
  /__control/log     answers the requests served so far: [{"method", "path", "query", "headers", "body"}]
"""
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
EVENTS = {}   # id -> {"event": {...}, "seq": n} or {"deleted": True, "seq": n}
SEQ = [0]
STORE = {}    # uid -> {"etag", "body"}
ETAGS = [0]
FAIL = {}     # method -> status
LOG = []


def bump():
    SEQ[0] += 1
    return SEQ[0]


def new_etag():
    ETAGS[0] += 1
    return '"v%d"' % ETAGS[0]


def listing(since, high):
    """The items of a listing: every live event by id (since None), else what changed after `since` by change."""
    if since is None:
        return [EVENTS[k]["event"] for k in sorted(EVENTS) if not EVENTS[k].get("deleted") and EVENTS[k]["seq"] <= high]
    changed = sorted((v["seq"], k) for k, v in EVENTS.items() if since < v["seq"] <= high)
    return [{"id": k, "deleted": True} if EVENTS[k].get("deleted") else EVENTS[k]["event"] for _, k in changed]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def answer(self, status, value=None, headers=None):
        """Answers `value` as JSON (a str: as plain text; None: no body)."""
        text = isinstance(value, str)
        body = b"" if value is None else value.encode() if text else json.dumps(value).encode()
        self.send_response_only(status)
        for name, header in (headers or {}).items():
            self.send_header(name, header)
        if value is not None:
            self.send_header("Content-Type", "text/plain" if text else "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        self.serve("GET", b"")

    def do_PUT(self):
        self.serve("PUT", self.body())

    def do_DELETE(self):
        self.serve("DELETE", self.body())

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        spec = json.loads(self.body() or b"{}")
        with LOCK:
            if url.path == "/__control/event":
                if spec.get("deleted"):
                    EVENTS[spec["id"]] = {"deleted": True, "seq": bump()}
                else:
                    EVENTS[spec["id"]] = {"event": spec, "seq": bump()}
                return self.answer(200, {})
            if url.path == "/__control/edit":
                STORE[spec["uid"]] = {"etag": new_etag(), "body": spec["body"]}
                return self.answer(200, {})
            if url.path == "/__control/fail":
                FAIL.clear()
                if spec:
                    FAIL[spec["method"]] = spec["status"]
                return self.answer(200, {})
            if url.path == "/__control/store":
                return self.answer(200, STORE)
            if url.path == "/__control/log":
                return self.answer(200, LOG)
        self.answer(404, {"error": "no such control endpoint"})

    def serve(self, method, body):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        headers = {k.lower(): v for k, v in self.headers.items()}
        with LOCK:
            LOG.append({"method": method, "path": url.path, "query": urllib.parse.unquote(url.query), "headers": headers,
                        "body": body.decode("utf-8", "replace")})
            if method in FAIL:
                return self.answer(FAIL[method], "the service is unavailable")
            if method == "GET" and url.path == "/v1/events":
                return self.events(query)
            if url.path.startswith("/v1/store/"):
                return self.store(method, urllib.parse.unquote(url.path[len("/v1/store/"):]), headers, body)
        self.answer(404, {"error": "not found"})

    def events(self, query):
        def one(name):
            return query.get(name, [None])[0]
        if one("page_token"):
            # "since:high:offset:size": the listing the first page started, and where the next page begins.
            since, high, offset, size = one("page_token").split(":")
            since, high, offset, size = (None if since == "-" else int(since)), int(high), int(offset), int(size)
        else:
            token = one("sync_token")
            if token is not None and (not token.startswith("s") or not token[1:].isdigit() or int(token[1:]) > SEQ[0]):
                return self.answer(410, {"error": "the sync token is not valid; list everything again"})
            since = None if token is None else int(token[1:])
            high, offset, size = SEQ[0], 0, int(one("page_size") or 100)
        items = listing(since, high)
        page = {"items": items[offset:offset + size]}
        if offset + size < len(items):
            page["next_page_token"] = "%s:%d:%d:%d" % ("-" if since is None else since, high, offset + size, size)
        else:
            page["next_sync_token"] = "s%d" % high
        self.answer(200, page)

    def store(self, method, uid, headers, body):
        current = STORE.get(uid)
        if method == "PUT":
            if headers.get("if-none-match") == "*" and current is not None:
                return self.answer(412, {"error": "the resource exists"})
            if "if-match" in headers and (current is None or current["etag"] != headers["if-match"]):
                return self.answer(412, {"error": "the resource changed"})
            etag = new_etag()
            STORE[uid] = {"etag": etag, "body": body.decode()}
            return self.answer(201 if current is None else 204, None, {"ETag": etag})
        if method == "DELETE":
            if current is None:
                return self.answer(404, {"error": "no such resource"})
            if "if-match" in headers and current["etag"] != headers["if-match"]:
                return self.answer(412, {"error": "the resource changed"})
            del STORE[uid]
            return self.answer(204)
        self.answer(405, {"error": "method not allowed"})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("PORT %d" % server.server_address[1], flush=True)

    def stop_when_parent_goes():
        sys.stdin.read()
        server.shutdown()

    threading.Thread(target=stop_when_parent_goes, daemon=True).start()
    threading.Timer(900, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
