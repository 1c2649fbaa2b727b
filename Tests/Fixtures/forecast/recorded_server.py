#!/usr/bin/env python3
"""A small HTTP server for calpipe's forecast and feed tests: it serves recorded responses (files in this
folder, with the exact shape of the real services' answers) on 127.0.0.1 only.

Started by Tests/ForecastTests/RecordedServer.swift as `python3 recorded_server.py`; it prints "PORT <n>" and
serves until its standard input closes (the test process ends) or 15 minutes pass.

Control endpoints (used by the tests, never by calpipe):
  POST /__control/route  {"path": "/v1/forecast", "query_contains": "name=Berlin" (optional),
                          "responses": [{"status": 200, "headers": {...}, "body_file": "x.json" | "body": "...",
                                         "delay": 0.0, "stall": 0.0, "etag": "\"v1\"", "last_modified": "..."}]}
        Requests to the path (whose decoded query contains the text) get the responses in turn; the last one
        repeats. "delay" waits before answering; "stall" sends the headers and half the body, then waits. A response with "etag" / "last_modified" answers 304 to a matching If-None-Match /
        If-Modified-Since. A response with "require": {"authorization": "Bearer x"} answers 401 (with
        WWW-Authenticate) unless every listed request header has exactly that value. A response with
        "expect": {"query": {"name": "value" | null}, "headers": {"name": "value"}} answers 400 with a JSON
        {"error": {"message": "unexpected request: ..."}} unless every listed query parameter has exactly that
        (decoded) value, or is absent for null, and every listed header has exactly that value. "method"
        (optional) limits a route to one method. Later routes for the same path are tried first.
        "{{base}}" in a body is replaced by the server's own address (http://127.0.0.1:PORT), for the
        absolute next-page links some APIs answer with.
  POST /__control/reset  forget routes and the request log
  GET  /__control/log    the requests served so far: [{"method", "path", "query", "headers", "body", "at"}]
                         ("at": when it arrived, seconds on the server's monotonic clock)
Any method (GET, HEAD, POST, PUT, PATCH, DELETE, PROPFIND, REPORT) is served from the routes; request bodies are logged as text.
"""
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIXTURES = os.path.dirname(os.path.abspath(__file__))
LOCK = threading.Lock()
ROUTES = []  # [{"path", "query_contains", "responses", "index"}], newest first
LOG = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, no delayed-ACK stalls

    def log_message(self, *args):
        pass

    def send(self, status, headers, body, stall=None):
        # Like send_response, but a recorded Date header replaces the server's own.
        self.send_response_only(status)
        self.send_header("Server", "calpipe-recorded-server")
        if not any(name.lower() == "date" for name in headers):
            self.send_header("Date", self.date_time_string())
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and stall:
            # Headers and the first half now, the rest after a pause (a server that stalls mid-answer).
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            time.sleep(stall)
            self.wfile.write(body[len(body) // 2:])
        elif body:
            self.wfile.write(body)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        body = self.read_body()
        if url.path == "/__control/route":
            spec = json.loads(body)
            with LOCK:
                ROUTES.insert(0, {"path": spec["path"], "query_contains": spec.get("query_contains"),
                                  "method": spec.get("method"), "responses": spec["responses"], "index": 0})
            return self.send(200, {"Content-Type": "application/json"}, b"{}")
        if url.path == "/__control/reset":
            with LOCK:
                ROUTES.clear()
                LOG.clear()
            return self.send(200, {"Content-Type": "application/json"}, b"{}")
        return self.serve("POST", body)

    def do_PUT(self):
        self.serve("PUT", self.read_body())

    def do_PATCH(self):
        self.serve("PATCH", self.read_body())

    def do_DELETE(self):
        self.serve("DELETE", self.read_body())

    def do_PROPFIND(self):
        self.serve("PROPFIND", self.read_body())

    def do_REPORT(self):
        self.serve("REPORT", self.read_body())

    def do_HEAD(self):
        self.serve("HEAD", b"")

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/__control/log":
            with LOCK:
                data = json.dumps(LOG).encode()
            return self.send(200, {"Content-Type": "application/json"}, data)
        self.serve("GET", b"")

    def serve(self, method, request_body):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.unquote(url.query)
        headers = {k.lower(): v for k, v in self.headers.items()}
        with LOCK:
            LOG.append({"method": method, "path": url.path, "query": query, "headers": headers,
                        "body": request_body.decode("utf-8", "replace"), "at": time.monotonic()})
            route = next((r for r in ROUTES if r["path"] == url.path
                          and (r.get("method") is None or r["method"] == method)
                          and (r["query_contains"] is None or r["query_contains"] in query)), None)
            if route is not None:
                response = route["responses"][min(route["index"], len(route["responses"]) - 1)]
                route["index"] += 1
        if route is None:
            reason = json.dumps({"error": True, "reason": "no recorded response for " + url.path}).encode()
            return self.send(404, {"Content-Type": "application/json"}, reason)
        if response.get("delay"):
            time.sleep(response["delay"])
        problem = unexpected(response.get("expect") or {}, url.query, headers)
        if problem:
            body = json.dumps({"error": {"code": 400, "message": "unexpected request: " + problem}}).encode()
            return self.send(400, {"Content-Type": "application/json"}, body)
        required = response.get("require") or {}
        if any(headers.get(name.lower()) != value for name, value in required.items()):
            return self.send(401, {"WWW-Authenticate": 'Basic realm="calendar"', "Content-Type": "text/plain"},
                             b"login required")
        out_headers = dict(response.get("headers", {}))
        etag = response.get("etag")
        last_modified = response.get("last_modified")
        if etag:
            out_headers["ETag"] = etag
        if last_modified:
            out_headers["Last-Modified"] = last_modified
        if (etag and headers.get("if-none-match") == etag) or \
                (last_modified and not etag and headers.get("if-modified-since") == last_modified):
            out_headers.pop("Content-Type", None)
            return self.send(304, out_headers, b"")
        if "body_file" in response:
            with open(os.path.join(FIXTURES, response["body_file"]), "rb") as f:
                body = f.read()
        else:
            body = response.get("body", "").encode()
        body = body.replace(b"{{base}}", ("http://127.0.0.1:%d" % self.server.server_address[1]).encode())
        if method == "HEAD":
            body = b""
        try:
            self.send(response.get("status", 200), out_headers, body, stall=response.get("stall"))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests)


def unexpected(expect, raw_query, headers):
    """What differs between a request and a response's "expect" (None when nothing does)."""
    query = urllib.parse.parse_qs(raw_query, keep_blank_values=True)
    for name, value in (expect.get("query") or {}).items():
        got = query.get(name)
        if value is None and got is not None:
            return "query parameter %s=%s was not expected" % (name, got[0])
        if value is not None and got != [value]:
            return "query parameter %s is %s, expected %r" % (name, got, value)
    for name, value in (expect.get("headers") or {}).items():
        if headers.get(name.lower()) != value:
            return "header %s is %r, expected %r" % (name, headers.get(name.lower()), value)
    return None


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("PORT %d" % server.server_address[1], flush=True)

    def stop_when_parent_goes():
        sys.stdin.read()  # returns at end of input: the test process closed the pipe or ended
        server.shutdown()

    threading.Thread(target=stop_when_parent_goes, daemon=True).start()
    threading.Timer(900, server.shutdown).start()
    server.serve_forever()
    os._exit(0)


if __name__ == "__main__":
    main()
