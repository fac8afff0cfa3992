"""The README's Python examples run as written."""

import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        # The examples may show ML fits; their ZeroProbabilityWarning is documented.
        from bayesnb import ZeroProbabilityWarning

        warnings.simplefilter("ignore", ZeroProbabilityWarning)
        exec(compile(code, str(README), "exec"), {"__name__": "__main__"})
