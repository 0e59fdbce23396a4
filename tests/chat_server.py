"""A small OpenAI-compatible chat-completions server for tests, on 127.0.0.1.

    python tests/chat_server.py DATA --port-file F --log L [--model NAME] [--delay S] [--sampling]

It answers a prompt by finding its story's question in the dataset folder DATA and
replying according to :func:`policy` of the story's id, so the expected report is known
exactly. Each request's story id is appended to the log L (prefixed "503 " when refused
with ``--fail-first``); the chosen port is written to F. With ``--sampling``, a request at
a temperature above 0 gets :func:`sampled` reply number n for the story's n-th request
(a reasoning model's replies: the policy's, a tagged one with a reasoning field, a free-text
one, and one cut by the length limit inside its think block); with ``--think-open`` too,
:func:`think_open` reply number n (a model whose chat template opens ``<think>`` in the prompt).
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from clutrr.core.kb import load_kb
from clutrr.io.datadir import load_splits
from clutrr.llm.prompts import PLAIN_REQUEST, form_question_text, question_text

WORDS = load_kb("kinship").words


def policy(story_id: str, target: str, head: str, tail: str) -> tuple[str, str]:
    """(kind, reply) for a story: kind is right, wrong or unparsable."""
    bucket = int(story_id.replace("-", "")[:8], 16) % 10
    if bucket < 5:
        return "right", f"{tail} and {head} appear in the story. <answer>{target}</answer>"
    if bucket == 5:
        return "right", f"Reading the story, {tail} is {head}'s {target}."
    if bucket < 8:
        wrong = WORDS[(WORDS.index(target) + 1) % len(WORDS)]
        return "wrong", f"<answer>{wrong}</answer>"
    return "unparsable", "I cannot determine the relationship from the story."


def sampled(n: int, story_id: str, target: str, head: str, tail: str) -> tuple[str, str | None, str]:
    """(content, reasoning, finish_reason) of the story's n-th sampled reply (n mod 4)."""
    n %= 4
    if n == 0:
        return policy(story_id, target, head, tail)[1], None, "stop"
    if n == 1:
        return f"<answer>{target}</answer>", f"{tail} is {head}'s {target}.", "stop"
    if n == 2:
        return f"<think>Reading the story again.</think>So {tail} is {head}'s {target}.", None, "stop"
    return f"<think>First, {head} is", None, "length"


def think_open(n: int, story_id: str, target: str, head: str, tail: str) -> tuple[str, str | None, str]:
    """(content, reasoning, finish_reason) of the story's n-th sampled reply (n mod 4) from a
    model whose reply starts inside its think block: only reply 0 closes it, with the
    policy's kind of answer (right or another word); the others state the right relation
    inside the block, cut at the length limit (1, 3) or never closed (2)."""
    n %= 4
    said = f"{tail} is {head}'s {target}."
    if n == 0:
        kind = policy(story_id, target, head, tail)[0]
        answer = target if kind == "right" else WORDS[(WORDS.index(target) + 1) % len(WORDS)]
        return f"{said}</think>\n<answer>{answer}</answer>", None, "stop"
    if n == 1:
        return f"So {said} But wait, let me check whether", None, "length"
    if n == 2:
        return f"So {said}", None, "stop"
    return f"Hmm.</think>\nSo {said}", None, "length"


def answer_text(answer) -> str:
    """A question form's answer as a reply writes it (names joined by commas)."""
    return ", ".join(answer) if isinstance(answer, list) else str(answer)


def form_policy(story_id: str, form: str, answer, names: list[str]) -> tuple[str, str]:
    """(kind, reply) for a question of another form than relation: right, partial (a set of
    names missing its last one), wrong or unparsable, by the story's id."""
    bucket = int(story_id.replace("-", "")[:8], 16) % 10
    if bucket < 4:
        return "right", f"<think>Is it {names[0]}?</think>From the story: <answer>{answer_text(answer)}</answer>"
    if bucket < 6 and form == "people" and len(answer) > 1:
        return "partial", f"<answer>{answer_text(answer[:-1])}</answer>"
    if bucket < 8:
        wrong = {"person": lambda: next(n for n in names if n != answer), "count": lambda: answer + 1,
                 "yesno": lambda: "no" if answer == "yes" else "yes",
                 "people": lambda: [n for n in names if n not in answer][:1] or names[:1]}[form]()
        return "wrong", f"<answer>{answer_text(wrong)}</answer>"
    if bucket == 8:
        return "right", f"Having read the story, the answer is {answer_text(answer)}."
    return "unparsable", "<think>There are too many people to keep track of"


def questions(data: str) -> dict[str, tuple]:
    """question text -> (id, target, head, tail) for every story of the folder; for a folder of
    other question forms, (id, form, answer, names) from the JSONL twins."""
    out = {}
    for split in load_splits(data):
        twin = split.path.with_suffix(".jsonl")
        records = [json.loads(line) for line in twin.read_text().splitlines()] if twin.is_file() else []
        if records and "form" in records[0]:
            for rec in records:
                if rec["form"] != "relation":
                    names = [p["name"] for p in rec["people"]]
                    out[form_question_text(rec["story"], rec["question"])] = (rec["id"], rec["form"], rec["answer"],
                                                                              names)
        for row in split.rows:
            head, tail = row.query
            out[question_text(row.story, head, tail)] = (row.id, row.target, head, tail)
    return out


def make_handler(lookup: dict, model: str, log: Path, delay: float, fail_first: bool, sampling: bool = False,
                 opened: bool = False):
    failed: set[str] = set()
    counts: dict[str, int] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def _send(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            chat = self.path.endswith("/chat/completions")
            if not chat and not self.path.endswith("/completions"):
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if body.get("model") != model:
                return self._send(404, {"error": {"message": f"model {body.get('model')!r} not found"}})
            if chat:
                last = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
            else:
                last = body["prompt"].removesuffix("\nAnswer:")
            question = last.removesuffix("\n" + PLAIN_REQUEST).split("\n\n")[-1]
            if question.startswith("Q: "):  # the test's --prompt-template
                question = question[3:]
            if question not in lookup:
                return self._send(400, {"error": {"message": "unknown story"}})
            story_id, target, head, tail = lookup[question]
            refuse = fail_first and story_id not in failed
            failed.add(story_id)
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(("503 " if refuse else "") + story_id + "\n")
            if refuse:
                return self._send(503, {"error": {"message": "overloaded, try again"}})
            time.sleep(delay)
            form = isinstance(tail, list)  # another question form: (id, form, answer, names)
            _, reply = form_policy(story_id, target, head, tail) if form else policy(story_id, target, head, tail)
            reasoning, finish = None, "stop"
            if form and sampling and body.get("temperature", 0) > 0:  # every other sample is right
                with lock:
                    n = counts[story_id] = counts.get(story_id, -1) + 1
                if n % 2:
                    reply = f"<answer>{answer_text(head)}</answer>"
            elif sampling and body.get("temperature", 0) > 0:
                with lock:
                    n = counts[story_id] = counts.get(story_id, -1) + 1
                reply, reasoning, finish = (think_open if opened else sampled)(n, story_id, target, head, tail)
            message = {"role": "assistant", "content": reply}
            if reasoning:
                message["reasoning_content"] = reasoning
            choice = {"index": 0, "message": message} if chat else {"index": 0, "text": " " + str(target) + "\n"}
            self._send(200, {"id": "x", "object": "chat.completion" if chat else "text_completion", "model": model,
                             "choices": [{**choice, "finish_reason": finish}],
                             "usage": {"prompt_tokens": len(last.split()), "completion_tokens": len(reply.split()),
                                       "completion_tokens_details": {"reasoning_tokens": 3}}})

    return Handler


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--model", default="test-model")
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--fail-first", action="store_true", help="answer each story's first request with 503")
    p.add_argument("--sampling", action="store_true", help="vary the replies of sampled requests (see sampled)")
    p.add_argument("--think-open", action="store_true", help="with --sampling: replies of think_open")
    args = p.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(questions(args.data), args.model, Path(args.log),
                                                                args.delay, args.fail_first, args.sampling,
                                                                args.think_open))
    Path(args.port_file).write_text(str(server.server_address[1]))
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
