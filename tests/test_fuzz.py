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

from tests.fuzz.check import check
from tests.fuzz.generate import generate
from tests.fuzz.report import standalone_script
from tests.fuzz.run import program_seed, summarize

RUN_SEED = 20261201
PROGRAMS = int(os.environ.get("SRCAD_FUZZ_PROGRAMS", "200"))
SIZE = "small"
SHOWN = 5  # failing programs printed in full; the others are listed by seed


def test_generated_programs_pass_every_check(monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")  # one-off programs: no use caching their code
    outcomes = []
    failures = []
    for index in range(PROGRAMS):
        program = generate(program_seed(RUN_SEED, index), SIZE)
        outcome = check(program)
        outcomes.append(outcome)
        if outcome.status not in ("ok", "inconclusive"):
            failures.append((index, program, outcome))
    inconclusive = sum(o.status == "inconclusive" for o in outcomes)
    # a check that could rarely conclude would check nothing
    assert inconclusive <= 0.05 * PROGRAMS, summarize(outcomes)
    if failures:
        shown = "\n\n".join("program %d of run %d:\n%s" % (
            index, RUN_SEED, standalone_script(program, outcome, SIZE).split(
                "\n# ----------------")[0]) for index, program, outcome in failures[:SHOWN])
        rest = ", ".join("%d (seed %d: %s)" % (index, outcome.seed, outcome.summary()[:80])
                         for index, _, outcome in failures[SHOWN:])
        raise AssertionError("%s\n\n%s%s\n\nreproduce one with: python tests/fuzz/reduce.py "
                             "--run-seed %d --index I --size %s" % (
                                 summarize(outcomes), shown,
                                 "\n\nalso failing: " + rest if rest else "", RUN_SEED, SIZE))
