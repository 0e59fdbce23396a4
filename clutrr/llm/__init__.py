"""Language-model support: prompt builders, answer extraction, and a cached chat-completions client."""
from clutrr.llm.extract import extract_answer

__all__ = ["extract_answer"]
