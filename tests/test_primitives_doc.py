"""docs/primitives.md and README's count of differentiable functions follow the registry.

When templates change, regenerate both with ``python -m srcad.docs_primitives`` (and
review the diff)."""

import subprocess
import sys
from pathlib import Path

import pytest

from srcad import docs_primitives, registry

ROOT = Path(__file__).resolve().parent.parent
HINT = "\n\nRegenerate with: python -m srcad.docs_primitives (then review the diff)."


@pytest.fixture(scope="module")
def with_scipy():
    # scipy's templates are registered only when scipy imports: the page lists them
    pytest.importorskip("scipy")


def test_page_and_readme_count_are_up_to_date(with_scipy):
    # in a process of its own: tests register templates of their own functions in this one
    checked = subprocess.run([sys.executable, "-m", "srcad.docs_primitives", "--check",
                              "--root", str(ROOT)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr + HINT


def test_check_reports_a_stale_page(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "primitives.md").write_text("# Primitives\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "srcad differentiates **1** functions, methods and operators\n", encoding="utf-8")
    assert docs_primitives.main(["--check", "--root", str(tmp_path)]) == 1
    assert "out of date" in capsys.readouterr().out
    assert docs_primitives.main(["--root", str(tmp_path)]) == 0  # rewrites both
    assert docs_primitives.main(["--check", "--root", str(tmp_path)]) == 0
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "**%d**" % docs_primitives.differentiable_count() in readme


def test_every_differentiable_primitive_has_a_row():
    page = docs_primitives.render()
    for primitive in registry.registered():
        if docs_primitives.is_differentiable(primitive):
            assert "| `%s` |" % docs_primitives._name(primitive) in page, primitive.name


def test_count_leaves_out_srcads_own_helpers():
    names = [p.name for p in registry.registered()
             if docs_primitives.is_differentiable(p) and not docs_primitives.is_internal(p)]
    assert len(names) == docs_primitives.differentiable_count()
    assert "numpy.sin" in names and "srcad.runtime.unbroadcast" not in names
