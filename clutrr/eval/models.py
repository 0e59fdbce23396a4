"""Answer sources besides prediction files: a Python callable, or a chat-completions endpoint.

Both turn an :class:`~clutrr.eval.data.EvalSet` into prediction records (``id``, ``split``,
``prediction`` and, when the model gives them, ``probabilities``; from an endpoint also
``sample``, ``reasoning``, ``finish_reason`` and ``usage``), the records a predictions file holds.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
from collections.abc import Callable

from tqdm import tqdm

from clutrr.errors import UsageError
from clutrr.eval.data import EvalSet
from clutrr.llm.client import ChatClient
from clutrr.llm.prompts import PromptTemplate, build_completion_prompt, build_messages, select_shots


def load_callable(spec: str) -> Callable:
    """The function named ``package.module:function`` (the current folder is importable)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"--model must look like MODULE:FUNCTION, got {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import {module_name!r} ({exc})") from None
    fn = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
    if not callable(fn):
        raise UsageError(f"{module_name!r} has no callable {attr!r}")
    return fn


def _record(item: dict, answer: object, where: str) -> dict:
    rec = {"id": item["id"], "split": item["split"]}
    if isinstance(answer, dict):
        if "prediction" not in answer:
            raise UsageError(f"{where}: an answer given as a dict needs a 'prediction' key")
        rec["prediction"] = answer["prediction"]
        if answer.get("probabilities") is not None:
            rec["probabilities"] = answer["probabilities"]
    elif answer is None or isinstance(answer, str):
        rec["prediction"] = answer
    else:
        raise UsageError(f"{where}: answers must be strings, None or dicts, got {type(answer).__name__}")
    return rec


def predict_with_callable(fn: Callable, data: EvalSet, batch_size: int = 64, name: str = "model",
                          progress: bool = True) -> list[dict]:
    """Call ``fn(items) -> answers`` on batches of plain-data items (without their ``answer``
    field); one answer per item: a string, None, or a dict with ``prediction`` and
    optional ``probabilities``."""
    if batch_size < 1:
        raise UsageError(f"--batch-size must be at least 1, got {batch_size}")
    out: list[dict] = []
    with tqdm(total=len(data), unit="story", desc=name, disable=not progress, file=sys.stderr) as bar:
        for start in range(0, len(data), batch_size):
            batch = [data.item(i, answer=False) for i in range(start, min(len(data), start + batch_size))]
            try:
                answers = list(fn(batch))
            except Exception as exc:  # the user's code: any exception is one line, the answers so far kept
                raise UsageError(_raised(fn, exc, out, name)) from None
            if len(answers) != len(batch):
                raise UsageError(f"{name} returned {len(answers)} answers for a batch of {len(batch)} items")
            out += [_record(item, a, name) for item, a in zip(batch, answers)]
            bar.update(len(batch))
    return out


def _raised(fn: Callable, exc: Exception, done: list[dict], name: str) -> str:
    """The message for a model function that raised, after keeping ``done`` (its answers so far)
    in a private predictions file of the temporary folder."""
    where = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
    text = " ".join(str(exc).split())[:200]
    line = f"--model {name}: {where} raised {type(exc).__name__}" + (f": {text}" if text else "")
    if not done:
        return line + "; no answers before it"
    fd, path = tempfile.mkstemp(prefix=f"clutrr-{name}-", suffix=".partial.jsonl")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(rec, ensure_ascii=False) + "\n" for rec in done)
    return line + f"; its {len(done)} answers before it are kept in {path} (score them with --predictions)"


def predict_with_endpoint(client: ChatClient, data: EvalSet, style: str = "tagged", shots: int = 0,
                          shot_seed: int = 0, progress: bool = True, samples: int = 1,
                          system_prompt: str | None = None, template: PromptTemplate | None = None) -> list[dict]:
    """Ask the client's model every item ``samples`` times; k-shot examples come from the
    training file (read only then). Chat endpoints get :func:`build_messages` prompts,
    completions endpoints one text from :func:`build_completion_prompt`."""
    examples = select_shots(data.train_items(), shots, shot_seed) if shots else []
    if shots and len(examples) < shots:
        raise UsageError(f"--shots {shots} needs a training file with at least {shots} stories")
    items = data.items(answer=False)
    if client.settings.api == "completions":
        prompts = [build_completion_prompt(item, examples, data.kb, template) for item in items]
    else:
        prompts = [build_messages(item, examples, style, data.kb, system_prompt, template) for item in items]
    with tqdm(total=len(items) * samples, unit="answer", desc=client.settings.model, disable=not progress,
              file=sys.stderr) as bar:
        answers = client.ask_many(prompts, samples, progress=bar.update)
    return [{"id": item["id"], "split": item["split"], "sample": s,
             "prediction": rec["content"], "reasoning": rec.get("reasoning"), "finish_reason": rec.get("finish_reason"),
             "usage": rec.get("usage")}
            for item, recs in zip(items, answers) for s, rec in enumerate(recs)]
