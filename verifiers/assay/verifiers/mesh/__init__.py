"""Reusable geometry checks for 3D meshes (the ``mesh`` domain is built from these).

Modules, and the library each leans on:

- :mod:`.load`: find a mesh (or a program) in a response and decode it (trimesh's loaders,
  unprocessed so that validity sees the file as written).
- :mod:`.validity`: finite, merged, non-degenerate, watertight, wound consistently, positive
  volume (trimesh); :mod:`.intersect`: triangle self-intersections at a bounded cost (numpy
  BVH over sliced triangles, a visit budget).
- :mod:`.similarity`: Chamfer distance and F-score on surface samples (open3d KD-tree), exact
  volumetric IoU (manifold3d booleans).
- :mod:`.render`: depth and silhouette renders from canonical views (pyrender, EGL or OSMesa,
  one GL context per process).
- :mod:`.physics`: stability (shapely support polygon), interpenetration (manifold3d), holes
  (trimesh sections), wall thickness (trimesh ray casting), genus.
- :mod:`.program`: run a mesh-building program in the code sandbox.

Importing this package imports numpy and trimesh (pyrender only when a Renderer is made):
import it inside ``setup``/``verify``, not at the top of a verifier module, so that
``assay --help`` stays fast. See docs/mesh.md.
"""

from .intersect import self_intersections
from .load import FORMATS, MeshLoadError, MeshSource, decode_mesh, parse_response
from .physics import Stability, genus, hole_diameters, interpenetration, stability, wall_thickness
from .program import ProgramRun, run_mesh_program
from .render import VIEWS, Renderer, ViewComparison, compare_views, gl_platform
from .similarity import (
    ChamferResult,
    chamfer,
    fscore,
    noise_floor,
    sample_points,
    surface_distances,
    to_manifold,
    volumetric_iou,
)
from .validity import ValidityReport, merged, validity

__all__ = [
    "FORMATS",
    "VIEWS",
    "ChamferResult",
    "MeshLoadError",
    "MeshSource",
    "ProgramRun",
    "Renderer",
    "Stability",
    "ValidityReport",
    "ViewComparison",
    "chamfer",
    "compare_views",
    "decode_mesh",
    "fscore",
    "genus",
    "gl_platform",
    "hole_diameters",
    "interpenetration",
    "merged",
    "noise_floor",
    "parse_response",
    "run_mesh_program",
    "sample_points",
    "self_intersections",
    "stability",
    "surface_distances",
    "to_manifold",
    "validity",
    "volumetric_iou",
    "wall_thickness",
]
