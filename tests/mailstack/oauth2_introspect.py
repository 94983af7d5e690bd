#!/usr/bin/env python3
"""A token introspection endpoint (RFC 7662) for the loopback mail stack.

Usage: oauth2_introspect.py STATE_DIR
Listens on 127.0.0.1 on a free port, which it writes to STATE_DIR/port once
it is ready. A POST with token=T answers {"active": true, "username": U}
when STATE_DIR/tokens has a line "T U", else {"active": false}; the file is
read at every request, so a test can revoke or add tokens while it runs.
Each token asked about is appended to STATE_DIR/asked (one per line).
"""
import http.server
import json
import os
import sys
import urllib.parse

state = sys.argv[1]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        token = (form.get("token") or [""])[0]
        with open(os.path.join(state, "asked"), "a", encoding="utf-8") as f:
            f.write(token + "\n")
        answer = {"active": False}
        try:
            with open(os.path.join(state, "tokens"), encoding="utf-8") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == token:
                        answer = {"active": True, "username": parts[1]}
        except FileNotFoundError:
            pass
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(os.path.join(state, "port.tmp"), "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(state, "port.tmp"), os.path.join(state, "port"))
server.serve_forever()
