"""Importers of outside result sets: each writes generated run and system records.

`import_mlperf` reads an mlcommons/inference_results_vX.Y checkout; `import_argonne`
the LLM-Inference-Bench tables; `import_trtllm` NVIDIA's TensorRT-LLM performance
overview. Normalisation is data: the tables in `mappings/`.

May import: records, and the base floor (errors, timing); a contract in pyproject.toml holds
it to that. Its command is cli/imports.py.
"""

from __future__ import annotations

from .argonne import import_argonne
from .common import ImportReport
from .mlperf import import_mlperf
from .trtllm import import_trtllm

__all__ = ["ImportReport", "import_argonne", "import_mlperf", "import_trtllm"]
