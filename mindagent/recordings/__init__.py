"""Recordings: the JSONL episode log, its replay, and the size limits on what others hand us."""
