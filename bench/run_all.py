"""Run every benchmark in bench/ in turn (``make bench``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = 0
    for script in sorted(HERE.glob("*_bench.py")):
        print(f"\n=== {script.name}", flush=True)
        failed += subprocess.run([sys.executable, str(script)], check=False).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
