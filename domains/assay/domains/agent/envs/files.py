"""A small in-memory file system: directories and text files under ``/``."""

from __future__ import annotations

import posixpath

from assay.verifiers.agent.environment import Environment, ToolError, tool

from assay.types import JSON

_PATH = {"type": "string", "pattern": "^/"}


def _norm(path: str) -> str:
    if not path.startswith("/"):
        raise ToolError(f"{path!r} is not an absolute path")
    return posixpath.normpath(path).replace("//", "/")


class FilesEnv(Environment):
    """Files are ``path -> text``; directories are a set of paths."""

    name = "filesystem"
    version = "1"
    unordered = ("dirs",)

    @classmethod
    def initial_state(cls) -> dict[str, JSON]:
        return {
            "dirs": ["/", "/home", "/home/ada", "/home/ada/notes", "/tmp"],
            "files": {
                "/home/ada/todo.txt": "buy milk\ncall bob\n",
                "/home/ada/notes/ideas.md": "# Ideas\n- engine\n",
                "/home/ada/report.csv": "month,sales\njan,10\nfeb,12\n",
                "/tmp/scratch.log": "x" * 1000,
            },
        }

    def _parent_exists(self, path: str) -> None:
        parent = posixpath.dirname(path)
        if parent not in self.state["dirs"]:
            raise ToolError(f"directory {parent} does not exist")

    def _exists(self, path: str) -> bool:
        return path in self.state["files"] or path in self.state["dirs"]

    @tool("List the names in a directory, sorted.", {"path": _PATH}, ["path"])
    def list_dir(self, path: str) -> JSON:
        path = _norm(path)
        if path not in self.state["dirs"]:
            raise ToolError(f"no directory {path}")
        children = [p for p in [*self.state["dirs"], *self.state["files"]] if p != path]
        return sorted(posixpath.basename(p) for p in children if posixpath.dirname(p) == path)

    @tool("Read a text file.", {"path": _PATH}, ["path"])
    def read_file(self, path: str) -> JSON:
        path = _norm(path)
        if path not in self.state["files"]:
            raise ToolError(f"no file {path}")
        return self.state["files"][path]

    @tool("Size of a file in characters.", {"path": _PATH}, ["path"])
    def file_size(self, path: str) -> JSON:
        return len(self.read_file(path))

    @tool("Write a text file; an existing file is replaced only with overwrite=true.",
          {"path": _PATH, "content": {"type": "string"}, "overwrite": {"type": "boolean"}},
          ["path", "content"], mutates=True)  # fmt: skip
    def write_file(self, path: str, content: str, overwrite: bool = False) -> JSON:
        path = _norm(path)
        self._parent_exists(path)
        if path in self.state["dirs"] or (path in self.state["files"] and not overwrite):
            raise ToolError(f"{path} exists (pass overwrite=true to replace a file)")
        self.state["files"][path] = content
        return {"path": path, "size": len(content)}

    @tool("Create a directory (its parent must exist).", {"path": _PATH}, ["path"],
          mutates=True)  # fmt: skip
    def make_dir(self, path: str) -> JSON:
        path = _norm(path)
        self._parent_exists(path)
        if self._exists(path):
            raise ToolError(f"{path} exists")
        self.state["dirs"].append(path)
        return {"path": path}

    @tool("Move a file to a new path.", {"source": _PATH, "destination": _PATH},
          ["source", "destination"], mutates=True)  # fmt: skip
    def move(self, source: str, destination: str) -> JSON:
        source, destination = _norm(source), _norm(destination)
        if source not in self.state["files"]:
            raise ToolError(f"no file {source}")
        if destination in self.state["dirs"]:
            destination = posixpath.join(destination, posixpath.basename(source))
        self._parent_exists(destination)
        if self._exists(destination):
            raise ToolError(f"{destination} exists")
        self.state["files"][destination] = self.state["files"].pop(source)
        return {"path": destination}

    @tool("Delete a file or an empty directory.", {"path": _PATH}, ["path"], mutates=True)
    def delete(self, path: str) -> JSON:
        path = _norm(path)
        if path in self.state["files"]:
            del self.state["files"][path]
        elif path in self.state["dirs"] and path != "/":
            if any(
                posixpath.dirname(p) == path for p in [*self.state["dirs"], *self.state["files"]]
            ):
                raise ToolError(f"directory {path} is not empty")
            self.state["dirs"].remove(path)
        else:
            raise ToolError(f"no file or directory {path}")
        return {"deleted": path}
