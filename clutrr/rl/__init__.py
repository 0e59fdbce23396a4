"""Training-loop interface: procedural and file datasets of plain-data items, rewards, a curriculum.

See docs/rl.md for a training loop, the answer protocol of the rewards, the process reward,
and the integrations with TRL, reasoning-gym and verifiers (:mod:`clutrr.integrations`).
"""
from clutrr.rl.columns import to_hf_dataset, to_rows
from clutrr.rl.curriculum import Curriculum
from clutrr.rl.dataset import DatasetConfig, FileDataset, ProceduralDataset, make_dataset
from clutrr.llm.process import ProcessResult, process_reward
from clutrr.rl.reward import has_answer_tag, read_answer, reward, score_answer, set_f1

__all__ = ["Curriculum", "DatasetConfig", "FileDataset", "ProceduralDataset", "ProcessResult", "has_answer_tag",
           "make_dataset", "process_reward", "read_answer", "reward", "score_answer", "set_f1", "to_hf_dataset",
           "to_rows"]
