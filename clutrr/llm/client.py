"""A client for OpenAI-compatible chat-completions servers, with a resumable response cache.

``ChatClient(url, model).complete_many(prompts)`` sends each prompt (a list of chat
messages) as ``POST {url}/chat/completions``, with a timeout per request, bounded retries
with exponential back-off on connection errors, timeouts, 429 and 5xx answers (honouring
``Retry-After``), and at most ``concurrency`` requests in flight. Every answer is appended
to a :class:`ResponseCache` (a JSONL file, flushed and synced line by line) as soon as it
arrives, so an interrupted run loses nothing it paid for and a rerun asks only for the
prompts not yet answered. The cache key is the request body (model, messages, sampling
settings), not the URL, so a restarted or moved server reuses the answers.
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

Messages = list[dict[str, str]]


class EndpointError(RuntimeError):
    """The server could not be reached or refused a request; the message is one line."""


@dataclass
class ChatSettings:
    """Connection and sampling settings of a chat-completions client."""

    url: str
    model: str
    timeout: float = 60.0
    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    concurrency: int = 4
    temperature: float = 0.0
    max_tokens: int = 512
    api_key: str | None = None
    extra: dict = field(default_factory=dict)  # more request fields, e.g. {"seed": 0}

    @property
    def endpoint(self) -> str:
        """The full chat-completions URL."""
        base = self.url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"

    def body(self, messages: Messages) -> dict:
        """The request body for ``messages``."""
        return {"model": self.model, "messages": messages, "temperature": self.temperature,
                "max_tokens": self.max_tokens, **self.extra}


def request_key(body: dict) -> str:
    """The cache key of a request body: a hash of its canonical JSON."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ResponseCache:
    """Answers by request key, kept in an append-only JSONL file.

    A line is ``{"key": ..., "model": ..., "content": ..., "usage": ...}``. A torn last
    line (a crash mid-write) is ignored on reading. Safe to share between threads.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._entries: dict[str, dict] = {}
        if self.path.is_file():
            with open(self.path, encoding="utf-8") as fh:
                for line in fh:
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if isinstance(rec, dict) and "key" in rec:
                        self._entries[rec["key"]] = rec

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get(self, key: str) -> dict | None:
        """The cached record for ``key``, or None."""
        return self._entries.get(key)

    def put(self, key: str, record: dict) -> None:
        """Store ``record`` under ``key`` and write it to disk before returning."""
        rec = {"key": key, **record}
        line = json.dumps(rec, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
            self._entries[key] = rec


def default_cache_path(model: str) -> Path:
    """``$CLUTRR_CACHE`` or ``~/.cache/clutrr/llm``, one file per model name."""
    root = Path(os.environ.get("CLUTRR_CACHE") or Path.home() / ".cache" / "clutrr" / "llm")
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in model) or "model"
    return root / f"{safe}.jsonl"


class ChatClient:
    """Send chat prompts to one model of an OpenAI-compatible server, through a cache."""

    def __init__(self, settings: ChatSettings, cache: ResponseCache | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if settings.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if settings.retries < 0 or settings.timeout <= 0 or settings.backoff < 0:
            raise ValueError("retries and backoff must be non-negative and timeout positive")
        self.settings = settings
        self.cache = cache if cache is not None else ResponseCache(default_cache_path(settings.model))
        self.sleep = sleep
        self.requests_sent = 0
        self._count_lock = threading.Lock()

    def _post(self, body: dict) -> dict:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        req = urllib.request.Request(self.settings.endpoint, data=data, headers=headers, method="POST")
        with self._count_lock:
            self.requests_sent += 1
        with urllib.request.urlopen(req, timeout=self.settings.timeout) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def _ask(self, body: dict) -> dict:
        """One request with retries; returns the cache record. Raises EndpointError."""
        s = self.settings
        problem = ""
        for attempt in range(s.retries + 1):
            wait = min(s.max_backoff, s.backoff * 2 ** attempt)
            try:
                answer = self._post(body)
                message = answer["choices"][0]["message"]
                return {"model": s.model, "content": message.get("content") or "", "usage": answer.get("usage")}
            except urllib.error.HTTPError as exc:
                detail = _error_text(exc)
                if exc.code != 429 and exc.code < 500:
                    raise EndpointError(f"{s.endpoint} refused the request: HTTP {exc.code} {detail}") from None
                problem = f"HTTP {exc.code} {detail}".strip()
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                if retry_after and retry_after.strip().isdigit():
                    wait = min(s.max_backoff, float(retry_after))
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                problem = str(reason) or type(exc).__name__
            except (KeyError, IndexError, TypeError, ValueError):
                raise EndpointError(f"{s.endpoint} did not answer in the chat-completions format") from None
            if attempt < s.retries:
                self.sleep(wait)
        raise EndpointError(f"cannot get an answer from {s.endpoint} after {s.retries + 1} tries ({problem})")

    def complete(self, messages: Messages) -> str:
        """The model's answer to one prompt (from the cache when present)."""
        return self.complete_many([messages])[0]

    def complete_many(self, prompts: Sequence[Messages], progress: Callable[[int], None] | None = None) -> list[str]:
        """Answers to ``prompts`` in order. Cached prompts are not sent; the rest go out with
        at most ``concurrency`` in flight. ``progress(n)`` is called as answers arrive.

        On the first request that fails for good, no new requests start, the answers
        received so far stay cached, and EndpointError is raised.
        """
        bodies = [self.settings.body(list(p)) for p in prompts]
        keys = [request_key(b) for b in bodies]
        todo = list(dict.fromkeys(k for k in keys if k not in self.cache))
        waiting = set(todo)
        if progress:
            progress(sum(1 for k in keys if k not in waiting))
        if todo:
            body_of = dict(zip(keys, bodies))
            self._run(todo, body_of, progress, count_of={k: keys.count(k) for k in todo} if progress else {})
        return [self.cache.get(k)["content"] for k in keys]

    def _run(self, todo: list[str], body_of: dict, progress, count_of: dict) -> None:
        jobs: queue.Queue = queue.Queue()
        for key in todo:
            jobs.put(key)
        done: queue.Queue = queue.Queue()
        stop = threading.Event()

        def worker() -> None:
            while not stop.is_set():
                try:
                    key = jobs.get_nowait()
                except queue.Empty:
                    return
                try:
                    self.cache.put(key, self._ask(body_of[key]))
                    done.put((key, None))
                except BaseException as exc:  # reported to the caller's thread
                    done.put((key, exc))
                    return

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(self.settings.concurrency, len(todo)))]
        for t in threads:
            t.start()
        remaining = len(todo)
        try:
            while remaining:
                try:
                    key, exc = done.get(timeout=0.2)
                except queue.Empty:
                    if not any(t.is_alive() for t in threads) and done.empty():
                        break
                    continue
                remaining -= 1
                if exc is not None:
                    raise exc
                if progress:
                    progress(count_of.get(key, 1))
        finally:
            stop.set()


def _error_text(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read().decode("utf-8", "replace")
        msg = json.loads(text).get("error", text)
        if isinstance(msg, dict):
            msg = msg.get("message", "")
        return " ".join(str(msg).split())[:120]
    except (ValueError, OSError, AttributeError):
        return ""
