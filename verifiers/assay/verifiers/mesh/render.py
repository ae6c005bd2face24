"""Offscreen depth renders and their comparison (pyrender, headless).

The GL platform is chosen before PyOpenGL is imported: ``PYOPENGL_PLATFORM`` if the caller set
it, else ``egl`` when libEGL exposes at least one device (Mesa's software device counts), else
``osmesa`` when libOSMesa is installed. One :class:`Renderer` holds one GL context and is
reused for every render of a worker process (a context costs far more than a small render:
see ``bench/mesh_bench.py``).

Views are orthographic and fixed by the *target*: centred on the target's bounding box, with a
half-width of 0.75 of its diagonal, from +X, +Y, +Z and the (1, 1, 1) diagonal. The candidate is
rendered with the same cameras, so a wrong size or position shows. Silhouette IoU compares
covered pixels; depth agreement is the share of the union where both are covered and their
depths differ by less than 2 % of the target diagonal.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import trimesh
from numpy.typing import NDArray

from assay.errors import VerifierError

__all__ = [
    "VIEWS",
    "Renderer",
    "ViewComparison",
    "camera_pose",
    "compare_views",
    "gl_platform",
    "orthographic_depth",
]

VIEWS: dict[str, tuple[float, float, float]] = {
    "+x": (1.0, 0.0, 0.0),
    "+y": (0.0, 1.0, 0.0),
    "+z": (0.0, 0.0, 1.0),
    "iso": (1.0, 1.0, 1.0),
}
DEPTH_TOLERANCE = 0.02


def gl_platform() -> str:
    """Pick and set ``PYOPENGL_PLATFORM`` (``egl`` or ``osmesa``) if the caller has not."""
    chosen = os.environ.get("PYOPENGL_PLATFORM")
    if chosen:
        return chosen
    chosen = "egl" if _egl_devices() > 0 else "osmesa"
    if chosen == "osmesa" and ctypes.util.find_library("OSMesa") is None:
        chosen = "egl"  # neither works; EGL's error message is the more useful one
    os.environ["PYOPENGL_PLATFORM"] = chosen
    return chosen


def _egl_devices() -> int:
    """Number of EGL devices (0 when libEGL or EGL_EXT_device_enumeration is missing)."""
    name = ctypes.util.find_library("EGL")
    if name is None:
        return 0
    try:
        egl = ctypes.CDLL(name)
        egl.eglGetProcAddress.restype = ctypes.c_void_p
        egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]
        address = egl.eglGetProcAddress(b"eglQueryDevicesEXT")
        if not address:
            return 0
        query = ctypes.CFUNCTYPE(
            ctypes.c_uint, ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)
        )(address)
        count = ctypes.c_int(0)
        query(0, None, ctypes.byref(count))
        return int(count.value)
    except OSError:
        return 0


@dataclass(frozen=True, slots=True)
class ViewComparison:
    """One view of candidate and target compared.

    Attributes:
        view: Name of the view (a key of :data:`VIEWS`).
        silhouette_iou: IoU of the covered pixels.
        depth_agreement: Share of the union covered by both with matching depth.
    """

    view: str
    silhouette_iou: float
    depth_agreement: float


class Renderer:
    """One offscreen GL context, reused for every depth render of this process.

    Args:
        size: Width and height of each render in pixels.
    """

    def __init__(self, size: int = 128) -> None:
        self.platform = gl_platform()
        import pyrender
        from OpenGL import error as gl_error

        self._pyrender: Any = pyrender
        self._egl_error: type[Exception] = gl_error.EGLError  # PyOpenGL, bound at import
        self.size = size
        self._context: Any = pyrender.OffscreenRenderer(size, size)
        self.renders = 0

    def depth(
        self, mesh: trimesh.Trimesh, center: NDArray[np.float64], extent: float, view: str
    ) -> NDArray[np.float32]:
        """A depth image (0 where nothing is hit) of ``mesh`` from ``view``."""
        return self.depths(mesh, center, extent, (view,))[view]

    def depths(
        self,
        mesh: trimesh.Trimesh,
        center: NDArray[np.float64],
        extent: float,
        views: Iterable[str],
    ) -> dict[str, NDArray[np.float32]]:
        """Depth images of ``mesh`` from each of ``views``: one scene, the camera moved."""
        pyrender = self._pyrender
        scene = pyrender.Scene()
        primitive = pyrender.Primitive(  # depth only: positions and indices, no normals
            positions=np.ascontiguousarray(mesh.vertices, dtype=np.float32),
            indices=np.ascontiguousarray(mesh.faces, dtype=np.uint32),
            mode=pyrender.constants.GLTF.TRIANGLES,
        )
        scene.add(pyrender.Mesh([primitive]))
        near, far = 0.01 * extent, 4.0 * extent
        camera = pyrender.OrthographicCamera(
            xmag=0.75 * extent, ymag=0.75 * extent, znear=near, zfar=far
        )
        node = scene.add(camera)
        images = {}
        for view in views:
            scene.set_pose(node, camera_pose(center, extent, VIEWS[view]))
            try:
                depth = self._context.render(scene, flags=pyrender.RenderFlags.DEPTH_ONLY)
            except self._egl_error as exc:  # the display or context, never the mesh
                raise VerifierError(f"the offscreen GL context failed: {exc!s:.300}") from None
            self.renders += 1
            images[view] = orthographic_depth(np.asarray(depth, dtype=np.float64), near, far)
        return images

    def close(self) -> None:
        """Release the GL context.

        Under EGL this terminates the display that every pyrender context of the process
        shares: close a renderer only when no other one is still in use.
        """
        self._context.delete()


def orthographic_depth(depth: NDArray[np.float64], near: float, far: float) -> NDArray[np.float32]:
    """Undo pyrender's perspective linearisation of an orthographic depth buffer.

    pyrender 0.1.45 turns every depth buffer into distances with the *perspective* formula
    ``d = 2nf / (f + n - z (f - n))``; for an orthographic camera the buffer is linear in the
    distance. Recover the normalized device depth ``z`` and map it linearly to ``[n, f]``.
    """
    hit = depth > 0
    ndc = (far + near - 2.0 * near * far / np.where(hit, depth, 1.0)) / (far - near)
    linear = near + 0.5 * (ndc + 1.0) * (far - near)
    return np.where(hit, linear, 0.0).astype(np.float32)


def camera_pose(
    center: NDArray[np.float64], extent: float, direction: tuple[float, float, float]
) -> NDArray[np.float64]:
    """Camera-to-world matrix looking at ``center`` from ``direction`` (OpenGL: looks down -z)."""
    back = np.asarray(direction, dtype=np.float64)
    back /= np.linalg.norm(back)
    helper = np.array([0.0, 0.0, 1.0]) if abs(back[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    right = np.cross(helper, back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2] = right, up, back
    pose[:3, 3] = center + back * 2.0 * extent
    return pose


def compare_views(
    candidate: NDArray[np.float32], target: NDArray[np.float32], extent: float, view: str
) -> ViewComparison:
    """Silhouette IoU and depth agreement of two depth images of one view."""
    covered_c, covered_t = candidate > 0, target > 0
    union = int((covered_c | covered_t).sum())
    if union == 0:
        return ViewComparison(view, 1.0, 1.0)
    both = covered_c & covered_t
    close = both & (np.abs(candidate - target) <= DEPTH_TOLERANCE * extent)
    return ViewComparison(view, float(both.sum()) / union, float(close.sum()) / union)
