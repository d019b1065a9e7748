"""The rules of every version, pure and deterministic: see docs/architecture.md."""
