"""Mutation testing of srcad's passes: which small code changes does the test suite miss?

    python tests/mutation/run.py --sample 240 --seed 9          # a deterministic sample
    python tests/mutation/run.py --files 'srcad/optimize/*.py'  # every mutant of some files
    python tests/mutation/run.py --list                         # survivors of the last run

Each mutant (tests/mutation/mutate.py: one small AST change, e.g. ``<`` -> ``>=``,
``and`` -> ``or``, a statement removed, ``return x`` -> ``return None``) is applied
to a *copy* of the repository in a temporary directory, never to the working tree,
and a fast, deterministic selection of the test suite runs against that copy
with ``pytest -x``: the test files (fastest first; the persistent-cache, CLI and
codegen tests left out) that execute the mutated line. Which file executes which
line is recorded once per state of the code (tests/mutation/trace_lines.py, one
process per test file, cached under tests/mutation/.trace-cache/);
``--select all`` runs every file for every mutant instead. The outcome is

``killed``     a test failed (or a test module failed to load) with the mutant in place;
``survived``   every selected test passed: the suite cannot tell the mutant from srcad;
``uncovered``  no selected test file executes the mutated line (a survivor, not run);
``timeout``    the tests did not finish within the time limit (counted as detected);
``invalid``    the mutated module does not even import (not a meaningful mutant);
``equivalent`` survived, but listed in tests/mutation/equivalent.txt with the reason it
               cannot be observed.

Before the mutants, three checks make the results trustworthy: the copy's ``srcad``
and ``srcad.templates`` (which the editable install finds in the working tree through
a finder hook) are the ones imported, in the test process and in processes tests
start; the selection passes on the copy with every target file round-tripped through
``ast.unparse`` (mutants are written that way); and the selection fails when the
copy's pipeline is broken on purpose.

Workers (``--jobs``) each own one copy; a mutated file is restored after its run.
The report (``--report``, JSON) holds the configuration, the counts, and every
mutant's outcome, time and killing test; ``--list`` prints its survivors.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import glob
import hashlib
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import mutate  # noqa: E402  (this folder is not a package: run as a script)

DEFAULT_FILES = ["srcad/normalize/*.py", "srcad/transform/*.py", "srcad/optimize/*.py"]
DEFAULT_REPORT = os.path.join(HERE, "report.json")
EQUIVALENT_LIST = os.path.join(HERE, "equivalent.txt")
TRACE_CACHE = os.path.join(HERE, ".trace-cache")

# Test files in the order they run: quick ones that exercise every pass first, so most
# mutants die within seconds; the slowest last. Left out: test_examples and test_docs run
# their code in processes of their own, which the line tracer does not see (and use
# nothing the other files do not); test_template_combos checks each template on 14,000
# broadcast combinations (minutes, the primitives rather than the passes); test_fuzz
# takes about a minute per run (add it with --tests: it then runs in one process, so the
# tracer sees it).
FIRST_TESTS = ["test_golden.py", "test_control_flow.py", "test_calls.py",
               "test_containers.py", "test_inplace.py", "test_api.py", "test_errors.py",
               "test_cache_and_emit.py"]
LAST_TESTS = ["test_modes.py", "test_templates.py", "test_codegen.py", "test_cli.py",
              "test_persistent_cache.py"]
EXCLUDED_TESTS = ["test_examples.py", "test_docs.py", "test_template_combos.py",
                  "test_fuzz.py"]

COPY_IGNORED = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".pytest_cache",
                                      "build", "dist", "report.json", ".trace-cache")
INVALID_EXIT = 97  # the mutated module does not import
WRONG_COPY_EXIT = 98  # srcad was not imported from the copy: the run is meaningless

# Run in the test process before pytest: srcad (and its templates) must come from the
# copy, not from the working tree the editable install points at.
BOOTSTRAP = r'''
import importlib, os, sys
copy, module = sys.argv[1], sys.argv[2]
def inside(path):
    return os.path.realpath(path).startswith(os.path.realpath(copy) + os.sep)
sys.path.insert(0, copy)
import srcad, srcad.templates
if not (inside(srcad.__file__) and all(inside(p) for p in srcad.templates.__path__)):
    print("srcad imported from %s, templates from %s, not from the copy %s"
          % (srcad.__file__, list(srcad.templates.__path__), copy))
    sys.exit(WRONG_COPY_EXIT)
if module:
    try:
        loaded = importlib.import_module(module)
    except Exception as exc:
        print("mutated module does not import: %r" % (exc,))
        sys.exit(INVALID_EXIT)
    if not inside(loaded.__file__):
        print("%s imported from %s" % (module, loaded.__file__))
        sys.exit(WRONG_COPY_EXIT)
import pytest
sys.exit(pytest.main(sys.argv[3:]))
'''.replace("WRONG_COPY_EXIT", str(WRONG_COPY_EXIT)).replace("INVALID_EXIT", str(INVALID_EXIT))

# A process started by a test (examples, subprocess checks) must import the copy too.
CHILD_CHECK = r'''
import os, sys, srcad, srcad.templates
copy = os.path.realpath(sys.argv[1]) + os.sep
paths = [srcad.__file__] + list(srcad.templates.__path__)
sys.exit(0 if all(os.path.realpath(p).startswith(copy) for p in paths) else 1)
'''


# ------------------------------------------------------------------ selection


def target_files(patterns, root=ROOT) -> list[str]:
    found = set()
    for pattern in patterns:
        for path in glob.glob(os.path.join(root, pattern)):
            if path.endswith(".py") and os.path.isfile(path):
                found.add(os.path.relpath(path, root).replace(os.sep, "/"))
    return sorted(found)


def all_mutants(files, root=ROOT) -> list:
    found = []
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8") as stream:
            found.extend(mutate.mutants(path, stream.read()))
    return found


def sampled(mutants, size, seed) -> list:
    if size is None or size >= len(mutants):
        return list(mutants)
    chosen = random.Random(seed).sample(range(len(mutants)), size)
    return [mutants[i] for i in sorted(chosen)]


def selected(mutants, args) -> list:
    chosen = sampled(mutants, args.sample, args.seed)
    if args.only:
        chosen = [m for m in chosen if any(fnmatch.fnmatchcase(m.key, p) for p in args.only)]
    return chosen


def default_tests(root=ROOT) -> list[str]:
    present = sorted(os.path.basename(p) for p in glob.glob(os.path.join(root, "tests",
                                                                         "test_*.py")))
    middle = [t for t in present if t not in FIRST_TESTS + LAST_TESTS + EXCLUDED_TESTS]
    ordered = [t for t in FIRST_TESTS if t in present] + middle + [t for t in LAST_TESTS
                                                                   if t in present]
    return ["tests/" + t for t in ordered]


def equivalent_mutants() -> dict:
    """Keys of survivors known to be unobservable, with the reason (equivalent.txt)."""
    known = {}
    if os.path.exists(EQUIVALENT_LIST):
        with open(EQUIVALENT_LIST, encoding="utf-8") as stream:
            for line in stream:
                line = line.strip()
                if line and not line.startswith("#"):
                    key, _, reason = line.partition(" ")
                    known[key] = reason.strip()
    return known


# ------------------------------------------------------------------ copies and runs


class Worker:
    """A copy of the repository in a temporary directory, where one mutant at a time runs.

    The first worker copies the working tree; the others copy the first, so every
    worker (and the list of mutants, read from the first) sees one snapshot even if
    the working tree changes during the run.
    """

    def __init__(self, number, source=None):
        self.base = tempfile.mkdtemp(prefix="srcad-mutation-%d-" % number)
        self.root = os.path.join(self.base, "repo")
        shutil.copytree(source or ROOT, self.root, ignore=COPY_IGNORED)

    def path(self, relative):
        return os.path.join(self.root, relative)

    def write(self, relative, text):
        with open(self.path(relative), "w", encoding="utf-8") as stream:
            stream.write(text)

    def read(self, relative):
        with open(self.path(relative), encoding="utf-8") as stream:
            return stream.read()

    def environment(self, **extra):
        env = dict(os.environ)
        env.update(PYTHONPATH=self.root, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1",
                   OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   SRCAD_FUZZ_JOBS="1")  # test_fuzz in this process: the tracer sees it
        for name in ("SRCAD_CACHE", "SRCAD_CACHE_DIR", "SRCAD_CACHE_DEBUG"):
            env.pop(name, None)  # tests/conftest.py gives each run a fresh cache directory
        env.update(extra)
        return env

    def run_tests(self, tests, module, timeout, plugin_args=(), **env):
        """(exit code or None on timeout, seconds, output) of the selection on this copy."""
        command = [sys.executable, "-c", BOOTSTRAP, self.root, module or "", "-x", "-q",
                   "-p", "no:cacheprovider", "-o", "addopts=", *plugin_args, *tests]
        start = time.monotonic()
        process = subprocess.Popen(command, cwd=self.root, env=self.environment(**env),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
            code = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the process group this run started
            output, _ = process.communicate()
            code = None
        return code, time.monotonic() - start, output

    def child_imports_copy(self) -> bool:
        result = subprocess.run([sys.executable, "-c", CHILD_CHECK, self.root], cwd=self.root,
                                env=self.environment(), check=False)
        return result.returncode == 0

    def remove(self):
        shutil.rmtree(self.base, ignore_errors=True)


def module_name(path) -> str:
    return path[:-3].replace("/", ".").removesuffix(".__init__")


def failing_test(output) -> str | None:
    match = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)
    return match.group(1) if match else None


def classify(code) -> str:
    if code is None:
        return "timeout"
    if code == 0:
        return "survived"
    if code in (1, 2):  # failed tests, or a test module that no longer loads
        return "killed"
    if code == INVALID_EXIT:
        return "invalid"
    return "error"


def mutant_result(mutant, outcome, seconds=0.0, tests=()) -> dict:
    return {"key": mutant.key, "path": mutant.path, "line": mutant.line,
            "col": mutant.col + 1, "operator": mutant.operator, "function": mutant.function,
            "before": mutant.before, "after": mutant.after, "outcome": outcome,
            "seconds": round(seconds, 2), "tests": [os.path.basename(t) for t in tests]}


def run_mutant(worker, mutant, tests, timeout) -> dict:
    original = worker.read(mutant.path)
    worker.write(mutant.path, mutate.mutated_source(original, mutant.index))
    try:
        code, seconds, output = worker.run_tests(tests, module_name(mutant.path), timeout)
    finally:
        worker.write(mutant.path, original)
    if code == WRONG_COPY_EXIT:
        raise RuntimeError("the tests did not import the copy's srcad:\n" + output[-2000:])
    outcome = classify(code)
    result = mutant_result(mutant, outcome, seconds, tests)
    if outcome == "killed":
        result["killed_by"] = failing_test(output)
    if outcome in ("error", "invalid"):
        result["output"] = output[-3000:]
    return result


# ------------------------------------------------------------------ which file runs which line


def trace_key(files, tests, root) -> str:
    """A digest of everything the line record depends on: srcad, its templates, the tests."""
    digest = hashlib.sha256(json.dumps([files, tests, sys.version]).encode())
    for folder in ("srcad", "tests"):
        for base, subfolders, names in os.walk(os.path.join(root, folder)):
            subfolders[:] = sorted(d for d in subfolders
                                   if d not in ("__pycache__", ".trace-cache"))
            for name in sorted(names):
                if name.endswith((".py", ".txt")) or base.endswith("golden"):
                    path = os.path.join(base, name)
                    digest.update(os.path.relpath(path, root).encode() + b"\0")
                    with open(path, "rb") as stream:
                        digest.update(stream.read())
    return digest.hexdigest()[:24]


def trace(workers, files, tests, log) -> dict:
    """{test file: {"lines": {target: set of executed lines}, "seconds": s}}, cached."""
    key = trace_key(files, tests, workers[0].root)
    cached = os.path.join(TRACE_CACHE, key + ".json")
    if os.path.exists(cached):
        with open(cached, encoding="utf-8") as stream:
            record = json.load(stream)
        log("line record of each test file: %s (cached)" % os.path.relpath(cached, ROOT))
    else:
        record = {}
        idle: queue.Queue = queue.Queue()
        for worker in workers:
            idle.put(worker)

        def one(test):
            worker = idle.get()
            try:
                out = os.path.join(worker.base, "trace-%s.json" % os.path.basename(test))
                watched = os.pathsep.join(os.path.realpath(worker.path(f)) for f in files)
                code, seconds, output = worker.run_tests(
                    [test], "", None, plugin_args=("-p", "trace_lines"),
                    PYTHONPATH=os.pathsep.join([worker.root, worker.path("tests/mutation")]),
                    MUTATION_TRACE_FILES=watched, MUTATION_TRACE_OUT=out)
                if code != 0:
                    raise RuntimeError("%s fails on the unmutated copy (exit %s):\n%s"
                                       % (test, code, output[-4000:]))
                with open(out, encoding="utf-8") as stream:
                    data = json.load(stream)
                lines = {os.path.relpath(p, os.path.realpath(worker.root)).replace(os.sep, "/"):
                         v for p, v in data["lines"].items()}
                return test, {"lines": lines, "seconds": round(seconds, 2)}
            finally:
                idle.put(worker)

        with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
            for test, entry in pool.map(one, tests):
                record[test] = entry
                log("traced %s: %.1f s" % (test, entry["seconds"]))
        os.makedirs(TRACE_CACHE, exist_ok=True)
        write_report(cached, record)
    return {test: {"lines": {p: set(v) for p, v in entry["lines"].items()},
                   "seconds": entry["seconds"]} for test, entry in record.items()}


def tests_for(mutant, tests, record) -> list[str]:
    """The test files that execute the mutated code (all of them for import-time code)."""
    if record is None or mutant.span is None:
        return list(tests)
    first, last = mutant.span
    return [test for test in tests
            if any(first <= line <= last
                   for line in record[test]["lines"].get(mutant.path, ()))]


def self_check(worker, files, tests, log) -> float:
    """Prove the copy is what runs; return the selection's time on the unmutated copy."""
    if not worker.child_imports_copy():
        raise RuntimeError("a process started in the copy imports srcad from elsewhere")
    originals = {path: worker.read(path) for path in files}
    for path, text in originals.items():
        worker.write(path, mutate.unparsed_source(text))
    try:
        code, seconds, output = worker.run_tests(tests, "", timeout=None)
    finally:
        for path, text in originals.items():
            worker.write(path, text)
    if code != 0:
        raise RuntimeError("the selection fails on the unmutated copy (exit %s):\n%s"
                           % (code, output[-4000:]))
    log("control run (targets through ast.unparse, no mutant): passed in %.1f s" % seconds)
    pipeline = worker.read("srcad/pipeline.py")
    worker.write("srcad/pipeline.py", pipeline + "\n\ndef generate_reverse(*args, **kwargs):\n"
                 "    raise RuntimeError('broken on purpose by tests/mutation/run.py')\n")
    try:
        code, broken_seconds, output = worker.run_tests(tests, "srcad.pipeline",
                                                        timeout=max(120.0, 3 * seconds))
    finally:
        worker.write("srcad/pipeline.py", pipeline)
    if code != 1:
        raise RuntimeError("the selection does not notice a broken pipeline in the copy "
                           "(exit %s):\n%s" % (code, output[-4000:]))
    log("canary (copy's pipeline broken on purpose): killed in %.1f s" % broken_seconds)
    return seconds


# ------------------------------------------------------------------ report


OUTCOMES = ("killed", "timeout", "survived", "uncovered", "equivalent", "invalid", "error")


def summarize(results) -> dict:
    counts = {outcome: 0 for outcome in OUTCOMES}
    by_file: dict = {}
    by_operator: dict = {}
    for result in results:
        counts[result["outcome"]] += 1
        for table, name in ((by_file, result["path"]), (by_operator, result["operator"])):
            row = table.setdefault(name, {outcome: 0 for outcome in OUTCOMES})
            row[result["outcome"]] += 1
    detected = counts["killed"] + counts["timeout"]
    meaningful = detected + counts["survived"] + counts["uncovered"]
    return {"counts": counts, "score": round(detected / meaningful, 4) if meaningful else None,
            "by_file": by_file, "by_operator": by_operator}


def describe(result) -> str:
    return "%s:%d:%d [%s] in %s: %s  ->  %s" % (
        result["path"], result["line"], result["col"], result["operator"], result["function"],
        mutate._short(result["before"]), mutate._short(result["after"]))


def print_summary(report, out=sys.stdout):
    summary = report["summary"]
    counts = summary["counts"]
    print("mutants: %d of %d (seed %s); %s" % (
        len(report["results"]), report["config"]["total_mutants"], report["config"]["seed"],
        ", ".join("%s %d" % (k, v) for k, v in counts.items() if v)), file=out)
    print("mutation score (killed+timeout)/(killed+timeout+survived+uncovered): %s"
          % summary["score"], file=out)
    print("wall time: %.0f s with %d job(s)" % (report["seconds"], report["config"]["jobs"]),
          file=out)
    print("by file (killed/timeout/survived/uncovered/equivalent/invalid):", file=out)
    for path, row in sorted(summary["by_file"].items()):
        print("  %-48s %3d %3d %3d %3d %3d %3d" % (path, row["killed"], row["timeout"],
                                                  row["survived"], row["uncovered"],
                                                  row["equivalent"], row["invalid"]), file=out)


def list_report(report, out=sys.stdout):
    for outcome in ("survived", "uncovered", "equivalent", "error"):
        chosen = [r for r in report["results"] if r["outcome"] == outcome]
        if not chosen:
            continue
        print("%s (%d):" % (outcome, len(chosen)), file=out)
        for result in chosen:
            print("  " + describe(result), file=out)
            extra = result.get("reason") if outcome == "equivalent" else None
            print("      key: %s%s" % (result["key"], "  -- " + extra if extra else ""),
                  file=out)


def git_state() -> dict:
    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                                  timeout=30, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    return {"commit": git("rev-parse", "HEAD"),
            "dirty_srcad": bool(git("status", "--porcelain", "srcad"))}


def write_report(path, report):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as stream:
        json.dump(report, stream, indent=1, sort_keys=True)
    os.replace(temporary, path)


# ------------------------------------------------------------------ main


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", nargs="+", default=DEFAULT_FILES, metavar="GLOB",
                        help="files to mutate, relative to the repository (default: %s)"
                        % " ".join(DEFAULT_FILES))
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="run N mutants drawn with --seed (default: all)")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument("--only", nargs="+", default=None, metavar="PATTERN",
                        help="run only mutants whose key matches one of these fnmatch "
                        "patterns (after sampling), e.g. to re-run the survivors")
    parser.add_argument("--jobs", type=int, default=2, metavar="J",
                        help="mutants run at once, each in its own copy (default: 2)")
    parser.add_argument("--tests", nargs="+", default=None, metavar="PATH",
                        help="test files to run, in order (default: every tests/test_*.py "
                        "but %s, in a fixed order, quick ones first)"
                        % ", ".join(EXCLUDED_TESTS))
    parser.add_argument("--select", choices=("coverage", "all"), default="coverage",
                        help="per mutant, run the test files that execute the mutated line "
                        "(default), or all of them")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="per mutant (default: 3x the unmutated run of its test files "
                        "+ 30 s)")
    parser.add_argument("--nice", type=int, default=10,
                        help="niceness added to this process and its children (default: 10)")
    parser.add_argument("--report", default=DEFAULT_REPORT, metavar="PATH")
    parser.add_argument("--quick", action="store_true",
                        help="while writing a test: skip the control run, the canary and the "
                        "line record; every mutant runs every --tests file")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the sampled mutants and exit")
    parser.add_argument("--list", action="store_true",
                        help="print the survivors of the report at --report and exit")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_arguments(argv)
    if args.list:
        with open(args.report, encoding="utf-8") as stream:
            report = json.load(stream)
        print_summary(report)
        list_report(report)
        return 0
    if args.dry_run:
        files = target_files(args.files)
        everything = all_mutants(files)
        chosen = selected(everything, args)
        for mutant in chosen:
            print(mutant.describe())
        print("%d of %d mutants" % (len(chosen), len(everything)))
        return 0
    if args.nice:
        os.nice(args.nice)
    started = time.time()

    def log(message):
        print("[%5.0fs] %s" % (time.time() - started, message), flush=True)

    workers = [Worker(0)]
    snapshot = workers[0].root  # mutants, tests and the line record all come from it
    workers += [Worker(n, source=snapshot) for n in range(1, max(1, args.jobs))]
    files = target_files(args.files, snapshot)
    if not files:
        print("no file matches %s" % " ".join(args.files), file=sys.stderr)
        for worker in workers:
            worker.remove()
        return 2
    everything = all_mutants(files, snapshot)
    chosen = selected(everything, args)
    tests = args.tests or default_tests(snapshot)
    log("%d mutants of %d in %d files; tests: %s" % (len(chosen), len(everything), len(files),
                                                    " ".join(tests)))
    results: list = []
    config = {"files": files, "patterns": args.files, "sample": args.sample, "seed": args.seed,
              "only": args.only, "jobs": len(workers), "tests": tests,
              "select": "quick" if args.quick else args.select,
              "total_mutants": len(everything), "python": sys.version.split()[0],
              **git_state()}
    try:
        if args.quick:
            if not workers[0].child_imports_copy():
                raise RuntimeError("a process started in the copy imports srcad from elsewhere")
            control, record = 60.0, None
        else:
            control = self_check(workers[0], files, tests, log)
            record = trace(workers, files, tests, log) if args.select == "coverage" else None
        config["control_seconds"] = round(control, 1)
        traced_total = sum(e["seconds"] for e in record.values()) if record else None
        known = equivalent_mutants()
        idle: queue.Queue = queue.Queue()
        for worker in workers:
            idle.put(worker)
        lock = threading.Lock()

        def time_limit(selected):
            if args.timeout:
                return args.timeout
            if record is None:
                return 3 * control + 30
            # traced runs are slower than plain ones: scale the control run by their share
            share = sum(record[t]["seconds"] for t in selected) / traced_total
            return 3 * control * share + 30

        def task(mutant):
            selected = tests_for(mutant, tests, record)
            if not selected:
                return mutant_result(mutant, "uncovered")
            worker = idle.get()
            try:
                return run_mutant(worker, mutant, selected, time_limit(selected))
            finally:
                idle.put(worker)

        with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
            futures = [pool.submit(task, mutant) for mutant in chosen]
            for future in concurrent.futures.as_completed(futures):
                result = future.result()
                if result["outcome"] in ("survived", "uncovered") and result["key"] in known:
                    result["outcome"] = "equivalent"
                    result["reason"] = known[result["key"]]
                with lock:
                    results.append(result)
                    log("%4d/%d %-10s %6.1fs %s" % (len(results), len(chosen),
                                                    result["outcome"], result["seconds"],
                                                    describe(result)))
    finally:
        for worker in workers:
            worker.remove()
    results.sort(key=lambda r: (r["path"], r["line"], r["col"], r["key"]))
    report = {"config": config, "seconds": round(time.time() - started, 1),
              "summary": summarize(results), "results": results}
    write_report(args.report, report)
    print()
    print_summary(report)
    list_report(report)
    print("report: %s" % args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
