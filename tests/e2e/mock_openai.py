#!/usr/bin/env python3
"""mock_openai — a stand-in for the OpenAI Responses API on loopback, for driving the real
Codex CLI through tool calls (tests/e2e/0610-agents-codex-gemini.sh).

usage: mock_openai.py PORTFILE LOG COMMAND...
Listens on 127.0.0.1 (a free port, written to PORTFILE). Each POST /v1/responses that offers
a shell tool (exec_command, shell_command or shell, as Codex's version names it) gets the next
COMMAND as a call of that tool, streamed as Codex parses it (response.created,
response.output_item.done with a function_call item, response.completed); once they are used
up, an assistant message "done" ends the turn. Every function_call_output Codex sends back is
appended to LOG as one JSON line {"id", "output"}. Anything else gets {} or a 404.
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, LOG, COMMANDS = sys.argv[1], sys.argv[2], sys.argv[3:]
SHELL = os.environ.get("MOCK_SHELL")  # the exec_command shell argument, when set
SHELL_TOOLS = ("exec_command", "shell_command", "shell")
seen = set()


def tool_args(name, cmd):
    if name == "exec_command":
        a = {"cmd": cmd, "yield_time_ms": 10000}
        if SHELL:
            a["shell"] = SHELL
        return a
    if name == "shell_command":
        return {"command": cmd}
    return {"command": ["bash", "-lc", cmd]}


def outputs(body):
    out = []
    for it in body.get("input", []) or []:
        if isinstance(it, dict) and it.get("type") == "function_call_output":
            o = it.get("output")
            if isinstance(o, dict):
                o = o.get("content", json.dumps(o))
            elif isinstance(o, list):
                o = "".join(x.get("text", "") for x in o if isinstance(x, dict))
            out.append((it.get("call_id"), o))
    return out


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
        if self.path.split("?")[0].endswith("/models"):
            return self.reply(200, b'{"object":"list","data":[],"models":[]}')
        self.reply(404, b"{}")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if not self.path.split("?")[0].endswith("/responses"):
            return self.reply(404, b"{}")
        names = [t.get("name") for t in body.get("tools", []) or [] if isinstance(t, dict)]
        tool = next((t for t in SHELL_TOOLS if t in names), None)
        done = outputs(body)
        with open(LOG, "a") as f:
            for cid, text in done:
                if cid not in seen:
                    seen.add(cid)
                    f.write(json.dumps({"id": cid, "output": text}) + "\n")
        k = len(done)
        if tool and k < len(COMMANDS):
            item = {"type": "function_call", "id": "fc_mock_%d" % k, "call_id": "call_mock_%d" % k,
                    "name": tool, "arguments": json.dumps(tool_args(tool, COMMANDS[k]))}
        else:
            item = {"type": "message", "id": "msg_mock_%d" % k, "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        rid = "resp_mock_%d" % k
        evs = [{"type": "response.created", "response": {"id": rid}},
               {"type": "response.output_item.added", "output_index": 0, "item": item},
               {"type": "response.output_item.done", "output_index": 0, "item": item},
               {"type": "response.completed",
                "response": {"id": rid, "usage": {"input_tokens": 1, "input_tokens_details": None,
                                                  "output_tokens": 1,
                                                  "output_tokens_details": None,
                                                  "total_tokens": 2}}}]
        data = "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in evs)
        self.reply(200, data.encode(), "text/event-stream")


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
