"""Small misbehaving HTTP servers on 127.0.0.1 for the fault tests, run in a thread of the test.

``serve(Handler)`` starts a ThreadingHTTPServer on a free port and stops it on exit; each
handler class records what it received in ``Handler.seen`` (method, path, headers).
"""
from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chat_reply(content: str, finish_reason: str = "stop") -> dict:
    """A chat-completions reply holding ``content``."""
    return {"id": "x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


class Recorder(BaseHTTPRequestHandler):
    """Records every request; subclasses answer them."""

    seen: list[tuple[str, str, dict]]

    def log_message(self, *args) -> None:
        pass

    def _record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        type(self).seen.append((self.command, self.path, dict(self.headers)))

    def send_json(self, code: int, body: dict, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802
        self._record()
        self.answer()

    def do_GET(self) -> None:  # noqa: N802
        self._record()
        self.answer()

    def answer(self) -> None:
        self.send_json(200, chat_reply("<answer>aunt</answer>"))


def handler(base: type = Recorder, **attrs) -> type:
    """A fresh subclass of ``base`` with its own ``seen`` list and the given attributes."""
    return type("Handler", (base,), {"seen": [], **attrs})


class Redirect(Recorder):
    """Answers every request with ``code`` and a Location at ``target``."""

    code = 307
    target = ""

    def answer(self) -> None:
        self.send_json(self.code, {"moved": True}, {"Location": self.target + self.path})


class Trickle(Recorder):
    """Sends the status line and headers, then one byte every ``every`` seconds for ``total`` seconds."""

    every = 0.5
    total = 30.0
    headers_too = False

    def answer(self) -> None:
        body = json.dumps(chat_reply("<answer>aunt</answer>")).encode() + b" " * 10_000
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        out = head + body
        start = 0 if self.headers_too else len(head)
        try:
            self.wfile.write(out[:start])
            self.wfile.flush()
            deadline = time.monotonic() + self.total
            for i in range(start, len(out)):
                if time.monotonic() > deadline:
                    return
                self.wfile.write(out[i:i + 1])
                self.wfile.flush()
                time.sleep(self.every)
        except OSError:
            return


class GoodThenBad(Recorder):
    """Answers the first ``good`` requests properly, then with ``bad`` (no message object)."""

    good = 3
    bad: dict = {"choices": [{"index": 0, "finish_reason": "stop"}]}
    filler = ""
    lock = threading.Lock()

    def answer(self) -> None:
        with self.lock:
            n = len(type(self).seen)
        if n <= self.good:
            self.send_json(200, chat_reply(f"<think>{self.filler}</think><answer>aunt</answer>"))
        else:
            self.send_json(200, self.bad)


@contextlib.contextmanager
def serve(handler_cls: type):
    """Run ``handler_cls`` on 127.0.0.1 (a free port); yields the base URL ``http://127.0.0.1:PORT``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
