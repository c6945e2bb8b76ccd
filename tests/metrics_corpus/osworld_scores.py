"""Score every corpus case with OSWorld's own metric functions; write the table as JSON.

Run in a throwaway environment that holds `desktop-env` (see README.md), never ours:

    /tmp/oswenv/bin/python tests/metrics_corpus/osworld_scores.py cases tests/metrics_corpus/osworld_scores.json

The first argument names the corpus module (`cases`, or a family's `cases_<family>`).

Heavy imports the metric modules do not use for these functions (easyocr, borb, pdfplumber, and
the audio libraries of metrics/vlc.py) are replaced by empty modules when they are not installed (the
image and colour metrics need the real scikit-image), and the package's `__init__` (which imports
every domain's metrics) is bypassed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import sys
import tempfile
import types
from pathlib import Path

_STUBS = {
    "easyocr": [],
    "borb": [],
    "borb.pdf": ["Document", "PDF"],
    "skimage": [],
    "skimage.color": ["deltaE_ciede2000", "rgb2lab"],
    "pdfplumber": [],
    "acoustid": [],
    "fastdtw": ["fastdtw"],
}


def _stub_heavy_imports() -> None:
    for name, attributes in _STUBS.items():
        if importlib.util.find_spec(name.partition(".")[0]) is not None:
            continue
        module = types.ModuleType(name)
        for attribute in attributes:
            setattr(module, attribute, None)
        sys.modules[name] = module
    spec = importlib.util.find_spec("desktop_env")
    package = types.ModuleType("desktop_env.evaluators.metrics")
    package.__path__ = [str(Path(spec.origin).parent / "evaluators" / "metrics")]
    sys.modules["desktop_env.evaluators.metrics"] = package


class _OSWorldMetrics(dict):
    """OSWorld's metric functions by name, looked up in every module of its metrics package (a module's
    own functions: slides.py also has a nested `compare_images`)."""

    def __missing__(self, name: str):
        folder = Path(sys.modules["desktop_env.evaluators.metrics"].__path__[0])
        for source in sorted(folder.glob("*.py")):
            if re.search(rf"^def {name}\(", source.read_text(encoding="utf-8"), re.MULTILINE):
                module = importlib.import_module(f"desktop_env.evaluators.metrics.{source.stem}")
                self[name] = getattr(module, name)
                return self[name]
        raise KeyError(name)


def main(cases_module: str, out: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    cases = importlib.import_module(cases_module)  # a corpus module, imported without our package
    _stub_heavy_imports()
    metrics = _OSWorldMetrics()
    target = Path(out).resolve()  # before the working folder changes
    table = {}
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # some functions write scratch files (temp.pdf) to the working folder
        for case_id, case in cases.build(Path(folder)).items():
            try:
                table[case_id] = {"score": float(cases.call(metrics, case))}
            except Exception as exc:  # the table records OSWorld's exception, as its runner would see it
                table[case_id] = {"raises": type(exc).__name__}
    target.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
