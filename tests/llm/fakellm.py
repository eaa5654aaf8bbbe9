"""A fake OpenAI-compatible server for the tests: real HTTP on 127.0.0.1, scripted answers.

`FakeLLM()` starts a ThreadingHTTPServer on a free port serving POST /v1/chat/completions
(plain JSON, or server-sent events when the request says `stream`).  Each request takes
the next action from `script` (a list), or, when the script is empty, asks `responder`
(request JSON -> action).  Actions are dicts:

    {"text": "..."}                         an answer (usage counted from the lengths)
    {"status": 429, "headers": {...}}       an error status (body: an OpenAI error object)
    {"cut": True}                           headers promise a body that never comes
    {"garbage": True}                       status 200 with a body that is not JSON
    {"no_choices": True}                    status 200, valid JSON, an empty `choices` list
    {"text": "...", "delay": 5}             this answer only after 5 s (the fake's `delay`: all)
    {"text": "...", "cut_after": 2}         streaming: two chunks, then the connection drops

`requests` records every request (JSON body and headers) for the tests' assertions.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def usage_of(request: dict, text: str) -> dict:
    prompt = sum(len(m.get("content") or "") for m in request.get("messages", [])) // 4
    return {"prompt_tokens": prompt, "completion_tokens": len(text) // 4,
            "total_tokens": prompt + len(text) // 4}


class FakeLLM:
    def __init__(self, responder=None, script=None, port: int = 0):
        self.script = list(script or [])
        self.responder = responder
        self.requests: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self.delay = 0.0
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    request = json.loads(body)
                except ValueError:
                    request = {}
                with fake.lock:
                    fake.requests.append({"body": request, "headers": dict(self.headers),
                                          "path": self.path, "time": time.monotonic()})
                    action = fake.script.pop(0) if fake.script else None
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if action is None:
                        action = fake.responder(request) if fake.responder else {"status": 500}
                    if fake.delay or action.get("delay"):
                        time.sleep(action.get("delay") or fake.delay)
                    fake.answer(self, request, action)
                finally:
                    with fake.lock:
                        fake.in_flight -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- answers -------------------------------------------------------------------------
    def answer(self, h, request: dict, action: dict):
        if "status" in action:
            body = json.dumps({"error": {"message": action.get("message", "scripted error"),
                                         "type": "server_error"}}).encode()
            h.send_response(action["status"])
            for k, v in action.get("headers", {}).items():
                h.send_header(k, v)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        if action.get("cut"):
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", "5000")
            h.end_headers()
            h.wfile.write(b'{"id": "x", "choi')
            h.wfile.flush()
            h.close_connection = True
            return
        if action.get("garbage"):
            body = b"<html>this is not JSON"
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        if action.get("no_choices"):
            body = json.dumps({"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                               "model": request.get("model", "fake"), "choices": [],
                               "usage": usage_of(request, "")}).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        text = action["text"]
        usage = usage_of(request, text)
        model = request.get("model", "fake")
        if request.get("stream"):
            self.stream(h, model, text, usage, action.get("cut_after"))
            return
        body = json.dumps({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": action.get("finish_reason", "stop")}],
            "usage": usage}).encode()
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def stream(self, h, model, text, usage, cut_after):
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True
        pieces = [text[i:i + 200] for i in range(0, len(text), 200)] or [""]

        def event(obj):
            h.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
            h.wfile.flush()

        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}
        for i, piece in enumerate(pieces):
            if cut_after is not None and i >= cut_after:
                return                                           # the connection just ends
            event({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        event({**base, "choices": [], "usage": usage})
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()
