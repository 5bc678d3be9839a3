"""Glossary entries: reading them, normalising their terms and looking them up."""

from .entry import GlossaryEntry, fold_text, normalise_term

__all__ = ["GlossaryEntry", "fold_text", "normalise_term"]
