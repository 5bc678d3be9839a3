"""The ``judge`` command line application."""
