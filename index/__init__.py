"""The rules corpus: reading CR files, rule numbers, cross-references and stored editions."""
