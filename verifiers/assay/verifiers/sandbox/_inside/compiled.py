"""A session's module compiled on the trusted side, and when the sandbox may run it as it is.

The trusted side compiles the candidate's module exactly as the run child would (the same file
name, ``dont_inherit``) and sends the code object down with the source (``marshal``, as every
request goes down): a fresh child then only loads it. Compiling there cost a fresh fork about
0.2 ms more than loading (the compiler's first use in a copy-on-write process), against 0.06 ms
in the warm trusted process. The child runs what the trusted side compiled from the
candidate's own source, which is what its own ``compile`` would have made; a module that does
not compile there, that warns, or whose compiling could be costly (long, or slow there) goes
down as source alone, so the child's ``compile`` reports the error, writes the warning, or
runs under the child's own limits, as before.

This is not the idea docs/code.md measured and dropped on 2026-12-02 (the *zygote* compiling,
inside the sandbox: its CPU rose as much as the children's fell, and it had the zygote compile
hostile source unbounded). Here the warm trusted worker compiles, within a size and time cap.
"""

from __future__ import annotations

import functools
import importlib.util
import sys

__all__ = ["code_tag"]


@functools.lru_cache(maxsize=8)  # one path a zygote, asked at every session's open
def code_tag(path: str) -> str:
    """What a code object compiled for ``path`` must match to run in a process: the bytecode's
    magic number, the optimization level, and the file name the child loads the module from."""
    return f"{importlib.util.MAGIC_NUMBER.hex()}/{sys.flags.optimize}/{path}"
