"""A differential fuzzer for srcad: random valid programs, every derivative checked.

- ``generate.py``: ``generate(seed, size)`` -> a random, valid program (module text, its
  arguments, which to differentiate) using only constructs README lists as supported;
  ``python tests/fuzz/generate.py SEED`` prints one.
- ``library.py``: the NumPy/SciPy/math primitives generated expressions use (reductions with
  axis/keepdims/ddof, scans, linalg on matrices inside each function's domain, products,
  shape operations, scipy.special/stats/linalg when SciPy imports); ``--exclude library``
  gives the programs the generator made before it had them.
- ``check.py``: ``check(program)`` runs every check (value, gradient vs central
  differences, vjp, forward vs reverse dot-product test, hvp vs differences of the
  gradient, optimize=False, no mutated argument) -> ok / wrong / crash / rejected /
  inconclusive / invalid.
- ``run.py``: ``python tests/fuzz/run.py --n 10000 --seed S [--size small|medium|large]
  [--jobs K] [--save DIR]``: counts by outcome; failing programs saved as standalone
  scripts.
- ``reduce.py``: ``python tests/fuzz/reduce.py --run-seed S --index I`` (or ``--script
  FILE``): shrinks a failing program while the same failure persists.
- ``report.py``: the standalone script of a failing program.
- ``snapshot.py``: the code srcad generates for N programs, to compare two versions of
  srcad (a refactor or speed-up must not change it).

``tests/test_fuzz.py`` runs a fixed-seed batch of small programs and the fuzzer's self-tests.
"""
