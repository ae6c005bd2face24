"""`assay eval` over every registered verifier against the committed baseline (this is how
`make test` runs the regression suite), and its HTML report checked in headless Chromium."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from bundled_eval import EvalOutput
from PIL import Image

from assay.registry import list_domains

CHROMIUM = Path("/usr/bin/chromium")  # Debian's package, installed by scripts/system-deps.sh
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
]
PLOTS = ("rewards", "confusion", "latency")

# appended to a copy of the report: after layout and image decoding, record each plot's size
MEASURE = """<script>
window.addEventListener("load", () => {
  for (const figure of document.querySelectorAll("figure.plot")) {
    const img = figure.querySelector("img");
    const box = img.getBoundingClientRect();
    figure.setAttribute("data-measured",
      [img.complete ? 1 : 0, img.naturalWidth, img.naturalHeight,
       Math.round(box.width), Math.round(box.height), Math.round(box.top)].join(" "));
  }
  document.body.setAttribute("data-height", document.documentElement.scrollHeight);
});
</script>"""


def test_bundled_fixtures_match_the_committed_baseline(bundled: EvalOutput) -> None:
    # a failure here lists each flipped verdict: fix the verifier, or bump its version and
    # run `assay eval --update-baseline` (see docs/eval.md)
    assert bundled.code == 0, bundled.stdout
    assert "no regression against" in bundled.stdout


def test_json_has_every_registered_verifier(bundled: EvalOutput) -> None:
    data = json.loads(bundled.json.read_text(encoding="utf-8"))
    with_fixtures = {e.name for e in list_domains() if e.cls.fixtures is not None}
    assert {v["verifier"].rpartition("@")[0] for v in data["verifiers"]} == with_fixtures
    for verifier in data["verifiers"]:
        metrics = verifier["metrics"]
        assert metrics["cases"] == len(verifier["cases"]) > 0
        assert sum(metrics["status_counts"].values()) == metrics["cases"]
        assert 0 <= metrics["latency_p50_ms"] <= metrics["latency_p95_ms"]


def test_report_is_one_self_contained_file(bundled: EvalOutput) -> None:
    html = bundled.report.read_text(encoding="utf-8")
    assert "<script" not in html and "<link" not in html and "@import" not in html
    sources = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert sources and all(s.startswith("data:image/svg+xml;base64,") for s in sources)
    assert sorted(re.findall(r'data-plot="(\w+)"', html)) == sorted(PLOTS)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "profile"
    command = [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_report_renders_in_chromium(bundled: EvalOutput, tmp_path: Path) -> None:
    page = tmp_path / "measured.html"
    html = bundled.report.read_text(encoding="utf-8")
    page.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = _chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", page.as_uri()).stdout
    measured = dict(re.findall(r'data-plot="(\w+)"[^>]*data-measured="([\d ]+)"', dom))
    assert sorted(measured) == sorted(PLOTS), dom[:2000]
    bottom = 0
    for plot, numbers in measured.items():
        complete, natural_w, natural_h, width, height, top = map(int, numbers.split())
        assert complete == 1 and natural_w > 200 and natural_h > 100, (plot, numbers)
        assert width > 200 and height > 100, (plot, numbers)
        bottom = max(bottom, top + height)

    shot = tmp_path / "shot.png"
    _chromium(tmp_path, f"--window-size=1400,{bottom + 50}", f"--screenshot={shot}", page.as_uri())
    counts = _colours(Image.open(shot))
    not_white = 1 - counts.get((255, 255, 255), 0) / sum(counts.values())
    assert not_white > 0.05, f"screenshot is {not_white:.1%} non-white"
    # the plots' bar colours are on screen: the figures were drawn, not just their frames
    for colour in ((46, 125, 50), (198, 40, 40), (21, 101, 192)):  # green, red, latency blue
        assert counts.get(colour, 0) > 100, colour


def _colours(image: Image.Image) -> dict[tuple[int, int, int], int]:
    """Pixel count per RGB colour."""
    found = image.convert("RGB").getcolors(maxcolors=1 << 24) or []
    return {colour: count for count, colour in found}


def test_summary_png_is_drawn(bundled: EvalOutput) -> None:
    image = Image.open(bundled.summary)
    assert image.width > 500 and image.height > 300
    assert len(_colours(image)) > 20  # bars, labels and text, not a blank canvas
