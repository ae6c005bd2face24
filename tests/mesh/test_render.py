"""Headless renders: the platform is chosen in code, one context serves every render."""

from __future__ import annotations

import os

import numpy as np
import pytest
import trimesh
from assay.verifiers.mesh.render import VIEWS, Renderer, camera_pose, compare_views, gl_platform


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(size=128)


def box(at: tuple[float, float, float] = (0, 0, 0)) -> trimesh.Trimesh:
    mesh = trimesh.creation.box((1, 1, 1))
    mesh.apply_translation(at)
    return mesh


def test_platform_is_set_without_help(renderer: Renderer) -> None:
    assert gl_platform() in ("egl", "osmesa")
    assert os.environ["PYOPENGL_PLATFORM"] == renderer.platform


def test_one_context_serves_every_render(renderer: Renderer) -> None:
    context = renderer._context
    before = renderer.renders
    for view in VIEWS:
        renderer.depth(box(), np.zeros(3), np.sqrt(3), view)
    assert renderer._context is context
    assert renderer.renders == before + len(VIEWS)


def test_one_scene_gives_each_view_what_a_scene_of_its_own_gives(renderer: Renderer) -> None:
    # the camera is moved between views of one scene; no view may see another's pose
    shape = trimesh.util.concatenate([box(), trimesh.creation.box((0.5, 2, 0.5))])
    together = renderer.depths(shape, np.zeros(3), 3.0, VIEWS)
    assert list(together) == list(VIEWS)
    for view in VIEWS:
        assert np.array_equal(together[view], renderer.depth(shape, np.zeros(3), 3.0, view))
    assert not np.array_equal(together["+x"], together["+y"])


@pytest.mark.parametrize("view", list(VIEWS))
def test_a_shape_matches_itself(renderer: Renderer, view: str) -> None:
    depth = renderer.depth(box(), np.zeros(3), np.sqrt(3), view)
    assert (depth > 0).sum() > 0
    result = compare_views(depth, depth.copy(), float(np.sqrt(3)), view)
    assert (result.silhouette_iou, result.depth_agreement) == (1.0, 1.0)


def test_silhouette_of_a_half_shifted_cube_from_above(renderer: Renderer) -> None:
    # seen from +z the two squares overlap by half: silhouette IoU 1/3 up to pixel rounding
    extent = float(np.sqrt(3))
    target = renderer.depth(box(), np.zeros(3), extent, "+z")
    shifted = renderer.depth(box((0.5, 0, 0)), np.zeros(3), extent, "+z")
    assert compare_views(shifted, target, extent, "+z").silhouette_iou == pytest.approx(
        1 / 3, abs=0.02
    )
    # from +x the shifted cube hides the target exactly, but it is 0.5 nearer the camera
    side_t = renderer.depth(box(), np.zeros(3), extent, "+x")
    side_s = renderer.depth(box((0.5, 0, 0)), np.zeros(3), extent, "+x")
    side = compare_views(side_s, side_t, extent, "+x")
    assert side.silhouette_iou == 1.0
    assert side.depth_agreement == 0.0


def test_orthographic_depth_is_the_distance_to_the_camera(renderer: Renderer) -> None:
    # the camera sits 2 * extent from the centre; the cube's +x face is 0.5 from it
    extent = float(np.sqrt(3))
    depth = renderer.depth(box(), np.zeros(3), extent, "+x")
    assert np.unique(depth[depth > 0]) == pytest.approx([2 * extent - 0.5], abs=1e-5)


def test_camera_pose_looks_at_the_centre() -> None:
    pose = camera_pose(np.array([1.0, 2.0, 3.0]), 2.0, (0.0, 0.0, 1.0))
    assert np.allclose(pose[:3, 3], [1, 2, 7])
    assert np.allclose(pose[:3, 2], [0, 0, 1])  # the camera looks down its -z
    assert np.allclose(pose[:3, :3] @ pose[:3, :3].T, np.eye(3))


SUBPROCESS_RENDER = """
import numpy as np, trimesh
from assay.verifiers.mesh.render import Renderer
renderer = Renderer(64)
depth = renderer.depth(trimesh.creation.box((1, 1, 1)), np.zeros(3), 3 ** 0.5, "+x")
print(renderer.platform, int((depth > 0).sum()), float(depth.max()))
"""


def _fresh_interpreter(code: str, platform: str) -> str:
    """What ``code`` prints in a fresh interpreter on ``platform`` (it must exit 0)."""
    import subprocess
    import sys

    env = {**os.environ, "PYOPENGL_PLATFORM": platform}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.mark.parametrize("platform", ["egl", "osmesa"])
def test_both_headless_platforms_render_the_same(platform: str) -> None:
    # a fresh interpreter per platform: PyOpenGL binds its platform once, at import
    name, covered, deepest = _fresh_interpreter(SUBPROCESS_RENDER, platform).split()
    assert name == platform
    # the unit cube's face is a square of 64 / (1.5 sqrt(3)) = 24.6 pixels a side, 2 sqrt(3) - 0.5
    # away from the camera
    assert int(covered) in (24 * 24, 24 * 25, 25 * 25)
    assert float(deepest) == pytest.approx(2 * 3**0.5 - 0.5, abs=1e-4)


def test_an_explicit_platform_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYOPENGL_PLATFORM", "osmesa")
    assert gl_platform() == "osmesa"


SUBPROCESS_LOST_DISPLAY = """
import numpy as np, trimesh
from assay.errors import VerifierError
from assay.verifiers.mesh.render import Renderer
kept = Renderer(32)
box = trimesh.creation.box((1, 1, 1))
kept.depth(box, np.zeros(3), 3 ** 0.5, "+x")
Renderer(32).close()  # under EGL this ends the display the kept renderer draws on
try:
    kept.depth(box, np.zeros(3), 3 ** 0.5, "+x")
except VerifierError as exc:
    print("VerifierError", str(exc).split(":")[0])
except Exception as exc:
    print("other", type(exc).__name__)
"""


def test_a_lost_gl_display_is_the_verifiers_error_not_the_meshs() -> None:
    # The mesh checks pay 0 for whatever a library raises on the response's geometry; an EGL
    # error says the display or context is gone, which no mesh causes: it must reach the
    # verdict as the verifier's own failure (``error``, masked), never as the mesh's fault.
    # A fresh interpreter: the lost display would break every renderer of this process.
    printed = _fresh_interpreter(SUBPROCESS_LOST_DISPLAY, "egl")
    assert printed.strip() == "VerifierError the offscreen GL context failed", printed
