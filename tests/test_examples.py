"""The examples run and succeed (they are part of what a newcomer tries first)."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("script, args", [("quickstart.py", []), ("newton_cg.py", ["30"])])
def test_example_runs(script, args):
    result = subprocess.run([sys.executable, str(EXAMPLES / script)] + args,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
