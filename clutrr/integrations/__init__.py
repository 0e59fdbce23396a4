"""Plug-ins for the libraries people train and evaluate with; each module is imported only when used.

- :mod:`clutrr.integrations.trl_reward`: reward functions with the signature of TRL's GRPO trainer;
- :mod:`clutrr.integrations.reasoning_gym_dataset`: ``clutrr`` as a reasoning-gym dataset with a curriculum;
- :mod:`clutrr.integrations.verifiers_env`: a verifiers taskset and ``load_environment()``.

``import clutrr`` imports none of them, nor the libraries they plug into.
"""
