"""Code and patches out of model text."""

from __future__ import annotations

import ast
import builtins
import re

from assay.verifiers.code.static import bound_names, defines, parse_module

_OPENER = re.compile(r"([ \t]*)```[ \t]*([^\n`]*)\n")
_CLOSER = re.compile(r"[ \t]*```[ \t]*\r?\n?")
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}
_PATCH_TAGS = {"diff", "patch", "udiff"}
_DIFF_START = re.compile(r"^(diff --git |--- |Index: )", re.M)


def _language(info: str) -> str:
    """The language of a fence's info string: ``python title="a.py"``, ``python:solution.py``
    and ``{python}`` are all ``python``."""
    words = re.split(r"[\s:{}]+", info.strip().strip("{"))
    return words[0].lower() if words and words[0] else ""


def _blocks(text: str) -> list[tuple[str, str]]:
    """Fenced blocks ``(language, body)`` in order, one pass over the lines.

    A line of three backticks and an info string opens a block; the next line of three backticks
    alone closes it. A block the model never closed (cut off) runs to the end of the text. The
    scan is linear, so a hostile response of many unclosed fences costs no more than its length.
    """
    blocks: list[tuple[str, str]] = []
    language: str | None = None
    body_start = 0
    indent = ""
    position = 0
    for line in _lines(text):
        if language is None:
            opener = _OPENER.fullmatch(line)
            if opener is not None:
                indent, info = opener.group(1), opener.group(2)
                language, body_start = _language(info), position + len(line)
        elif _CLOSER.fullmatch(line):
            blocks.append((language, _body(text[body_start:position], indent)))
            language = None
        position += len(line)
    if language is not None:
        blocks.append((language, _body(text[body_start:], indent)))
    return blocks


def _body(body: str, indent: str) -> str:
    """A block's code: Windows line ends made plain, and the indentation of a fence nested in
    a markdown list (the opener's own) taken off each line."""
    body = body.replace("\r\n", "\n")
    if not indent:
        return body
    width = len(indent)
    lines = body.split("\n")
    return "\n".join(
        line[width:] if line[:width].strip() == "" else line.lstrip() for line in lines
    )


def _lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` only (not at the other breaks ``splitlines`` knows)."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines


def extract_code(text: str, entry_point: str | None = None) -> str:
    """The solution's code: a fenced Python block of ``text``, or the whole text when it has
    none.

    Models often follow the solution with another block: how to call it, asserts, a pytest
    file, the output it prints. So with an ``entry_point`` the block is the last one that
    defines it (with any other block of definitions it uses, given before or after it); without
    one, the last block that is a program (not only values, like a block of sample output);
    else the last block.

    Example:
        >>> extract_code("Here:\\n```python\\ndef f():\\n    return 1\\n```\\nDone.")
        'def f():\\n    return 1\\n'
        >>> answer = "```python\\ndef f():\\n    return 1\\n```\\n```python\\nprint(f())\\n```"
        >>> extract_code(answer, "f")
        'def f():\\n    return 1\\n'
    """
    python = [body for lang, body in _blocks(text) if lang in _PYTHON_TAGS]
    if not python:
        return text
    trees = [parse_module(body) for body in python]
    if entry_point:
        defining = [k for k, tree in enumerate(trees) if defines(tree, entry_point)]
        if defining:
            last = defining[-1]
            return "".join(_with_newline(b) for b in [*_helpers(trees, python, last), python[last]])
    programs = [k for k, tree in enumerate(trees) if tree is not None and _is_program(tree)]
    return python[programs[-1]] if programs else python[-1]


def _with_newline(body: str) -> str:
    return body if body.endswith("\n") else body + "\n"


def _top_level_names(tree: ast.Module) -> set[str]:
    return {name for node in tree.body for name in bound_names(node)}


def _definitions_only(tree: ast.Module) -> bool:
    """Definitions, imports and constants (``MOD = 10**9 + 7``) only: nothing that runs."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
    return all(
        isinstance(node, kinds)
        or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))  # a docstring
        or (isinstance(node, ast.Assign | ast.AnnAssign) and _is_constant(node.value))
        for node in tree.body
    )


def _is_constant(node: ast.expr | None) -> bool:
    """A value written out from literals and arithmetic (no call, no name)."""
    return node is not None and all(
        isinstance(n, ast.Constant | ast.BinOp | ast.UnaryOp | ast.operator | ast.unaryop
                   | ast.Tuple | ast.List | ast.Set | ast.Dict | ast.expr_context)
        for n in ast.walk(node)
    )  # fmt: skip


def _helpers(trees: list[ast.Module | None], bodies: list[str], last: int) -> list[str]:
    """Other blocks of definitions only that bind a name the chosen block uses and does not
    bind itself (a helper, an import or a constant given in a block of its own, before the
    solution or after it), in their order; they go above the chosen block."""
    chosen = trees[last]
    if chosen is None:
        return []
    used = {n.id for n in ast.walk(chosen) if isinstance(n, ast.Name)}
    needed = used - _top_level_names(chosen) - set(dir(builtins))
    found = []
    for index, (tree, body) in enumerate(zip(trees, bodies, strict=True)):
        if index == last or tree is None or not _definitions_only(tree):
            continue
        if _top_level_names(tree) & needed:
            found.append(body)
    return found


def _is_program(tree: ast.Module) -> bool:
    """Whether a block does something: not only values written out (``6``, ``YES``,
    ``[1, 2, 3]``, a block of sample output that happens to parse)."""
    return any(not (isinstance(node, ast.Expr) and _is_value(node.value)) for node in tree.body)


def _is_value(node: ast.expr) -> bool:
    """A constant, a name, a signed one, or a list, tuple or set of those: walked with a stack,
    not by recursion, so a chain of 1,200 minus signs (which CPython parses) costs no frames."""
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.UnaryOp):
            pending.append(current.operand)
        elif isinstance(current, ast.List | ast.Tuple | ast.Set):
            pending.extend(current.elts)
        elif not isinstance(current, ast.Constant | ast.Name):
            return False
    return True


def extract_patch(text: str) -> str | None:
    """A unified diff: the last ``diff``/``patch`` fenced block, or a bare diff in the text."""
    for lang, body in reversed(_blocks(text)):
        if lang in _PATCH_TAGS or (lang == "" and _DIFF_START.search(body)):
            return body if body.endswith("\n") else body + "\n"
    match = _DIFF_START.search(text)
    if match is None:
        return None
    body = text[match.start() :]
    return body if body.endswith("\n") else body + "\n"


def extract_fenced(text: str, tags: frozenset[str] | set[str]) -> str:
    """The last fenced block whose info string is one of ``tags`` (an untagged block counts
    when ``""`` is among them), or the whole text when there is none.

    Example:
        >>> extract_fenced("```cpp\\nint main(){}\\n```", {"cpp", "c++"})
        'int main(){}\\n'
    """
    found = [body for lang, body in _blocks(text) if lang in tags]
    return found[-1] if found else text
