"""Timing shared by the benchmark scripts: how many calls make a sample, and samples of
several callables taken in alternating order (so a slow phase of a shared machine falls on
each of them alike)."""

from __future__ import annotations

import timeit


def calls_per_sample(function, minimum_seconds=0.02) -> int:
    number = 1
    while timeit.timeit(function, number=number) < minimum_seconds:
        number *= 2
    return number


def interleaved_samples(callables: dict, rounds: int) -> dict:
    """{key: [seconds per call, one per round]}, the callables' order reversed every round."""
    numbers = {key: calls_per_sample(function) for key, function in callables.items()}
    samples = {key: [] for key in callables}
    for round_ in range(rounds):
        order = list(callables) if round_ % 2 == 0 else list(callables)[::-1]
        for key in order:
            samples[key].append(timeit.timeit(callables[key], number=numbers[key])
                                / numbers[key])
    return samples
