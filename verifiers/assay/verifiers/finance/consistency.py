"""Accounting identities over extracted fields, within rounding.

Rules (reference key ``rules``, a list):

- ``{"kind": "sum", "total": "total_assets", "parts": ["current_assets", "noncurrent_assets"]}``:
  a total equals the sum of its lines; a part written ``"-cost_of_revenue"`` is subtracted.
- ``{"kind": "balance", "assets": "...", "liabilities": "...", "equity": "..."}``:
  assets = liabilities + equity.
- ``{"kind": "change", "change": "...", "current": "...", "prior": "..."}``:
  the year-over-year change equals current minus prior.

Printed statements round every line, so an identity holds when both sides differ by at most
one reporting unit per summed line (three lines in thousands: 3,000 dollars).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from assay.verifiers.finance.compare import plain

from assay.types import JSON


@dataclass(frozen=True, slots=True)
class Rule:
    """``total`` = sum of ``sign * part`` over ``parts``."""

    name: str
    total: str
    parts: tuple[tuple[int, str], ...]

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.total, *(name for _, name in self.parts))


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    """The result of one rule: ``passed`` is ``None`` when a field it needs is missing."""

    rule: Rule
    passed: bool | None
    message: str
    evidence: dict[str, JSON]


def read_rules(spec: JSON) -> tuple[Rule, ...]:
    """Rules from the reference's ``rules`` list.

    Raises:
        ValueError: a rule of an unknown kind or with missing or non-string field names.
    """
    if spec is None:
        return ()
    if not isinstance(spec, list):
        raise ValueError(f"rules must be a list, got {type(spec).__name__}")
    return tuple(_read_rule(item, index) for index, item in enumerate(spec))


def _read_rule(item: JSON, index: int) -> Rule:
    if not isinstance(item, Mapping):
        raise ValueError(f"rule {index} must be an object")
    kind = item.get("kind")
    if kind == "sum":
        total, parts = _name(item, "total"), item.get("parts")
        if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
            raise ValueError(f"rule {index}: 'parts' must be a non-empty list of field names")
        signed = tuple((-1, p[1:]) if p.startswith("-") else (1, p) for p in parts)
        return Rule(str(item.get("name", f"{total} = sum of parts")), total, signed)
    if kind == "balance":
        assets = _name(item, "assets")
        signed = ((1, _name(item, "liabilities")), (1, _name(item, "equity")))
        return Rule(str(item.get("name", "assets = liabilities + equity")), assets, signed)
    if kind == "change":
        change = _name(item, "change")
        signed = ((1, _name(item, "current")), (-1, _name(item, "prior")))
        return Rule(str(item.get("name", f"{change} = current - prior")), change, signed)
    raise ValueError(f"rule {index}: unknown kind {kind!r} (sum, balance, change)")


def _name(item: Mapping[str, JSON], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"rule needs a field name under {key!r}")
    return value


def check_rules(
    rules: Sequence[Rule], values: Mapping[str, Decimal], units: Mapping[str, Decimal]
) -> list[RuleOutcome]:
    """Evaluate ``rules`` over ``values`` (base units); ``units`` is each field's reporting unit."""
    return [_check(rule, values, units) for rule in rules]


def _check(rule: Rule, values: Mapping[str, Decimal], units: Mapping[str, Decimal]) -> RuleOutcome:
    missing = [name for name in rule.fields if name not in values]
    if missing:
        return RuleOutcome(
            rule, None, f"{rule.name}: not checked, missing {', '.join(missing)}", {}
        )
    computed = sum((sign * values[name] for sign, name in rule.parts), Decimal(0))
    tolerance = sum((units.get(name, Decimal(1)) for _, name in rule.parts), Decimal(0))
    gap = abs(values[rule.total] - computed)
    evidence: dict[str, JSON] = {
        "total": plain(values[rule.total]),
        "sum_of_parts": plain(computed),
        "gap": plain(gap),
        "tolerance": plain(tolerance),
    }
    if gap <= tolerance:
        return RuleOutcome(rule, True, f"{rule.name}: holds", evidence)
    return RuleOutcome(
        rule,
        False,
        f"{rule.name}: {plain(values[rule.total])} vs {plain(computed)} "
        f"(off by {plain(gap)}, more than {plain(tolerance)})",
        evidence,
    )
