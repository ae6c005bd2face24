"""Flags for code that reaches for the grader instead of solving the task.

These flags do not decide pass or fail by themselves (the sandbox is the hard defence); they
make attempts visible as a named check, so users can penalise or audit them. The verifier of
modes that run the test framework in the candidate's process (pytest, repo) does reject code
with ``framework`` or ``introspection`` flags, since there they could fake a pass.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from assay.verifiers.code.static import parse_module

_EXIT_CALLS = {
    "sys.exit", "os._exit", "posix._exit", "exit", "quit", "os.kill", "os.killpg", "os.abort",
    "signal.signal", "os.fork", "os.forkpty", "os.setsid", "os.daemon", "atexit.register",
    "sys.addaudithook",
}  # fmt: skip
_INTROSPECTION = {
    "sys._getframe", "inspect.stack", "inspect.currentframe", "inspect.getouterframes",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile",
    "sys.modules", "sys.meta_path", "sys.path_hooks", "importlib.import_module", "__import__",
    "builtins", "__builtins__", "eval", "exec", "compile", "ctypes",
}  # fmt: skip
_FRAME_ATTRS = {
    "f_back", "f_locals", "f_globals", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
    "ag_frame", "f_code", "f_trace",
}  # fmt: skip
_DUNDER_INTROSPECTION = {
    "__self__", "__subclasses__", "__globals__", "__code__", "__closure__", "__func__",
    "__mro__", "__bases__", "__base__", "__loader__", "__spec__", "__import__",
    "__builtins__",
}  # fmt: skip
"""Attributes that lead from any object to modules, frames or classes a test relies on
(``print.__self__`` is the builtins module; ``object.__subclasses__()`` lists every class)."""
_DOTTED_INTROSPECTION = {name for name in _INTROSPECTION if "." in name}
_FRAMEWORKS = {"pytest", "_pytest", "unittest", "doctest", "pluggy", "conftest"}
_NETWORK = {"socket", "urllib", "http", "requests", "ssl", "ftplib", "smtplib", "asyncio"}
_PROCESS = {"subprocess", "multiprocessing", "pty", "resource"}
_CLOCK = {"time.time", "time.monotonic", "time.perf_counter", "datetime.datetime"}
_TEST_PATH_HINTS = (
    "test_",
    "_test.py",
    "conftest",
    "sitecustomize",
    "usercustomize",
    ".pth",
    "/proc",
    "pytest",
    "junit",
    "report",
)


@dataclass(frozen=True, slots=True)
class Flag:
    """One suspicious construct: its kind, line and what was seen."""

    kind: str
    line: int
    detail: str

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "line": self.line, "detail": self.detail}


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


class _Scanner(ast.NodeVisitor):
    """Visits every node in source order without recursing (:meth:`scan`): answers nest far
    deeper than Python's recursion limit allows a recursive visitor (500 unary minus signs,
    a 500-branch ``elif``), and CPython compiles and runs them."""

    def __init__(self) -> None:
        self.flags: list[Flag] = []
        self.modules: set[str] = set()

    def scan(self, tree: ast.AST) -> None:
        visitors = {kind: getattr(self, f"visit_{kind.__name__}") for kind in _VISITED}
        stack = [tree]
        while stack:
            node = stack.pop()
            visit = visitors.get(type(node))
            if visit is not None:
                visit(node)
            children: list[ast.AST] = []
            for name in node._fields:  # ast.iter_child_nodes, without its generators
                value = getattr(node, name, None)
                if isinstance(value, ast.AST):
                    children.append(value)
                elif type(value) is list:
                    children.extend(item for item in value if isinstance(item, ast.AST))
            children.reverse()
            stack.extend(children)

    def generic_visit(self, node: ast.AST) -> None:
        """Nothing: :meth:`scan` goes on to the children itself."""

    def add(self, kind: str, node: ast.AST, detail: str) -> None:
        self.flags.append(Flag(kind, getattr(node, "lineno", 0), detail))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(alias.name, node)
            self.modules.add(alias.asname or alias.name.split(".", maxsplit=1)[0])
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._module(node.module or "", node)
        self.generic_visit(node)

    def _module(self, name: str, node: ast.AST) -> None:
        root = name.split(".", maxsplit=1)[0]
        if root in _FRAMEWORKS:
            self.add("framework", node, f"imports {name}")
        elif root in _NETWORK:
            self.add("network", node, f"imports {name}")
        elif root in _PROCESS:
            self.add("process", node, f"imports {name}")
        elif root in {"inspect", "gc", "ctypes", "builtins", "importlib", "_ctypes"}:
            self.add("introspection", node, f"imports {name}")
        elif root == "atexit":
            self.add("exit", node, f"imports {name}")

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        if name in _EXIT_CALLS:
            self.add("exit", node, f"calls {name}")
        if name in _INTROSPECTION and "." not in name:  # dotted ones: visit_Attribute
            self.add("introspection", node, f"calls {name}")
        if name in {"getattr", "setattr", "delattr", "hasattr"} and len(node.args) > 1:
            attribute = _literal_text(node.args[1])
            if attribute in _DUNDER_INTROSPECTION or attribute in _FRAME_ATTRS:
                self.add("introspection", node, f"{name}(..., {attribute!r})")
        if name in {"setattr", "delattr"} and node.args:
            self.add("patching", node, f"{name} on {_dotted(node.args[0]) or 'an object'}")
        if name in {
            "open",
            "os.remove",
            "os.unlink",
            "os.rename",
            "os.replace",
            "shutil.rmtree",
            "os.chmod",
            "os.symlink",
            "os.link",
        }:
            for arg in node.args[:1]:
                text = _literal_text(arg)
                if text and any(h in text for h in _TEST_PATH_HINTS):
                    self.add("test-files", node, f"{name}({text!r})")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        if node.exc is not None:
            name = _dotted(node.exc.func if isinstance(node.exc, ast.Call) else node.exc)
            if name.split(".")[-1] in {"SystemExit", "KeyboardInterrupt", "SkipTest", "Skipped"}:
                self.add("exit", node, f"raises {name}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in _FRAME_ATTRS or node.attr in _DUNDER_INTROSPECTION:
            self.add("introspection", node, f"reads .{node.attr}")
        dotted = _dotted(node)
        if any(dotted == n or dotted.endswith("." + n) for n in _DOTTED_INTROSPECTION):
            self.add("introspection", node, f"uses {dotted}")
        if node.attr in {"__eq__", "__ne__", "__hash__"} and isinstance(node.ctx, ast.Store):
            self.add("patching", node, f"assigns .{node.attr}")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in {"__builtins__", "__import__"}:
            self.add("introspection", node, f"uses {node.id}")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            name = _dotted(target)
            if "." in name and name.split(".")[0] in self.modules | {
                "builtins",
                "time",
                "datetime",
                "os",
                "sys",
                "unittest",
                "pytest",
                "math",
                "random",
            }:
                kind = "clock" if name in _CLOCK else "patching"
                self.add(kind, node, f"assigns {name}")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name in {"__eq__", "__ne__"}:
            for stmt in node.body:
                if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Constant):
                    self.add("always-equal", node, f"{node.name} returns {stmt.value.value!r}")
        self.generic_visit(node)


_VISITED = tuple(
    getattr(ast, name[len("visit_") :])
    for name in vars(_Scanner)
    if name.startswith("visit_") and isinstance(getattr(ast, name[len("visit_") :], None), type)
)
"""The node classes :class:`_Scanner` has a ``visit_`` method for."""


def _literal_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
    return None


def scan_suspicious(code: str) -> list[Flag]:
    """Every suspicious construct in ``code`` (which must parse)."""
    tree = parse_module(code)
    if tree is None:
        return []
    scanner = _Scanner()
    scanner.scan(tree)
    return scanner.flags
