"""Domains: one package per domain, a task format plus a verifier built from checkers."""
