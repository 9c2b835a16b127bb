"""A fixed-seed batch of generated programs through every check of the differential fuzzer.

Each program (tests/fuzz/generate.py) uses only constructs README says are supported, so
every one must come out ``ok`` (or ``inconclusive``: a finite-difference reference that
cannot be trusted at that point, see tests/fuzz/check.py). A ``wrong`` result, a crash, a
rejection (a ``SrcadError`` for a supported construct) or an invalid program (a fuzzer bug)
fails the test, which prints each failing program as a standalone script. The long run is
``python tests/fuzz/run.py --n 10000 --seed S``; ``python tests/fuzz/reduce.py`` shrinks a
failing program.
"""

from __future__ import annotations

import os

import multiprocessing

from tests.fuzz.run import check_one, summarize

RUN_SEED = 20261201
# Each program costs about nine code generations (grad, optimize=False, vjp, jvp, hvp...):
# about 0.5 s of CPU for a small one on this machine, hence 120 programs in two processes.
PROGRAMS = int(os.environ.get("SRCAD_FUZZ_PROGRAMS", "120"))
JOBS = int(os.environ.get("SRCAD_FUZZ_JOBS", "2"))
SIZE = "small"
SHOWN = 5  # failing programs printed in full; the others are listed by seed


def test_generated_programs_pass_every_check(monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")  # one-off programs: no use caching their code
    work = [(RUN_SEED, index, SIZE) for index in range(PROGRAMS)]
    if JOBS > 1:
        with multiprocessing.get_context("fork").Pool(JOBS) as pool:
            results = pool.map(check_one, work, chunksize=4)
    else:
        results = list(map(check_one, work))
    outcomes = [outcome for _, outcome, _ in results]
    failures = [(index, outcome, script) for index, outcome, script in results
                if outcome.status not in ("ok", "inconclusive")]
    inconclusive = sum(o.status == "inconclusive" for o in outcomes)
    # a check that could rarely conclude would check nothing
    assert inconclusive <= 0.05 * PROGRAMS, summarize(outcomes)
    if failures:
        shown = "\n\n".join("program %d of run %d:\n%s" % (
            index, RUN_SEED, script.split("\n# ----------------")[0])
            for index, _, script in failures[:SHOWN])
        rest = ", ".join("%d (seed %d: %s)" % (index, outcome.seed, outcome.summary()[:80])
                         for index, outcome, _ in failures[SHOWN:])
        raise AssertionError("%s\n\n%s%s\n\nreproduce one with: python tests/fuzz/reduce.py "
                             "--run-seed %d --index I --size %s" % (
                                 summarize(outcomes), shown,
                                 "\n\nalso failing: " + rest if rest else "", RUN_SEED, SIZE))
