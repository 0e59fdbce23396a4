"""Training-loop interface: procedural and file datasets of plain-data items, rewards, a curriculum.

See docs/rl.md for a training loop and how this compares with reasoning-gym.
"""
from clutrr.rl.curriculum import Curriculum
from clutrr.rl.dataset import DatasetConfig, FileDataset, ProceduralDataset, make_dataset
from clutrr.rl.reward import has_answer_tag, reward, score_answer

__all__ = ["Curriculum", "DatasetConfig", "FileDataset", "ProceduralDataset", "has_answer_tag", "make_dataset",
           "reward", "score_answer"]
