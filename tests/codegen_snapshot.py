"""Every program srcad generates for a corpus, recorded: a check that a change to the
pipeline leaves the generated code byte for byte as it was.

    python -m tests.codegen_snapshot --write FILE [--part P/N]   record
    python -m tests.codegen_snapshot --check FILE [--part P/N]   compare (exit 1 on a change)

The corpus: for every case of tests/template_combos.py (and tests/scipy_combos.py when SciPy
imports) and every shape combination, the specialized gradient and jvp programs
tests/specialized_corpus.py walks; per case, the generic gradient's source and, for a case
of one differentiable operand, the hvp of its first combination (forward mode over the
generated gradient); the four workloads of ../shared/bench; the functions of
benchmarks/bench_codegen_scaling.py at 50 and 200 lines. Every call of
``pipeline.generate`` on the way is recorded, keyed by what the request asks for, so code
generated inside (recursive vjps, the gradient an hvp differentiates) is compared too.
``--part P/N`` takes every N-th case from the P-th (for running in parallel).
"""

from __future__ import annotations

import json
import re
import os
import sys
import tempfile
import warnings

os.environ.setdefault("SRCAD_CACHE", "0")

import numpy as np  # noqa: E402

import srcad  # noqa: E402
from srcad import cache, pipeline  # noqa: E402

_recorded: dict = {}
_TEMPORARY = re.compile(r"/tmp/srcad-[\w-]+/")  # the corpus's files, made afresh each run
_context = ["-"]


def _record(original):
    def generate(request, keep_stages=False):
        generated = original(request, keep_stages)
        function = request.function
        key = "%s | %s | %s | %r | %s | %s" % (
            _context[0], getattr(function, "__qualname__", function), request.mode,
            request, tuple(request.kinds) if request.kinds is not None else None,
            ",".join(sorted(request.enabled)))
        _recorded[key] = _TEMPORARY.sub("<tmp>/", generated.source)
        return generated

    return generate


def _cases(part):
    from tests.specialized_corpus import _programs
    from tests.template_combos import CASES
    from tests.test_template_combos import _wrt, inputs, scalarized

    index, count = part
    for case_index, case in enumerate(CASES):
        if case_index % count != index:
            continue
        _context[0] = case.name
        cache.clear()
        try:
            for _label, _source in _programs(case_index):
                pass
            if not case.forward_only:
                wrt = _wrt(case.differentiable)
                S = scalarized(case.f, case.wrap)
                srcad.grad(S, wrt=wrt).source  # noqa: B018 - the generic code
                if len(case.differentiable) == 1:
                    args, cotangent = inputs(case_index, 0)
                    v = np.ones_like(np.asarray(args[case.differentiable[0]], dtype=float))
                    with np.errstate(all="ignore"):
                        srcad.hvp(S, wrt=case.differentiable[0])(*args, cotangent, v)
        except Exception as error:  # noqa: BLE001 - recorded: a change must keep it too
            _recorded["%s | error" % case.name] = "%s: %s" % (type(error).__name__, error)


def _workloads():
    sys.path.insert(0, "/work/shared/bench")
    try:
        import workloads
    except ImportError:
        return
    for name, function, make, wrt in workloads.WORKLOADS:
        _context[0] = "workload " + name
        cache.clear()
        try:
            gradient = srcad.grad(function, wrt=wrt)
            gradient.source_for(*make(np))
            gradient.source  # noqa: B018
        except Exception as error:  # noqa: BLE001
            _recorded["workload %s | error" % name] = "%s: %s" % (type(error).__name__, error)


def _scaling():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    import bench_codegen_scaling as bench

    directory = tempfile.mkdtemp(prefix="srcad-snapshot-")
    args = bench.make_args()
    for lines in (50, 200):
        _context[0] = "scaling %d" % lines
        cache.clear()
        function, _ = bench.make_function(lines, directory)
        gradient = srcad.grad(function, wrt=(0, 1, 2))
        gradient(*args)
        gradient.source  # noqa: B018


def main(argv) -> int:
    mode, path, part = None, None, (0, 1)
    arguments = list(argv)
    while arguments:
        item = arguments.pop(0)
        if item in ("--write", "--check"):
            mode, path = item[2:], arguments.pop(0)
        elif item == "--part":
            index, count = arguments.pop(0).split("/")
            part = (int(index), int(count))
    if mode is None:
        print(__doc__)
        return 2
    pipeline.generate = _record(pipeline.generate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _cases(part)
        if part[0] == 0:
            _workloads()
            _scaling()
    if mode == "write":
        with open(path, "w") as file:
            json.dump(_recorded, file, indent=0, sort_keys=True)
        print("recorded %d programs in %s" % (len(_recorded), path))
        return 0
    with open(path) as file:
        expected = json.load(file)
    if part != (0, 1):  # only the keys this part makes
        made = {key.split(" | ")[0] for key in _recorded}
        expected = {key: value for key, value in expected.items()
                    if key.split(" | ")[0] in made}
    changed = sorted(key for key in expected.keys() & _recorded.keys()
                     if expected[key] != _recorded[key])
    missing = sorted(expected.keys() - _recorded.keys())
    new = sorted(_recorded.keys() - expected.keys())
    for key in changed[:20]:
        print("CHANGED:", key)
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            expected[key].splitlines(True), _recorded[key].splitlines(True), n=1))
    for key in missing[:10]:
        print("MISSING:", key)
    for key in new[:10]:
        print("NEW:", key)
    print("%d programs compared: %d changed, %d missing, %d new"
          % (len(_recorded), len(changed), len(missing), len(new)))
    return 1 if changed or missing or new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
