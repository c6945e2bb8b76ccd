"""Score every corpus case with OSWorld's own metric functions; write the table as JSON.

Run in a throwaway environment that holds `desktop-env` (see README.md), never ours:

    /tmp/oswenv/bin/python evals/metrics_corpus/osworld_scores.py evals/metrics_corpus/osworld_scores.json

Heavy imports the metric modules do not use for these functions (easyocr, scikit-image,
pdfplumber) are replaced by empty modules, and the package's `__init__` (which imports every
domain's metrics) is bypassed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import tempfile
import types
from pathlib import Path

_STUBS = {"easyocr": [], "skimage": [], "skimage.color": ["deltaE_ciede2000", "rgb2lab"], "pdfplumber": []}


def _stub_heavy_imports() -> None:
    for name, attributes in _STUBS.items():
        module = types.ModuleType(name)
        for attribute in attributes:
            setattr(module, attribute, None)
        sys.modules[name] = module
    spec = importlib.util.find_spec("desktop_env")
    package = types.ModuleType("desktop_env.evaluators.metrics")
    package.__path__ = [str(Path(spec.origin).parent / "evaluators" / "metrics")]
    sys.modules["desktop_env.evaluators.metrics"] = package


def _osworld_metrics() -> dict:
    _stub_heavy_imports()
    table = importlib.import_module("desktop_env.evaluators.metrics.table")
    docs = importlib.import_module("desktop_env.evaluators.metrics.docs")
    slides = importlib.import_module("desktop_env.evaluators.metrics.slides")
    general = importlib.import_module("desktop_env.evaluators.metrics.general")
    return {
        "compare_table": table.compare_table,
        "compare_csv": table.compare_csv,
        "compare_docx_files": docs.compare_docx_files,
        "compare_pptx_files": slides.compare_pptx_files,
        "exact_match": general.exact_match,
        "diff_text_file": general.diff_text_file,
        "check_include_exclude": general.check_include_exclude,
    }


def main(out: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from cases import build, call  # the corpus module, imported without our package

    metrics = _osworld_metrics()
    table = {}
    with tempfile.TemporaryDirectory() as folder:
        for case_id, case in build(Path(folder)).items():
            try:
                table[case_id] = {"score": float(call(metrics, case))}
            except Exception as exc:  # the table records OSWorld's exception, as its runner would see it
                table[case_id] = {"raises": type(exc).__name__}
    Path(out).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
