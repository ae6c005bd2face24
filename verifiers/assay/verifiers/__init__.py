"""Reusable checkers that domain verifiers are built from."""
