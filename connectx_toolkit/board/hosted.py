"""Is this kernel hosted (Kaggle, Colab)? There the browser cannot reach the kernel's 127.0.0.1.

The board's server listens on the kernel's loopback; a notebook on a hosted service runs its kernel on a
machine of the service, so an IFrame at ``http://127.0.0.1:PORT`` opens the user's own machine instead.
Kaggle's kernels say so in ``KAGGLE_KERNEL_RUN_TYPE`` ("Interactive" in the editor, "Batch" when a
version is saved); Colab's import ``google.colab`` at start and set ``COLAB_RELEASE_TAG`` (Kaggle's image,
built on Colab's, sets it too: Kaggle is checked first).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Mapping

__all__ = ["hosted_kernel"]


def hosted_kernel(environ: Mapping[str, str] | None = None, modules: Any = None) -> str | None:
    """"Kaggle" or "Colab" when this process runs on that service, else None."""
    environ = os.environ if environ is None else environ
    modules = sys.modules if modules is None else modules
    if "KAGGLE_KERNEL_RUN_TYPE" in environ:
        return "Kaggle"
    if "google.colab" in modules or "COLAB_RELEASE_TAG" in environ or "COLAB_GPU" in environ:
        return "Colab"
    return None
