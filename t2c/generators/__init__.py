"""Generators: IS kernel -> candidate `.cu` text.  `poly` is the embedded default (no model)."""
