"""A differential fuzzer for srcad: random valid programs, every derivative checked.

``generate.py`` writes programs, ``check.py`` checks one, ``run.py`` runs many,
``reduce.py`` shrinks a failing one. ``tests/test_fuzz.py`` runs a fixed-seed batch.
"""
