"""A GRPO smoke run with TRL on CPU: a tiny random model, a tokenizer trained on the fly, two steps.

    python docs/examples/grpo_smoke.py [--steps 2] [--out DIR] [--question FORM]

Nothing is downloaded: the tokenizer is a word-level one trained on clutrr stories, the
model a 2-layer Llama with random weights. The dataset is :func:`clutrr.rl.to_hf_dataset`
(chat prompts, answers, typed metadata columns) and the reward
:func:`clutrr.integrations.trl_reward.make_reward`, with a format bonus and the process
reward mixed in. The model learns nothing in two steps; the run shows the pieces fit:
TRL generates completions, calls the reward with the dataset's columns, and updates.
It prints what the reward was called with and the reward TRL logged at each step.
``--question mixed`` trains on every question form at once (docs/questions.md).
"""
from __future__ import annotations

import argparse
import tempfile
import warnings

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from transformers.trainer_callback import PrinterCallback
from transformers.utils import logging
from trl import GRPOConfig, GRPOTrainer

from clutrr import GeneratorConfig
from clutrr.integrations.trl_reward import make_reward
from clutrr.rl import DatasetConfig, make_dataset, to_hf_dataset

CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}assistant:{% endif %}")


def train_tokenizer(texts: list[str]) -> PreTrainedTokenizerFast:
    """A word-level tokenizer trained on ``texts``, with pad, end and unknown tokens."""
    raw = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    raw.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=["[PAD]", "[EOS]", "[UNK]"]))
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="[PAD]", eos_token="[EOS]", unk_token="[UNK]")
    tok.chat_template = CHAT_TEMPLATE
    return tok


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--out", help="folder for TRL's output (default: a temporary one)")
    p.add_argument("--question", default="relation", help="the question form (docs/questions.md; default relation)")
    args = p.parse_args()
    warnings.filterwarnings("ignore", category=FutureWarning)
    logging.set_verbosity_error()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    generator = GeneratorConfig(question=args.question)
    items = list(make_dataset(DatasetConfig(size=8, k=(2,), generator=generator), seed=0))
    dataset = to_hf_dataset(items)
    tokenizer = train_tokenizer([m["content"] for row in dataset["prompt"] for m in row] + list(dataset["answer"])
                                + ["<answer> </answer> <think> </think> assistant: user: system:"])
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                                         max_position_embeddings=1024, pad_token_id=tokenizer.pad_token_id,
                                         eos_token_id=tokenizer.eos_token_id, bos_token_id=None))
    with tempfile.TemporaryDirectory() as tmp:
        config = GRPOConfig(output_dir=args.out or tmp, max_steps=args.steps, per_device_train_batch_size=4,
                            num_generations=4, max_completion_length=8, learning_rate=1e-3, logging_steps=1,
                            report_to=[], save_strategy="no", use_cpu=True, seed=0, disable_tqdm=True)
        reward = make_reward(format_bonus=0.1, process_weight=0.5)

        def clutrr_reward(completions, **columns):
            forms = sorted(set(columns["form"]))
            print(f"reward called on {len(completions)} completions with columns {', '.join(sorted(columns))}"
                  + (f" (forms {', '.join(forms)})" if forms != ["relation"] else ""))
            return reward(completions, **columns)

        trainer = GRPOTrainer(model=model, reward_funcs=[clutrr_reward], args=config, train_dataset=dataset,
                              processing_class=tokenizer)
        trainer.remove_callback(PrinterCallback)
        trainer.train()
    for entry in trainer.state.log_history:
        if "reward" in entry:
            print(f"step {entry['step']}: reward {entry['reward']:.3f}")


if __name__ == "__main__":
    main()
