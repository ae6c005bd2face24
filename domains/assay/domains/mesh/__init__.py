"""The 3D modeling domain (``mesh``, aliases ``3d`` and ``cad``); see docs/mesh.md."""
