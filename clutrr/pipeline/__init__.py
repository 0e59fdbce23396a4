"""The stage that owns a generation run: plan (files -> shards -> tasks), execute the tasks on an
engine, collect their parts, de-duplicate and assemble config.json (see docs/design.md)."""
