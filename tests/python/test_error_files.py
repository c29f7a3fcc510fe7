"""Runs every kernel of tests/errors/ (one user mistake each) and checks the
error against the `# EXPECT` header of its file: the exception class, the
exact message and the file:line:col it names (see tests/errors/README.md)."""

import glob
import importlib.util
import os
import re

import pytest

import tessera

ERRORS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "errors")
FILES = sorted(glob.glob(os.path.join(ERRORS_DIR, "*.py")))


def expectations(path):
    with open(path) as f:
        text = f.read()
    kind = re.search(r"^# EXPECT-ERROR: (\w+)$", text, re.M).group(1)
    m = re.search(r"^# EXPECT: ([^:]+):(\d+):(\d+): error: (.*)$", text, re.M)
    return kind, m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)


def test_there_are_error_files():
    assert len(FILES) >= 15


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p)[:-3] for p in FILES])
def test_error_file(backend, path):
    kind, file, line, col, message = expectations(path)
    assert file == os.path.basename(path), "the header names another file"
    spec = importlib.util.spec_from_file_location("tessera_error_" + os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(tessera.CompilationError) as info:
        module.launch()
    e = info.value
    assert type(e).__name__ == kind
    assert e.message == message
    assert os.path.abspath(e.file) == os.path.abspath(path)
    assert (e.line, e.col) == (line, col)
    assert str(e).splitlines()[0] == f"{e.file}:{line}:{col}: error: {message}"
