"""``assay new-verifier NAME``: write a plugin distribution that works out of the box.

The package has the entry point (group ``assay.verifiers``), a verifier of a few dozen lines,
labelled fixtures shipped inside the package (so an installed wheel finds them) and tests that
run :mod:`assay.testing`'s conformance checks. Templates are the ``templates/*.tmpl`` files of
this package; ``{{key}}`` placeholders are filled in, and a template that names a key not
given is an error, not a silent blank.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from assay.errors import ConfigError, InputError, UnknownDomainError

NAME = re.compile(r"[a-z][a-z0-9_]{1,39}")
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")

# template file -> path in the plugin, itself a template
LAYOUT: dict[str, str] = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "init.py.tmpl": "src/{{package}}/__init__.py",
    "verifier.py.tmpl": "src/{{package}}/verifier.py",
    "cases.jsonl.tmpl": "src/{{package}}/fixtures/cases.jsonl",
    "test_conformance.py.tmpl": "tests/test_conformance.py",
    "test_examples.py.tmpl": "tests/test_examples.py",
}


@dataclass(frozen=True, slots=True)
class PluginNames:
    """The names a plugin for domain ``name`` uses."""

    name: str

    @property
    def package(self) -> str:
        return f"assay_{self.name}"

    @property
    def dist(self) -> str:
        return f"assay-{self.name.replace('_', '-')}"

    @property
    def cls(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("_")) + "Verifier"

    def values(self) -> dict[str, str]:
        return {"name": self.name, "package": self.package, "dist": self.dist, "cls": self.cls}


def fill(template: str, values: dict[str, str]) -> str:
    """Replace each ``{{key}}``; raises :class:`ConfigError` for a key not in ``values``."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise ConfigError(f"template placeholder {{{{{key}}}}} has no value")
        return values[key]

    return PLACEHOLDER.sub(one, template)


def check_name(name: str) -> None:
    """Raises :class:`ConfigError` unless ``name`` is a new, valid domain name."""
    if not NAME.fullmatch(name):
        raise ConfigError(
            f"{name!r} is not a valid verifier name: use 2-40 characters, lower-case letters, "
            "digits and '_', starting with a letter"
        )
    from assay.registry import default_registry

    try:
        taken = default_registry().resolve(name)
    except UnknownDomainError:
        return
    raise ConfigError(f"{name!r} is already registered (by {taken!r}); choose another name")


def write_plugin(name: str, destination: Path, force: bool = False) -> list[Path]:
    """Write the plugin for ``name`` under ``destination``; returns the files written."""
    check_name(name)
    if destination.exists() and any(destination.iterdir()) and not force:
        raise ConfigError(f"{destination} exists and is not empty (use --force to write into it)")
    values = PluginNames(name).values()
    templates = resources.files(__name__) / "templates"
    written = []
    for template, target in LAYOUT.items():
        path = destination / fill(target, values)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fill((templates / template).read_text(encoding="utf-8"), values))
        written.append(path)
    return written


def add_new_verifier_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``assay new-verifier`` on the CLI's subparsers."""
    parser = sub.add_parser(
        "new-verifier",
        help="write a plugin package for a new verifier (entry point, fixtures, tests)",
        description=(
            "Write a plugin distribution for a new verifier: pyproject with the "
            "assay.verifiers entry point, the verifier, labelled fixtures and tests using "
            "assay.testing. `pip install -e DIR` and it is registered. "
            "See docs/writing-a-verifier.md."
        ),
    )
    parser.add_argument("name", help="domain name: lower-case letters, digits, '_'")
    parser.add_argument(
        "--dir", type=Path, help="where to write it (default: ./assay-NAME)", default=None
    )
    parser.add_argument("--force", action="store_true", help="write into a non-empty directory")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    names = PluginNames(args.name)
    destination = args.dir or Path(names.dist)
    try:
        written = write_plugin(args.name, destination, force=args.force)
    except OSError as exc:
        raise InputError(f"cannot write {destination}: {exc.strerror}") from exc
    for path in written:
        print(f"wrote {path}")
    print(
        f"\nnext: pip install -e {destination} && pytest {destination}/tests && "
        f"assay eval --domains {args.name}"
    )
    return 0
