"""Reusable geometry checks for 3D meshes (the ``mesh`` domain is built from these).

Modules, and the library each leans on:

- :mod:`.load`: find a mesh (or a program) in a response and decode it (trimesh's loaders,
  unprocessed so that validity sees the file as written).
- :mod:`.validity`: finite, merged, non-degenerate, watertight, wound consistently, positive
  volume (trimesh); :mod:`.intersect`: triangle self-intersections (scipy KD-tree + numpy).
- :mod:`.similarity`: Chamfer distance and F-score on surface samples (open3d KD-tree), exact
  volumetric IoU (manifold3d booleans).
- :mod:`.render`: depth and silhouette renders from canonical views (pyrender, EGL or OSMesa,
  one GL context per process).
- :mod:`.physics`: stability (shapely support polygon), interpenetration (manifold3d), holes
  (trimesh sections), wall thickness (trimesh ray casting), genus.
- :mod:`.program`: run a mesh-building program in the code sandbox.

Every module imports numpy and trimesh: import them inside ``setup``/``verify``, not at the top of
a verifier module, so that ``assay --help`` stays fast. See docs/mesh.md.
"""
