"""A client for OpenAI-compatible servers (chat or plain completions), with a resumable response cache.

``ChatClient(settings).ask_many(prompts, samples)`` sends each prompt (a list of chat
messages, or a text for ``api="completions"``) ``samples`` times as ``POST`` to the
server, and returns the answer records. Safe by default:

- **Deadlines.** ``timeout`` bounds each request as a whole (connecting, sending, and
  reading the whole reply), not each socket read: a server that trickles bytes is cut off
  at the deadline. A failed request is retried ``retries`` times with exponential
  back-off (``backoff`` seconds, doubled each time, at most ``max_backoff``; a
  ``Retry-After`` header is honoured up to ``max_backoff``) on connection errors,
  timeouts, 429 and 5xx answers, so one prompt takes at most
  :meth:`ChatSettings.worst_case_seconds`.
- **Credentials stay at their origin.** Redirects are never followed: the request, and
  the ``Authorization`` header with it, goes to the configured URL only, and a 3xx answer
  stops the run with one line naming where the server pointed.
- **Nothing paid for is lost.** Every answer is appended to a :class:`ResponseCache`
  (JSONL, flushed and fsynced line by line) before it is used. On an error, no new
  request starts, the requests in flight are waited for and cached, then the error is
  raised. Space for the answers in flight is reserved beside the cache, so a full disk
  stops the run without losing one.
- **The cache is clutrr's and private.** A cache file starts with a header line; a file
  without one (a user's notes given to ``--cache`` by mistake) is refused, never written
  into. It is created 0600, its folder 0700 when clutrr creates it.
- **Server text is shown safely.** An error body or a redirect target is printed with the
  API key (and any ``Bearer`` token) masked and control characters escaped; a URL that
  carries credentials (``http://user:KEY@host``) is refused. Replies are parsed with a
  bound on their nesting depth.

The cache key is the request body (model, prompt, sampling settings) with the sample
index, not the URL, so a restarted or moved server reuses the answers, while each sample
of a prompt is a request of its own.
"""
from __future__ import annotations

import errno
import hashlib
import http.client
import json
import math
import os
import queue
import re
import socket
import ssl
import sys
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from clutrr.io.bounded import loads as bounded_loads

Messages = list[dict[str, str]]
Prompt = Messages | str
APIS = ("chat", "completions")
DEFAULT_MAX_TOKENS = 16384
MAX_REPLY_BYTES = 64 << 20
FULL_DISK = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
MAX_TOKENS = 1 << 20  # --max-tokens above this is refused (its reserve alone would be gigabytes)
CACHE_HEADER = {"clutrr": "llm-response-cache", "format": 1}
_BEARER = re.compile(r"(?i)(bearer\s+|api[-_]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;]+")


class EndpointError(RuntimeError):
    """The server could not be reached or refused a request; the message is one line."""


class CacheError(RuntimeError):
    """The response cache cannot be read or written; the message is one line."""


def check_url(url: str) -> str:
    """``url`` if it is an http(s) URL with a host, else ValueError naming the problem."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) URL with a host, e.g. http://127.0.0.1:8000/v1")
    if port == 0:
        raise ValueError(f"{url!r} names port 0")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{without_credentials(url)!r} carries credentials (user:password@); they are not sent: "
                         "give the URL without them and the key in the variable --api-key-env names")
    return url


def without_credentials(url: str) -> str:
    """``url`` with any ``user:password@`` part replaced by ``***@``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<a URL that cannot be parsed>"
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))


def _mask(text: str, secret: str, shortest: int = 8) -> str:
    """``text`` with every run of ``shortest`` or more characters that is also part of ``secret``
    replaced by ``***`` (a server may echo a key cut short, or without its prefix)."""
    out, i = [], 0
    while i < len(text):
        n = 0
        while i + n < len(text) and text[i:i + n + 1] in secret:
            n += 1
        if n >= min(shortest, len(secret)):
            out.append("***")
            i += n
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def safe_text(text: str, secrets: Sequence[str | None] = (), limit: int = 200) -> str:
    """Text from a server made fit for one terminal line: the given secrets (and any part of
    them of 8 characters or more), any Bearer token or api_key value masked, control and format characters escaped (``\\x1b``),
    white space folded, at most ``limit`` characters."""
    text = text[:4096]  # more is never shown
    for secret in secrets:
        if secret:
            text = _mask(text, secret)
    text = _BEARER.sub(lambda m: m.group(1) + "***", text)
    text = " ".join(text.split())
    text = "".join(c if c == " " or (c.isprintable() and unicodedata.category(c) != "Cf")
                   else c.encode("unicode_escape").decode("ascii") for c in text)
    return text[:limit]


@dataclass
class ChatSettings:
    """Connection and sampling settings of a client.

    ``seed`` (when set) is sent as ``seed + sample`` so every sample of a prompt gets its
    own; ``stop`` sequences and ``top_p`` are sent when set; ``extra`` adds request fields.
    """

    url: str
    model: str
    timeout: float = 60.0
    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    concurrency: int = 4
    temperature: float = 0.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    api: str = "chat"
    api_key: str | None = None
    extra: dict = field(default_factory=dict)  # more request fields

    @property
    def endpoint(self) -> str:
        """The full URL requests go to: the route appended to the URL's path, its query
        string (``?api-version=...``) kept at the end."""
        parts = urlsplit(self.url)
        base = parts.path.rstrip("/")
        path = "/chat/completions" if self.api == "chat" else "/completions"
        for known in ("/chat/completions", "/completions"):
            if base.endswith(known):
                base = base[: -len(known)]
        return urlunsplit(parts._replace(path=base + path, fragment=""))

    def body(self, prompt: Prompt, sample: int = 0) -> dict:
        """The request body for ``prompt`` (messages, or a text for completions) and sample index."""
        body = {"model": self.model, "messages" if self.api == "chat" else "prompt": prompt,
                "temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.top_p is not None:
            body["top_p"] = self.top_p
        if self.seed is not None:
            body["seed"] = self.seed + sample
        if self.stop:
            body["stop"] = list(self.stop)
        return {**body, **self.extra}

    def key(self, prompt: Prompt, sample: int = 0) -> str:
        """The cache key of ``prompt``'s sample ``sample`` (sample 0: the request body's key)."""
        body = self.body(prompt, sample)
        return request_key(body if sample == 0 else {**body, "sample": sample})

    def worst_case_seconds(self) -> float:
        """The longest one prompt can take: every try up to its deadline plus every back-off."""
        waits = sum(min(self.max_backoff, self.backoff * 2 ** i) for i in range(self.retries))
        return (self.retries + 1) * self.timeout + waits

    def reserve_bytes(self) -> int:
        """Disk space kept free beside the cache for the answers in flight."""
        return self.concurrency * (64 * 1024 + 8 * self.max_tokens)


def request_key(body: dict) -> str:
    """The cache key of a request body: a hash of its canonical JSON."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ResponseCache:
    """Answers by request key, kept in an append-only JSONL file.

    The first line is :data:`CACHE_HEADER`; each other line is ``{"key": ..., "model": ...,
    "content": ..., "reasoning": ..., "finish_reason": ..., "usage": ..., "sample": ...}``.
    A torn last line (a crash mid-write) is ignored on reading and cut off before the next
    write. Safe to share between threads. Raises CacheError when ``path`` is a folder,
    cannot be read, or is not a cache clutrr made: a file whose first line is neither the
    header nor an answer record (the caches of earlier versions had no header).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._entries: dict[str, dict] = {}
        self._fd: int | None = None
        self._reserve: Path | None = None
        self.full = False  # a write failed for lack of space; no new request should start
        self.overflow: Path | None = None  # answers that did not fit beside the cache, when the disk filled
        if self.path.is_dir():
            raise CacheError(f"the response cache {self.path} is a folder; give a file path with --cache")
        if self.path.exists():
            try:
                with open(self.path, "rb") as fh:
                    self._check_ours(fh.readline(MAX_REPLY_BYTES))
                    fh.seek(0)
                    for line in fh:
                        try:
                            rec = bounded_loads(line)
                        except ValueError:
                            continue
                        if isinstance(rec, dict) and isinstance(rec.get("key"), str):
                            self._entries[rec["key"]] = rec
            except OSError as exc:
                raise CacheError(f"cannot read the response cache {self.path} ({exc.strerror})") from None

    def _check_ours(self, first: bytes) -> None:
        """CacheError unless ``first`` (the file's first line) is the header or an answer record."""
        try:
            rec = bounded_loads(first)
        except ValueError:
            rec = None
        if rec == CACHE_HEADER or isinstance(rec, dict) and isinstance(rec.get("key"), str) and "content" in rec:
            return
        raise CacheError(f"refusing to use {self.path} as the response cache: clutrr did not make it (its first "
                         "line is not a clutrr cache header); give a new file with --cache")

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get(self, key: str) -> dict | None:
        """The cached record for ``key``, or None."""
        return self._entries.get(key)

    def open(self, reserve: int = 0) -> None:
        """Open the file for appending (cutting a torn last line) and set ``reserve`` bytes
        of disk space aside beside it. CacheError when either is impossible."""
        if self._fd is not None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = self._create() if not self.path.exists() else os.open(self.path, os.O_RDWR | os.O_APPEND)
            size = os.lseek(fd, 0, os.SEEK_END)
            if size:
                start = max(0, size - (1 << 20))
                tail = os.pread(fd, size - start, start)
                cut = tail.rfind(b"\n") + 1
                if cut < len(tail):
                    os.ftruncate(fd, start + cut)
            self._fd = fd
        except OSError as exc:
            raise CacheError(f"cannot write the response cache {self.path} ({exc.strerror})") from None
        if reserve > 0:
            self._remove_stale_reserves()
            spare = self.path.with_name(f".{self.path.name}.reserve-{os.getpid()}")
            try:
                with open(spare, "wb") as fh:
                    os.posix_fallocate(fh.fileno(), 0, reserve)
                self._reserve = spare
            except OSError as exc:
                spare.unlink(missing_ok=True)
                self.close()
                raise CacheError(f"no room for the response cache in {self.path.parent} ({exc.strerror}; "
                                 f"{reserve // 1024} KiB must be free for the answers in flight)") from None

    def _create(self) -> int:
        """Create the cache file (0600, never over an existing one) holding the header line; its descriptor."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        except FileExistsError:  # another run made it just now: it must be a cache too
            with open(self.path, "rb") as fh:
                self._check_ours(fh.readline(MAX_REPLY_BYTES))
            return os.open(self.path, os.O_RDWR | os.O_APPEND)
        try:
            os.write(fd, (json.dumps(CACHE_HEADER) + "\n").encode())
            os.fsync(fd)
        except OSError:
            os.close(fd)
            self.path.unlink(missing_ok=True)
            raise
        return fd

    def _remove_stale_reserves(self) -> None:
        """Remove the reserve files of runs that are gone (killed by a signal they could not
        catch) and say so on stderr."""
        pattern = re.compile(rf"^\.{re.escape(self.path.name)}\.reserve(?:-(\d+))?$")
        try:
            entries = list(self.path.parent.iterdir())
        except OSError:
            return
        for spare in entries:
            m = pattern.match(spare.name)
            if not m or m.group(1) and _running(int(m.group(1))):
                continue
            spare.unlink(missing_ok=True)
            print(f"removed {spare}, the disk space reserved by an earlier run that stopped before cleaning up",
                  file=sys.stderr)

    def close(self) -> None:
        """Close the file and give the reserved space back."""
        if self._reserve is not None:
            self._reserve.unlink(missing_ok=True)
            self._reserve = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def put(self, key: str, record: dict) -> None:
        """Store ``record`` under ``key``, written and synced to disk before returning.

        When the disk is full, the reserved space is given back and the write retried
        (``full`` is then set, so the caller starts no new request); an answer that still
        does not fit (a reply larger than the reserve) goes to :attr:`overflow`, a private
        file of the temporary folder. CacheError when the record cannot be written at all.
        A failed write leaves no partial line.
        """
        rec = {"key": key, **record}
        line = (json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                self.open()
            try:
                self._append(line)
            except OSError as exc:
                if exc.errno not in FULL_DISK:
                    raise CacheError(f"cannot write the response cache {self.path} ({exc.strerror})") from None
                if self._reserve is not None:
                    self._reserve.unlink(missing_ok=True)
                    self._reserve = None
                self.full = True
                try:
                    self._append(line)
                except OSError as again:
                    if again.errno not in FULL_DISK:
                        raise CacheError(f"cannot write the response cache {self.path} ({again.strerror})") from None
                    self._spill(line)
            self._entries[key] = rec

    def _spill(self, line: bytes) -> None:
        """Keep ``line`` in the overflow file (created 0600 in the temporary folder on first use)."""
        try:
            if self.overflow is None:
                fd, name = tempfile.mkstemp(prefix=f"clutrr-{self.path.stem}-", suffix=".overflow.jsonl")
                os.close(fd)
                self.overflow = Path(name)
            with open(self.overflow, "ab") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise CacheError(f"the disk holding the response cache {self.path} is full, and an answer could not be "
                             f"kept elsewhere either ({exc.strerror})") from None

    def _append(self, line: bytes) -> None:
        """Write ``line`` at the end and sync it; on failure cut the file back to where it was."""
        start = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view):]
            os.fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def default_cache_path(model: str) -> Path:
    """``$CLUTRR_CACHE`` or ``~/.cache/clutrr/llm``, one file per model name."""
    root = Path(os.environ.get("CLUTRR_CACHE") or Path.home() / ".cache" / "clutrr" / "llm")
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in model) or "model"
    return root / f"{safe}.jsonl"


class _Deadline:
    """Closes a connection's socket when time is up, so every blocking read ends."""

    def __init__(self, conn: http.client.HTTPConnection, seconds: float) -> None:
        self.conn = conn
        self.expired = False
        self.timer = threading.Timer(seconds, self._expire)
        self.timer.daemon = True
        self.timer.start()

    def _expire(self) -> None:
        self.expired = True
        sock = self.conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        self.timer.cancel()


def _content(value) -> str | None:
    """A message's text: a string, or the text parts of a list of content parts."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(p, dict) for p in value):
        return "".join(str(p.get("text") or "") for p in value if p.get("type", "text") == "text")
    raise ValueError("content is neither text nor a list of content parts")


class ChatClient:
    """Send prompts to one model of an OpenAI-compatible server, through a cache."""

    def __init__(self, settings: ChatSettings, cache: ResponseCache | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if settings.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if settings.retries < 0 or not 0 < settings.timeout < math.inf or not 0 <= settings.backoff < math.inf:
            raise ValueError("retries and backoff must be non-negative and timeout positive, both finite")
        if settings.api not in APIS:
            raise ValueError(f"api must be one of {', '.join(APIS)}, got {settings.api!r}")
        check_url(settings.url)
        self.settings = settings
        self.cache = cache if cache is not None else ResponseCache(default_cache_path(settings.model))
        self.sleep = sleep
        self.requests_sent = 0
        self._count_lock = threading.Lock()
        parts = urlsplit(settings.endpoint)
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname, parts.port
        self._path = parts.path + (f"?{parts.query}" if parts.query else "")

    def _post(self, body: dict) -> dict:
        """One POST within the request deadline; the parsed JSON reply. Raises
        http.client/OS errors, TimeoutError, EndpointError (a redirect, a huge reply) or
        an HTTP status error as ``_Status``."""
        s = self.settings
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if s.api_key:
            headers["Authorization"] = f"Bearer {s.api_key}"
        if self._https:
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=s.timeout,
                                               context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=s.timeout)
        with self._count_lock:
            self.requests_sent += 1
        deadline = _Deadline(conn, s.timeout)
        try:
            conn.request("POST", self._path, body=data, headers=headers)
            resp = conn.getresponse()
            chunks, size = [], 0
            while chunk := resp.read1(65536):
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise EndpointError(f"{s.endpoint} sent a reply larger than {MAX_REPLY_BYTES >> 20} MiB")
                chunks.append(chunk)
            if deadline.expired:
                raise TimeoutError
        except (OSError, http.client.HTTPException):
            if deadline.expired:
                raise TimeoutError(f"no complete reply within {s.timeout:g} s") from None
            raise
        finally:
            deadline.cancel()
            conn.close()
        payload = b"".join(chunks)
        if 300 <= resp.status < 400:
            where = safe_text(resp.getheader("Location") or "nowhere", [s.api_key])
            raise EndpointError(f"{s.endpoint} answered with a redirect (HTTP {resp.status} to {where}); redirects are "
                                "not followed, so the request and its key stay at the given URL: give the final "
                                "URL with --endpoint")
        if resp.status >= 400:
            raise _Status(resp.status, _error_text(payload, s.api_key), resp.getheader("Retry-After"))
        return bounded_loads(payload)

    def _parse(self, answer: object, sample: int) -> dict:
        """The cache record of a reply; EndpointError naming what is missing."""
        s = self.settings
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise EndpointError(f"{s.endpoint} answered without a choices list (is it an OpenAI-compatible "
                                f"{s.api} endpoint?)")
        choice = choices[0]
        if s.api == "chat":
            message = choice.get("message")
            if not isinstance(message, dict):
                raise EndpointError(f"{s.endpoint} answered without a message object in choices[0] "
                                    "(is it a chat-completions endpoint? for a base model use --api completions)")
            content = _content(message.get("content"))
            reasoning = message.get("reasoning_content") or message.get("reasoning")
        else:
            content = choice.get("text")
            reasoning = None
            if not isinstance(content, str):
                raise EndpointError(f"{s.endpoint} answered without a text in choices[0] (is it a completions endpoint?)")
        usage = answer.get("usage")
        return {"model": s.model, "content": content or "", "reasoning": reasoning if isinstance(reasoning, str) else None,
                "finish_reason": choice.get("finish_reason"), "usage": usage if isinstance(usage, dict) else None,
                "sample": sample}

    def _ask(self, body: dict, sample: int) -> dict:
        """One request with retries; returns the cache record. Raises EndpointError."""
        s = self.settings
        problem = ""
        for attempt in range(s.retries + 1):
            wait = min(s.max_backoff, s.backoff * 2 ** attempt)
            try:
                answer = self._post(body)
            except _Status as exc:
                if exc.code != 429 and exc.code < 500:
                    raise EndpointError(f"{s.endpoint} refused the request: HTTP {exc.code} {exc.detail}".rstrip()) from None
                problem = f"HTTP {exc.code} {exc.detail}".strip()
                if exc.retry_after and exc.retry_after.strip().isdigit():
                    wait = min(s.max_backoff, float(exc.retry_after))
            except (TimeoutError, socket.timeout) as exc:
                problem = str(exc) or f"no complete reply within {s.timeout:g} s"
            except (OSError, http.client.HTTPException) as exc:
                problem = str(getattr(exc, "strerror", None) or exc) or type(exc).__name__
            except ValueError as exc:
                raise EndpointError(f"{s.endpoint} did not answer with usable JSON ({safe_text(str(exc), limit=80)}; "
                                    "is it an OpenAI-compatible server?)") from None
            else:
                try:
                    return self._parse(answer, sample)
                except ValueError as exc:
                    raise EndpointError(f"{s.endpoint} answered in an unknown format ({exc})") from None
            if attempt < s.retries:
                self.sleep(wait)
        raise EndpointError(f"cannot get an answer from {s.endpoint} after {s.retries + 1} tries ({problem})")

    def complete(self, prompt: Prompt) -> str:
        """The model's answer to one prompt (from the cache when present)."""
        return self.ask_many([prompt])[0][0]["content"]

    def complete_many(self, prompts: Sequence[Prompt], progress: Callable[[int], None] | None = None) -> list[str]:
        """The answers (texts) to ``prompts``, one sample each, in order."""
        return [recs[0]["content"] for recs in self.ask_many(prompts, 1, progress)]

    def ask_many(self, prompts: Sequence[Prompt], samples: int = 1,
                 progress: Callable[[int], None] | None = None) -> list[list[dict]]:
        """The answer records of ``samples`` samples of each prompt, in order.

        Cached requests are not sent; the rest go out with at most ``concurrency`` in
        flight. ``progress(n)`` is called as answers arrive. On the first request that
        fails for good (or a full disk), no new request starts, the requests in flight
        are waited for and cached, and EndpointError (CacheError) is raised.
        """
        if samples < 1:
            raise ValueError("samples must be at least 1")
        s = self.settings
        keys = [[s.key(p, i) for i in range(samples)] for p in prompts]
        flat = [k for row in keys for k in row]
        todo = list(dict.fromkeys(k for k in flat if k not in self.cache))
        waiting = set(todo)
        if progress:
            progress(sum(1 for k in flat if k not in waiting))
        if todo:
            jobs = {}
            for p, row in zip(prompts, keys):
                for i, k in enumerate(row):
                    if k in waiting and k not in jobs:
                        jobs[k] = (s.body(p, i), i)
            counts = {}
            for k in flat:
                counts[k] = counts.get(k, 0) + 1
            self.cache.open(s.reserve_bytes())
            try:
                self._run(todo, jobs, progress, counts)
            finally:
                self.cache.close()
        return [[self.cache.get(k) for k in row] for row in keys]

    def _run(self, todo: list[str], jobs: dict, progress, counts: dict) -> None:
        pending: queue.Queue = queue.Queue()
        for key in todo:
            pending.put(key)
        done: queue.Queue = queue.Queue()
        stop = threading.Event()

        def worker() -> None:
            while not stop.is_set() and not self.cache.full:
                try:
                    key = pending.get_nowait()
                except queue.Empty:
                    return
                try:
                    body, sample = jobs[key]
                    self.cache.put(key, self._ask(body, sample))
                    done.put((key, None))
                except BaseException as exc:  # reported to the caller's thread
                    done.put((key, exc))
                    return

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(self.settings.concurrency, len(todo)))]
        for t in threads:
            t.start()
        failure: BaseException | None = None
        try:
            while any(t.is_alive() for t in threads) or not done.empty():
                try:
                    key, exc = done.get(timeout=0.2)
                except queue.Empty:
                    continue
                if exc is not None:
                    stop.set()
                    failure = failure or exc
                elif progress:
                    progress(counts.get(key, 1))
        except KeyboardInterrupt:
            stop.set()
            raise
        if failure is not None:
            raise failure
        if self.cache.full:
            spilled = self.cache.overflow
            where = "there" if spilled is None else (
                f"there or, those that did not fit, in {spilled} (append it to the cache before the rerun)")
            raise CacheError(f"the disk holding the response cache {self.cache.path} is full; every answer received "
                             f"({len(self.cache)} in all) is kept {where}: free some space and rerun to resume")


class _Status(Exception):
    """An HTTP error status with the server's message."""

    def __init__(self, code: int, detail: str, retry_after: str | None) -> None:
        super().__init__(code)
        self.code, self.detail, self.retry_after = code, detail, retry_after


def _error_text(payload: bytes, api_key: str | None = None) -> str:
    """The message of an error reply (its ``error.message`` when JSON), fit for one line with the key masked."""
    text = payload.decode("utf-8", "replace")
    try:
        msg = bounded_loads(text).get("error", text)
        if isinstance(msg, dict):
            msg = msg.get("message", "")
    except (ValueError, AttributeError):
        msg = text
    return safe_text(str(msg), [api_key], limit=120)
