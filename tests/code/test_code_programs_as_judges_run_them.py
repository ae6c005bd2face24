"""Contest programs as Python judges run them: ``python3 solution.py < input``, compared on stdout.

Competitive programmers' Python leans on its process's real standard streams: PyRival's
``FastIO`` wrapper (``file.mode``, ``file.fileno()``, ``os.read`` / ``os.write`` on the
descriptors), ``open(0).read()``, ``sys.stdin.buffer``, ``os.read(0, ...)``. The labels here are
what CPython itself does with each program, run here as a judge runs it (a fresh interpreter,
stdin from the test's input); assay's stdio mode must agree.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from scoring import score

from assay.runner import Scorer

FAST_IO = 'import os\nimport sys\nfrom io import BytesIO, IOBase\n\nBUFSIZE = 8192\n\n\nclass FastIO(IOBase):\n    newlines = 0\n\n    def __init__(self, file):\n        self._fd = file.fileno()\n        self.buffer = BytesIO()\n        self.writable = "x" in file.mode or "r" not in file.mode\n        self.write = self.buffer.write if self.writable else None\n\n    def read(self):\n        while True:\n            b = os.read(self._fd, max(os.fstat(self._fd).st_size, BUFSIZE))\n            if not b:\n                break\n            ptr = self.buffer.tell()\n            self.buffer.seek(0, 2), self.buffer.write(b), self.buffer.seek(ptr)\n        self.newlines = 0\n        return self.buffer.read()\n\n    def readline(self):\n        while self.newlines == 0:\n            b = os.read(self._fd, max(os.fstat(self._fd).st_size, BUFSIZE))\n            self.newlines = b.count(b"\\n") + (not b)\n            ptr = self.buffer.tell()\n            self.buffer.seek(0, 2), self.buffer.write(b), self.buffer.seek(ptr)\n        self.newlines -= 1\n        return self.buffer.readline()\n\n    def flush(self):\n        if self.writable:\n            os.write(self._fd, self.buffer.getvalue())\n            self.buffer.truncate(0), self.buffer.seek(0)\n\n\nclass IOWrapper(IOBase):\n    def __init__(self, file):\n        self.buffer = FastIO(file)\n        self.flush = self.buffer.flush\n        self.writable = self.buffer.writable\n        self.write = lambda s: self.buffer.write(s.encode("ascii"))\n        self.read = lambda: self.buffer.read().decode("ascii")\n        self.readline = lambda: self.buffer.readline().decode("ascii")\n\n\nsys.stdin, sys.stdout = IOWrapper(sys.stdin), IOWrapper(sys.stdout)\ninput = lambda: sys.stdin.readline().rstrip("\\r\\n")\n\n\ndef main():\n    n = int(input())\n    a = list(map(int, input().split()))\n    print(sum(a) * n)\n\n\nif __name__ == "__main__":\n    main()\n'
PROGRAMS = {
    "pyrival-fastio": FAST_IO,
    "open-zero": "data = open(0).read().split()\nn = int(data[0])\nprint(sum(map(int, data[1:1 + n])) * n)\n",
    "buffer-readline": (
        "import sys\ninput = sys.stdin.buffer.readline\n"
        "n = int(input())\na = list(map(int, input().split()))\n"
        "sys.stdout.write(str(sum(a) * n) + '\\n')\n"
    ),
    "os-read-write": (
        "import os\ndata = os.read(0, 1 << 20).split()\nn = int(data[0])\n"
        "os.write(1, b'%d\\n' % (sum(map(int, data[1:1 + n])) * n))\n"
    ),
    "stream-attributes": (
        "import sys\nassert sys.stdin.mode == 'r' and sys.stdout.mode == 'w'\n"
        "assert sys.stdin.name == '<stdin>' and sys.stdout.name == '<stdout>'\n"
        "assert sys.stdin.fileno() == 0 and sys.stdout.fileno() == 1\n"
        "n = int(input())\nprint(sum(map(int, input().split())) * n)\n"
    ),
    "debug-on-stderr": (
        "import sys\nn = int(input())\na = list(map(int, input().split()))\n"
        "print('debug', a, file=sys.stderr)\nprint(sum(a) * n)\n"
    ),
    "fastio-wrong": FAST_IO.replace("sum(a) * n", "sum(a) + n"),
}
CASES = [{"stdin": "3\n1 2 3\n", "stdout": "18\n"}, {"stdin": "1\n5\n", "stdout": "5\n"}]


def judge(program: str, tmp_path: Path) -> bool:
    """The label: CPython runs the file with each input on stdin, as a judge does."""
    path = tmp_path / "solution.py"
    path.write_text(program)
    for case in CASES:
        run = subprocess.run([sys.executable, str(path)], input=case["stdin"].encode(),
                             capture_output=True, timeout=30, check=False)  # fmt: skip
        lines = run.stdout.decode().rstrip().splitlines()
        if run.returncode != 0 or [x.rstrip() for x in lines] != case["stdout"].split():
            return False
    return True


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_contest_programs_agree_with_cpython_run_as_a_judge_runs_it(
    code_scorer: Scorer, name: str, tmp_path: Path
) -> None:
    program = PROGRAMS[name]
    label = judge(program, tmp_path)
    assert label is (name != "fastio-wrong")  # the labels: every program but the wrong one passes
    row = {"domain": "code", "reference": {"stdio": CASES},
           "response": f"```python\n{program}```\n"}  # fmt: skip
    [result] = score(code_scorer, [row])
    assert (result.status.value == "correct") is label, result.verdict.message
