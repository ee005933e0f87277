#!/usr/bin/env python3
"""mock_anthropic — a stand-in for the Anthropic Messages API on loopback, for driving the
real Claude Code CLI through tool calls (tests/e2e/0600-agents.sh).

usage: mock_anthropic.py PORTFILE LOG COMMAND...
Listens on 127.0.0.1 (a free port, written to PORTFILE). Each request that offers the Bash
tool gets the next COMMAND as a Bash tool call; once they are used up, a text answer ends the
turn. Every tool_result the agent sends back is appended to LOG as one JSON line. Requests
without the Bash tool (titles, summaries) get a short text answer.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, LOG, COMMANDS = sys.argv[1], sys.argv[2], sys.argv[3:]
seen_results = set()


def tool_results(body):
    out = []
    for m in body.get("messages", []):
        if m.get("role") != "user" or not isinstance(m.get("content"), list):
            continue
        for c in m["content"]:
            if c.get("type") == "tool_result":
                text = c.get("content")
                if isinstance(text, list):
                    text = "".join(x.get("text", "") for x in text if isinstance(x, dict))
                out.append((c.get("tool_use_id"), text, bool(c.get("is_error"))))
    return out


def events(blocks, stop):
    msg = {"id": "msg_mock", "type": "message", "role": "assistant", "model": "mock",
           "content": [], "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 1, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": msg}
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "text_delta", "text": b["text"]}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {"type": "tool_use", "id": b["id"],
                                                            "name": b["name"], "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "input_json_delta",
                                                    "partial_json": json.dumps(b["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 1}}
    yield "message_stop", {"type": "message_stop"}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            body = {}
        if not self.path.split("?")[0].endswith("/v1/messages"):
            return self.do_GET()
        tools = [t.get("name") for t in body.get("tools", []) or []]
        results = tool_results(body)
        with open(LOG, "a") as f:
            for r in results:
                if r[0] not in seen_results:
                    seen_results.add(r[0])
                    f.write(json.dumps({"id": r[0], "output": r[1], "error": r[2]}) + "\n")
        if "Bash" in tools and len(results) < len(COMMANDS):
            k = len(results)
            blocks = [{"type": "tool_use", "id": "toolu_mock_%d" % k, "name": "Bash",
                       "input": {"command": COMMANDS[k], "description": "step %d" % k}}]
            stop = "tool_use"
        else:
            blocks = [{"type": "text", "text": "done"}]
            stop = "end_turn"
        if not body.get("stream"):
            data = json.dumps({"id": "msg_mock", "type": "message", "role": "assistant",
                               "model": "mock", "content": blocks, "stop_reason": stop,
                               "stop_sequence": None,
                               "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for ev, data in events(blocks, stop):
            self.wfile.write(("event: %s\ndata: %s\n\n" % (ev, json.dumps(data))).encode())
        self.wfile.flush()
        self.close_connection = True


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
