"""Shrink a failing program while the same failure persists (a minimal reproducer).

``python tests/fuzz/reduce.py --program-seed P [--size small] [-o out.py]`` (or ``--run-seed S
--index I`` for program I of a run.py run, or ``--script FILE`` for a script run.py saved)
regenerates or reads the program, checks it, and then
greedily tries smaller versions, keeping each one that still fails the same way (same
status, same group of checks, same signature: exception type and place, or the check that
disagrees) and is still a valid program (f runs and returns a finite scalar):

- delete a statement (module-level helpers included);
- replace an ``if``/``for``/``while`` by one of its bodies;
- replace an expression by one of its subexpressions, or by a constant;
- drop a parameter of f that is no longer used (and its argument; wrt follows).

Only the group of checks that failed is rerun for each candidate.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import re
import sys
import time
import warnings
from dataclasses import replace

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    os.environ.setdefault("SRCAD_CACHE", "0")

from tests.fuzz.check import check, group_of  # noqa: E402
from tests.fuzz.generate import generate  # noqa: E402
from tests.fuzz.report import standalone_script  # noqa: E402


def failure_key(problem):
    return (problem.status, group_of(problem), problem.signature)


def _statement_lists(tree):
    """Every list of statements in the tree, in a fixed order: (owner node, field name)."""
    out = []
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                out.append((node, name))
    return out


def statement_deletions(tree):
    """Trees with one statement fewer (a body that empties becomes ``pass``)."""
    count = sum(len(getattr(node, name)) for node, name in _statement_lists(tree))
    for k in range(count):
        candidate = copy.deepcopy(tree)
        seen = 0
        for node, name in _statement_lists(candidate):
            body = getattr(node, name)
            if seen + len(body) > k:
                index = k - seen
                if isinstance(body[index], ast.Import):
                    break
                del body[index]
                if not body and name == "body":
                    body.append(ast.Pass())
                yield candidate
                break
            seen += len(body)


def body_hoists(tree):
    """Trees where one compound statement is replaced by one of its bodies."""
    compounds = [n for n in ast.walk(tree) if isinstance(n, (ast.If, ast.For, ast.While))]
    for k in range(len(compounds)):
        for field in ("body", "orelse"):
            candidate = copy.deepcopy(tree)
            target = [n for n in ast.walk(candidate)
                      if isinstance(n, (ast.If, ast.For, ast.While))][k]
            replacement = getattr(target, field)
            if not replacement:
                continue
            for node, name in _statement_lists(candidate):
                body = getattr(node, name)
                if any(s is target for s in body):
                    index = next(i for i, s in enumerate(body) if s is target)
                    body[index:index + 1] = replacement
                    yield candidate
                    break


_SIMPLE = (ast.Name, ast.Constant)


def expression_simplifications(tree):
    """Trees where one expression is replaced by a direct subexpression or by ``0.5``
    (never a called function, never what a loop iterates over)."""
    def expressions(root):
        # what loops iterate over stays as generated: simplifying `p["v"]` to `p` would
        # iterate over a dict, which README does not list as supported
        kept = {id(n.func) for n in ast.walk(root) if isinstance(n, ast.Call)}
        for node in ast.walk(root):
            if isinstance(node, (ast.For, ast.comprehension)):
                kept |= {id(n) for n in ast.walk(node.iter)}
        return [n for n in ast.walk(root) if isinstance(n, ast.expr) and id(n) not in kept
                and not isinstance(n, _SIMPLE) and not isinstance(getattr(n, "ctx", None),
                                                                  ast.Store)]
    count = len(expressions(tree))
    for k in range(count):
        original = expressions(tree)[k]
        children = [c for c in ast.iter_child_nodes(original) if isinstance(c, ast.expr)
                    and not isinstance(c, (ast.Tuple, ast.List)) or False]
        children = [c for c in children if not isinstance(getattr(c, "ctx", None), ast.Store)]
        options = list(range(len(children))) + ["constant"]
        for option in options:
            candidate = copy.deepcopy(tree)
            target = expressions(candidate)[k]
            if option == "constant":
                new = ast.Constant(0.5)
            else:
                new = [c for c in ast.iter_child_nodes(target) if isinstance(c, ast.expr)
                       and not isinstance(c, (ast.Tuple, ast.List))
                       and not isinstance(getattr(c, "ctx", None), ast.Store)][option]
            if _replace_node(candidate, target, new):
                yield candidate


def _replace_node(tree, target, new) -> bool:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, new)
                return True
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item is target:
                        value[index] = new
                        return True
    return False


def parameter_drops(program, tree):
    """(tree, argument source, wrt) without one parameter of f that f no longer reads."""
    f = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f"), None)
    if f is None:  # f is a lambda calling f_def: its parameters are left as they are
        return
    used = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
    arguments = ast.parse(program.argument_source).body[0].value
    positions = program.wrt_positions
    for index, parameter in enumerate(f.args.args):
        if parameter.arg in used:
            continue
        new_positions = [p - (p > index) for p in positions if p != index]
        if not new_positions:
            continue
        candidate = copy.deepcopy(tree)
        f2 = next(n for n in candidate.body if isinstance(n, ast.FunctionDef) and n.name == "f")
        del f2.args.args[index]
        new_arguments = copy.deepcopy(arguments)
        del new_arguments.elts[index]
        wrt = new_positions[0] if isinstance(program.wrt, int) else tuple(new_positions)
        yield candidate, "arguments = %s\n" % ast.unparse(new_arguments), wrt


class Reducer:
    def __init__(self, program, problem, budget_seconds=600, log=None):
        self.key = failure_key(problem)
        self.group = group_of(problem)
        self.program = program
        self.deadline = time.time() + budget_seconds
        self.log = log or (lambda message: None)
        self.tries = 0

    def fails_the_same_way(self, candidate) -> bool:
        self.tries += 1
        outcome = check(candidate, only=None if self.group == "all" else {self.group})
        return any(failure_key(p) == self.key for p in outcome.problems)

    def candidate(self, tree, argument_source=None, wrt=None):
        try:
            source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
            compile(source, "<candidate>", "exec")
        except Exception:  # noqa: BLE001 - a malformed candidate is simply skipped
            return None
        return replace(self.program, source=source,
                       argument_source=argument_source or self.program.argument_source,
                       wrt=self.program.wrt if wrt is None else wrt)

    def reduce(self):
        warnings.filterwarnings("ignore", category=SyntaxWarning)  # candidates like `0.5(x)`
        start = self.candidate(ast.parse(self.program.source))
        if start is None or not self.fails_the_same_way(start):
            self.log("the unparsed program does not fail the same way; kept as it is")
            return self.program
        self.program = start
        progress = True
        while progress and time.time() < self.deadline:
            progress = False
            for make in (self.try_statements, self.try_hoists, self.try_parameters,
                         self.try_expressions):
                while time.time() < self.deadline and make():
                    progress = True
        return self.program

    def _first_success(self, candidates) -> bool:
        for item in candidates:
            if time.time() > self.deadline:
                return False
            tree, arguments, wrt = item if isinstance(item, tuple) else (item, None, None)
            candidate = self.candidate(tree, arguments, wrt)
            if candidate is None or candidate.source == self.program.source and \
                    arguments is None:
                continue
            if self.fails_the_same_way(candidate):
                self.program = candidate
                self.log("%d lines (%d tries)" % (candidate.source.count("\n"), self.tries))
                return True
        return False

    def try_statements(self):
        return self._first_success(statement_deletions(ast.parse(self.program.source)))

    def try_hoists(self):
        return self._first_success(body_hoists(ast.parse(self.program.source)))

    def try_expressions(self):
        return self._first_success(expression_simplifications(ast.parse(self.program.source)))

    def try_parameters(self):
        return self._first_success(parameter_drops(self.program,
                                                   ast.parse(self.program.source)))


def reduce_program(program, problem=None, budget_seconds=600, log=None):
    """The smallest program found that fails like ``problem`` (default: the first problem of
    a full check that is not inconclusive); and that problem."""
    if problem is None:
        outcome = check(program)
        problems = [p for p in outcome.problems if p.status not in ("inconclusive", "ok")]
        if not problems:
            return program, None
        problem = problems[0]
    reduced = Reducer(program, problem, budget_seconds, log).reduce()
    return reduced, problem


def program_of_script(path):
    """The program in a standalone script written by report.standalone_script."""
    from tests.fuzz.generate import Program
    from tests.fuzz.library import REPEATED_SPECTRUM

    text = open(path).read()
    body, _, rest = text.partition("\narguments = ")
    source = "\n".join(line for line in body.splitlines() if not line.startswith("#")).strip()
    argument_line = "arguments = " + rest.splitlines()[0] + "\n"
    wrt = ast.literal_eval(re.search(r"^wrt = (.*)$", rest, re.M).group(1))
    seed = int(re.search(r"seed (\d+)", text).group(1))
    return Program(seed=seed, source=source + "\n", function_name="f", arguments=[],
                   argument_source=argument_line, wrt=wrt,
                   repeated_spectra=REPEATED_SPECTRUM.split("%s")[0] in source)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program-seed", type=int)
    parser.add_argument("--script", help="a failing program saved by run.py --save")
    parser.add_argument("--run-seed", type=int)
    parser.add_argument("--index", type=int)
    parser.add_argument("--size", default="medium", choices=("small", "medium", "large"))
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--check", help="reduce for the first problem whose check "
                        "(or signature) contains this text")
    parser.add_argument("--skip", action="append", default=[],
                        help="ignore problems whose check or signature contains this text "
                        "(a known failure hiding the one of interest); may be repeated")
    parser.add_argument("--budget", type=float, default=600, help="seconds")
    parser.add_argument("-o", "--output", help="write the reduced standalone script here")
    options = parser.parse_args(argv)
    if options.script:
        program = program_of_script(options.script)
    else:
        if options.program_seed is None:
            from tests.fuzz.run import program_seed
            options.program_seed = program_seed(options.run_seed, options.index)
        program = generate(options.program_seed, options.size, options.exclude)
    outcome = check(program)
    problems = [p for p in outcome.problems if p.status not in ("inconclusive", "ok")]
    problems = [p for p in problems if not any(
        text in p.check or text in p.signature for text in options.skip)]
    if options.check:
        problems = [p for p in problems if options.check in p.check
                    or re.search(re.escape(options.check), p.signature)]
    if not problems:
        print("no matching failure: %s" % outcome.summary())
        return 1
    problem = problems[0]
    print("reducing for: %s [%s] %s" % (problem.status, problem.check, problem.signature))
    reduced, _ = reduce_program(program, problem, options.budget,
                                log=lambda message: print("  " + message, flush=True))
    final = check(reduced)
    script = standalone_script(reduced, final, options.size)
    if options.output:
        with open(options.output, "w") as file:
            file.write(script)
    print(script)
    return 0


if __name__ == "__main__":
    sys.exit(main())
