"""Test-session settings shared by every test module."""

import os
import shutil
import tempfile

# srcad's persistent cache of generated code: the whole test session uses a fresh
# directory of its own (inherited by the subprocesses tests start), never the user's
# ~/.cache/srcad, so a run neither depends on nor fills the real cache.
_SESSION_CACHE = tempfile.mkdtemp(prefix="srcad-test-cache-")
os.environ["SRCAD_CACHE_DIR"] = _SESSION_CACHE
os.environ.pop("SRCAD_CACHE", None)


def pytest_unconfigure(config):
    shutil.rmtree(_SESSION_CACHE, ignore_errors=True)
