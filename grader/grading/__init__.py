"""The parts of scripts/grade: one concept per module (Python 3 standard library only)."""
