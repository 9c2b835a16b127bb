"""Test-session settings shared by every test module."""

import os
import shutil
import tempfile
import zlib

import numpy as np
import pytest

# srcad's persistent cache of generated code: the whole test session uses a fresh
# directory of its own (inherited by the subprocesses tests start), never the user's
# ~/.cache/srcad, so a run neither depends on nor fills the real cache.
_SESSION_CACHE = tempfile.mkdtemp(prefix="srcad-test-cache-")
os.environ["SRCAD_CACHE_DIR"] = _SESSION_CACHE
os.environ.pop("SRCAD_CACHE", None)

# The debug mode: after every pass, check what its docstring says holds after it
# (srcad/invariants.py), so a pass that breaks its contract fails at that pass. Off for
# users (it costs time); on for every test, and for the subprocesses tests start.
os.environ.setdefault("SRCAD_CHECK_INVARIANTS", "1")


def pytest_unconfigure(config):
    shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _reseed_module_generators(request):
    """Each test draws the same inputs whether it runs alone or after others.

    Test modules keep a module-level ``RNG`` (a ``np.random.RandomState``); what a
    test drew from it depended on how many draws the tests before it made, so a
    failure seen in a whole run could vanish with ``-k``. Before each test, every
    such generator is reseeded from a stable hash of the test's id (zlib.crc32,
    never Python's salted ``hash``). Draws made at import (case tables) are
    unaffected: they happen once, in a fixed order.
    """
    seed = zlib.crc32(request.node.nodeid.encode())
    for value in vars(request.module).values():
        if isinstance(value, np.random.RandomState):
            value.seed(seed)
