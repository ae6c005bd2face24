"""Fenced recipe blocks of docs/integrations.md, for the tests that run them as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "integrations.md"


@dataclass(frozen=True)
class Block:
    heading: str
    language: str
    text: str


def blocks() -> list[Block]:
    """The page's ``bash`` and ``python`` blocks, each with the heading it sits under."""
    found: list[Block] = []
    heading = ""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        fence = re.match(r"^```(\w*)\s*$", line)
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            found.append(Block(heading, fence.group(1), "\n".join(lines[i + 1 : end])))
            i = end
        i += 1
    return [b for b in found if b.language in ("bash", "python")]


def find(heading: str, contains: str) -> Block:
    found = [b for b in blocks() if b.heading.startswith(heading) and contains in b.text]
    if len(found) != 1:
        raise LookupError(f"{heading!r} / {contains!r}: {len(found)} blocks in {PAGE}")
    return found[0]


def command_lines(block: Block) -> list[str]:
    return block.text.replace("\\\n", " ").splitlines()


@dataclass(frozen=True)
class OpenRLHFRecipe:
    token: str  # what the recipe's export line printed
    serve: list[str]  # its `assay serve` words, port and workers set for this machine (the
    # token is not among them: the server reads $ASSAY_TOKEN, which the export line set)
    train_flags: list[str]  # the words of its train_ppo_ray line


def openrlhf_recipe() -> OpenRLHFRecipe:
    """The OpenRLHF block: its export line run by bash, its serve and launch lines split."""
    lines = command_lines(find("OpenRLHF", "assay serve"))
    (export,) = [line for line in lines if line.startswith("export ASSAY_TOKEN=")]
    token = subprocess.run(
        ["bash", "-c", f'{export}\nprintf %s "$ASSAY_TOKEN"'],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    ).stdout
    (serve,) = [line for line in lines if line.startswith("assay serve")]
    words = shlex.split(serve.split("&", 1)[0])
    # a fixed port can be taken and 8 workers do not fit this machine's 2 cores
    words[words.index("--port") + 1] = "0"
    words[words.index("--workers") + 1] = "1"
    (train,) = [line for line in lines if "openrlhf.cli.train_ppo_ray" in line]
    return OpenRLHFRecipe(token, words, shlex.split(train))
