#!/usr/bin/env python3
"""mock_gemini — a stand-in for the Gemini API (generativelanguage v1beta) on loopback, for
driving the real Gemini CLI through tool calls (tests/e2e/0610-agents-codex-gemini.sh).

usage: mock_gemini.py PORTFILE LOG COMMAND...
Listens on 127.0.0.1 (a free port, written to PORTFILE). Each generateContent or
streamGenerateContent request that offers run_shell_command gets the next COMMAND as a
functionCall of it; once they are used up, a text "done" ends the turn. Every functionResponse
the CLI sends back is appended to LOG as one JSON line {"id", "output"}. Requests without the
tool (its model router, titles) get a JSON text answer.
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, LOG, COMMANDS = sys.argv[1], sys.argv[2], sys.argv[3:]
seen = set()


def responses(body):
    out = []
    for c in body.get("contents", []) or []:
        for p in c.get("parts", []) or []:
            fr = p.get("functionResponse") if isinstance(p, dict) else None
            if fr:
                r = fr.get("response", {})
                text = r.get("output", r.get("error", json.dumps(r))) if isinstance(r, dict) else r
                out.append((fr.get("id") or "n%d" % len(out), text))
    return out


def tool_names(body):
    names = []
    for t in body.get("tools", []) or []:
        for f in t.get("functionDeclarations", []) or []:
            names.append(f.get("name"))
    return names


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, data, ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.reply(404, b"{}")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith(":countTokens"):
            return self.reply(200, b'{"totalTokens": 1}')
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            return self.reply(404, b"{}")
        done = responses(body)
        with open(LOG, "a") as f:
            for rid, text in done:
                if rid not in seen:
                    seen.add(rid)
                    f.write(json.dumps({"id": rid, "output": text}) + "\n")
        k = len(done)
        if "run_shell_command" in tool_names(body) and k < len(COMMANDS):
            parts = [{"functionCall": {"id": "call_mock_%d" % k, "name": "run_shell_command",
                                       "args": {"command": COMMANDS[k],
                                                "description": "step %d" % k}}}]
        elif "run_shell_command" in tool_names(body):
            parts = [{"text": "done"}]
        else:  # the model router and other side requests: a JSON answer
            parts = [{"text": json.dumps({"reasoning": "mock", "model_choice": "flash",
                                          "complexity_reasoning": "mock",
                                          "complexity_score": 1})}]
        msg = {"candidates": [{"content": {"role": "model", "parts": parts},
                               "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                                 "totalTokenCount": 2},
               "modelVersion": "mock"}
        if path.endswith(":streamGenerateContent"):
            self.reply(200, ("data: %s\n\n" % json.dumps(msg)).encode(), "text/event-stream")
        else:
            self.reply(200, json.dumps(msg).encode())


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
