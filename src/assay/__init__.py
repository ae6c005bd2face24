"""assay: verifiers and reward functions for RL post-training.

The package is assembled from several top-level folders (``src``, ``verifiers``, ``domains``,
...); each contributes a piece of the ``assay`` namespace. Public names are imported lazily so
that ``import assay`` and the CLI start fast.
"""

from __future__ import annotations

import pkgutil
from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

__path__ = pkgutil.extend_path(__path__, __name__)
__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "AssayError": "assay.errors",
    "Check": "assay.types",
    "Record": "assay.types",
    "Result": "assay.types",
    "Status": "assay.types",
    "StepResult": "assay.types",
    "Verdict": "assay.types",
    "Verifier": "assay.verifier",
    "ascore": "assay.aio",
    "get_verifier": "assay.registry",
    "list_domains": "assay.registry",
    "score": "assay.api",
    "verify": "assay.api",
}

__all__ = [
    "AssayError",
    "Check",
    "Record",
    "Result",
    "Status",
    "StepResult",
    "Verdict",
    "Verifier",
    "__version__",
    "ascore",
    "get_verifier",
    "list_domains",
    "score",
    "verify",
]

if TYPE_CHECKING:
    from assay.aio import ascore as ascore
    from assay.api import score as score
    from assay.api import verify as verify
    from assay.errors import AssayError as AssayError
    from assay.registry import get_verifier as get_verifier
    from assay.registry import list_domains as list_domains
    from assay.types import Check as Check
    from assay.types import Record as Record
    from assay.types import Result as Result
    from assay.types import Status as Status
    from assay.types import StepResult as StepResult
    from assay.types import Verdict as Verdict
    from assay.verifier import Verifier as Verifier


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, __all__)
