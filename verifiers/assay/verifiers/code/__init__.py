"""Checkers for generated code: extraction, syntax, ruff, suspicious patterns, comparisons."""

from assay.verifiers.code.compare import (
    json_equal,
    stdout_codecontests_equal,
    stdout_equal,
    stdout_tokens_equal,
    stdout_words_equal,
    value_equal,
)
from assay.verifiers.code.extract import extract_code, extract_patch
from assay.verifiers.code.static import RuffReport, ruff_report, syntax_error
from assay.verifiers.code.suspicious import Flag, scan_suspicious

__all__ = [
    "Flag",
    "RuffReport",
    "extract_code",
    "extract_patch",
    "json_equal",
    "ruff_report",
    "scan_suspicious",
    "stdout_codecontests_equal",
    "stdout_equal",
    "stdout_tokens_equal",
    "stdout_words_equal",
    "syntax_error",
    "value_equal",
]
