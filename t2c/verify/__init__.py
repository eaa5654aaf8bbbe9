"""Verification: synthesized inputs, the host reference, the ladder of rungs, evidence."""
