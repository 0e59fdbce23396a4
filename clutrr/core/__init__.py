"""Generation core: the knowledge base, families, backward chaining, entailment, noise and one example."""
