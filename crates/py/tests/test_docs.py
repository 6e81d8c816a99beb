"""Every example of docs/python.md and README.md runs as written (from the repository's
root, where they find `examples/vadd.s`): the ```python blocks that start with an import;
the others are signatures."""

import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def examples(doc):
    text = (ROOT / doc).read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    return [b for b in blocks if b.startswith(("import ", "from "))]


CASES = [(doc, i, code) for doc in ["docs/python.md", "README.md"]
         for i, code in enumerate(examples(doc))]


def test_the_docs_have_examples():
    assert len([c for c in CASES if c[0] == "docs/python.md"]) >= 3


@pytest.mark.parametrize("doc,index,code", CASES, ids=[f"{d}#{i}" for d, i, _ in CASES])
def test_example_runs(doc, index, code, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    exec(compile(code, f"{doc} example {index}", "exec"), {"__name__": "__docs__"})
