"""The ``srcad`` command line (also ``python -m srcad``).

    srcad show FILE.py:FUNC [--wrt x,y] [--mode reverse|forward] [--stages]
    srcad codegen FILE.py:FUNC [FILE.py:FUNC ...] [--wrt x,y] [-o OUT.py] [--standalone]
    srcad cache info | clear

Exit status: 0 on success, 2 for a usage error (a bad path, a missing
function, a bad --wrt: a message on stderr, no traceback), 1 when srcad
cannot differentiate the function or the user's module fails to import.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import shlex
import sys
import traceback

from . import api
from .cache import disk
from .offline import Target, module_name_for_path, module_source, write_module
from .errors import InvalidArgumentError, SrcadError
from .request import parse_wrt as parse_wrt_for
from .version import __version__

DESCRIPTION = """\
srcad: automatic differentiation for Python/NumPy by source transformation.

srcad reads a function's source and writes the source of its derivative:
plain Python you can read, check into your repository and ship. Name a
function as FILE.py:FUNCTION (a path to a Python file, a colon, the
function's name in that file; Class.method works too)."""

EPILOG = """\
examples:
  srcad show model.py:loss                    print the gradient code of loss
  srcad show model.py:loss --wrt w,b          ... with respect to w and b
  srcad show model.py:loss --stages           the code after each pipeline stage
  srcad codegen model.py:loss -o grads.py     write grad_loss into grads.py
  srcad codegen model.py:loss --standalone -o grads.py
                                              ... runnable with only NumPy installed
  srcad cache info                            where generated code is cached

Run `srcad COMMAND --help` for the options of each command."""

WRT_HELP = ("the parameters to differentiate with respect to: names or positions, separated "
            "by commas (default: the first parameter). One gives one gradient, several a "
            "tuple of gradients. With several FILE:FUNC, give it once for all or once per "
            "function, in order")

MODE_HELP = ("reverse (gradients: grad_FUNC, same parameters as FUNC) or forward (jvp_FUNC: "
             "the parameters then a tangent for each --wrt, returns (output, tangent)); "
             "default: reverse")


class UsageError(Exception):
    """A mistake on the command line: reported in one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="srcad", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version="srcad " + _version())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    show = commands.add_parser(
        "show", help="print the generated derivative of a function",
        description="Print the source srcad generates for the derivative of FUNCTION "
        "(syntax-highlighted on a terminal when pygments is installed).",
        epilog="example:\n  srcad show model.py:loss --wrt w,b",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("target", metavar="FILE.py:FUNCTION", help="the function to differentiate")
    show.add_argument("--wrt", help=WRT_HELP)
    show.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                      help=MODE_HELP)
    show.add_argument("--stages", action="store_true",
                      help="print the code after each pipeline stage (parse, normalize, "
                      "analyze, transform, optimize)")
    show.add_argument("--no-optimize", action="store_true",
                      help="show the code as the templates produce it, before optimization")
    show.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                      help="syntax highlighting (auto: on a terminal, if pygments is "
                      "installed and NO_COLOR is not set)")
    show.set_defaults(run=_show)

    codegen = commands.add_parser(
        "codegen", help="write derivatives into an importable Python module",
        description="Write the derivative of each FUNCTION into one Python module: "
        "grad_FUNC (reverse mode; same parameters as FUNC, returns what srcad.grad returns) "
        "or jvp_FUNC (forward mode). The module imports what the code needs (numpy, "
        "srcad.runtime, your module's names); with --standalone it needs only NumPy. "
        "Your module is imported to read the functions, as `python -c 'import MODULE'` "
        "would from the folder holding it (or its top package).",
        epilog="examples:\n"
        "  srcad codegen model.py:loss -o grads.py\n"
        "  srcad codegen model.py:loss model.py:penalty --wrt w -o grads.py\n"
        "  srcad codegen pkg/ode.py:rhs --mode forward --wrt y --name rhs_jvp -o rhs_jvp.py",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    codegen.add_argument("targets", nargs="+", metavar="FILE.py:FUNCTION",
                         help="the function(s) to differentiate")
    codegen.add_argument("--wrt", action="append", help=WRT_HELP)
    codegen.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                         help=MODE_HELP)
    codegen.add_argument("-o", "--output", metavar="OUT.py",
                         help="the module to write (default: print it)")
    codegen.add_argument("--name", action="append",
                         help="the name of the derivative function (default grad_FUNCTION or "
                         "jvp_FUNCTION); once per FILE:FUNC")
    codegen.add_argument("--standalone", action="store_true",
                         help="copy srcad's runtime helpers into the module, so it runs "
                         "where srcad is not installed (needs only NumPy)")
    codegen.add_argument("--no-optimize", action="store_true",
                         help="write the code as the templates produce it, before optimization")
    codegen.set_defaults(run=_codegen)

    cache = commands.add_parser(
        "cache", help="inspect or clear the persistent cache of generated code",
        description="srcad keeps generated code in a cache directory shared by all your "
        "processes, so a program does not regenerate the same derivatives at every start. "
        "Location: $SRCAD_CACHE_DIR, else $XDG_CACHE_HOME/srcad or ~/.cache/srcad; "
        "SRCAD_CACHE=0 switches it off.")
    actions = cache.add_subparsers(dest="action", metavar="ACTION")
    info = actions.add_parser("info", help="where the cache is, how many entries, their size")
    info.set_defaults(run=_cache_info)
    clear = actions.add_parser("clear", help="remove every cached entry")
    clear.set_defaults(run=_cache_clear)
    cache.set_defaults(run=lambda args: _missing(cache, "ACTION (info or clear)"))
    parser.set_defaults(run=lambda args: _missing(parser, "COMMAND"))
    return parser


def _missing(parser, what):
    parser.print_help(sys.stderr)
    raise UsageError("missing %s" % what)


def main(argv=None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv
    try:
        return args.run(args) or 0
    except UsageError as exc:
        print("srcad: error: %s" % exc, file=sys.stderr)
        return 2
    except _UserCodeFailed as exc:
        print("srcad: error: %s" % exc.message, file=sys.stderr)
        print(exc.details, end="", file=sys.stderr)
        return 1
    except SrcadError as exc:
        print("srcad: error: %s" % exc, file=sys.stderr)
        return 1
    except BrokenPipeError:  # srcad show ... | head
        try:
            sys.stdout = None
        except Exception:
            pass
        return 0


# ---- loading FILE.py:FUNCTION


class _UserCodeFailed(Exception):
    def __init__(self, message, details):
        super().__init__(message)
        self.message = message
        self.details = details


def load_target(spec: str):
    """The function named by ``FILE.py:NAME``, and the module name its file was imported as."""
    path, colon, name = spec.rpartition(":")
    if not colon or not path or not name:
        raise UsageError("%r: name a function as FILE.py:FUNCTION (for example "
                         "model.py:loss)" % spec)
    if not os.path.exists(path):
        raise UsageError("%s: no such file" % path)
    if os.path.isdir(path):
        raise UsageError("%s is a directory: name a Python file" % path)
    if not path.endswith(".py"):
        raise UsageError("%s is not a Python file (.py)" % path)
    try:
        module_name, folder = module_name_for_path(path)
    except InvalidArgumentError as exc:
        raise UsageError(str(exc).replace("\n", " ")) from None
    module = _import_file(path, module_name, folder)
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise UsageError("%s has no function %r%s" % (path, name, _functions_hint(module)))
    if not inspect.isfunction(obj):
        raise UsageError("%s:%s is a %s, not a function" % (path, name, type(obj).__name__))
    return obj, module_name


def _functions_hint(module) -> str:
    names = [n for n, v in vars(module).items()
             if inspect.isfunction(v) and getattr(v, "__module__", None) == module.__name__]
    return "; its functions are: %s" % ", ".join(names) if names else ""


def _import_file(path, module_name, folder):
    path = os.path.abspath(path)
    loaded = sys.modules.get(module_name)
    if loaded is None:
        if folder not in sys.path:
            sys.path.insert(0, folder)
        try:
            loaded = importlib.import_module(module_name)
        except SystemExit as exc:
            raise _UserCodeFailed("importing %s (as module %s) called sys.exit(%r)"
                                  % (path, module_name, exc.code), "") from None
        except Exception as exc:
            raise _UserCodeFailed("importing %s (as module %s) failed:"
                                  % (path, module_name), _user_frames(exc)) from None
    file = getattr(loaded, "__file__", None)
    if not file or not os.path.exists(file) or not os.path.samefile(file, path):
        raise UsageError("cannot import %s as module %s: that name is taken by %s; rename "
                         "the file" % (path, module_name, file or "a built-in module"))
    return loaded


def _user_frames(exc) -> str:
    """The traceback of ``exc`` without importlib's and srcad's own frames."""
    skipped = (os.path.dirname(os.path.abspath(__file__)) + os.sep,
               os.path.dirname(os.path.abspath(importlib.__file__)) + os.sep, "<frozen ")
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if not frame.filename.startswith(skipped)]
    text = "Traceback (most recent call last):\n" if frames else ""
    text += "".join(traceback.format_list(frames))
    return text + "".join(traceback.format_exception_only(type(exc), exc))


def parse_wrt(text):
    """``x,y`` -> ("x", "y"); ``x`` -> "x"; ``0`` -> 0; ``x,`` -> ("x",)."""
    if text is None:
        return 0
    items = [item.strip() for item in text.split(",")]
    as_tuple = len(items) > 1
    if as_tuple and not items[-1]:  # "x," : a tuple of one
        items.pop()
    if not items or any(not item for item in items):
        raise UsageError("--wrt %r: give parameter names or positions separated by commas, "
                         "e.g. --wrt x,y" % text)
    values = []
    for item in items:
        if item.lstrip("-").isdigit():
            values.append(int(item))
        elif item.isidentifier():
            values.append(item)
        else:
            raise UsageError("--wrt %r: %r is neither a parameter name nor a position"
                             % (text, item))
    return tuple(values) if as_tuple else values[0]


def _check_wrt(function, wrt, spec):
    try:
        parse_wrt_for(function, wrt)
    except InvalidArgumentError as exc:
        raise UsageError("%s: %s" % (spec, str(exc).replace("\n", " "))) from None


# ---- commands


def _show(args):
    function, _ = load_target(args.target)
    wrt = parse_wrt(args.wrt)
    _check_wrt(function, wrt, args.target)
    text = api.source(function, wrt=wrt, mode=args.mode, stages=args.stages,
                      optimize=not args.no_optimize)
    _print_code(text, args.color)


def _print_code(text, color):
    if color == "always" or (color == "auto" and sys.stdout.isatty()
                             and not os.environ.get("NO_COLOR")):
        try:
            from pygments import highlight
            from pygments.formatters import TerminalFormatter
            from pygments.lexers import PythonLexer
        except ImportError:
            pass
        else:
            text = highlight(text, PythonLexer(), TerminalFormatter())
    sys.stdout.write(text)
    sys.stdout.flush()


def _codegen(args):
    count = len(args.targets)
    wrts = _per_target(args.wrt, count, "--wrt")
    names = _per_target(args.name, count, "--name")
    targets, notes, inputs = [], [], set()
    for spec, wrt, name in zip(args.targets, wrts, names):
        function, module_name = load_target(spec)
        wrt = parse_wrt(wrt)
        _check_wrt(function, wrt, spec)
        if name is not None and not name.isidentifier():
            raise UsageError("--name %r is not a valid Python name" % name)
        path = spec.rpartition(":")[0]
        inputs.add(os.path.abspath(path))
        note = ("%s was imported as module `%s` (the name derived from its path); names "
                "this module imports from it use that name." % (path, module_name))
        if note not in notes:
            notes.append(note)
        targets.append(Target(function, wrt, args.mode, name, optimize=not args.no_optimize))
    if args.output and os.path.abspath(args.output) in inputs:
        raise UsageError("-o %s would overwrite the file the function comes from"
                         % args.output)
    command = "srcad " + " ".join(shlex.quote(a) for a in args.argv)
    text = module_source(targets, standalone=args.standalone, command=command, notes=notes)
    if args.output:
        folder = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(folder):
            raise UsageError("-o %s: no such directory %s" % (args.output, folder))
        write_module(args.output, text)
        print("srcad: wrote %s (%s)" % (args.output, ", ".join(t.name for t in targets)),
              file=sys.stderr)
    else:
        sys.stdout.write(text)


def _per_target(values, count, option):
    if not values:
        return [None] * count
    if len(values) == 1:
        return values * count if option == "--wrt" else values + [None] * (count - 1)
    if len(values) != count:
        raise UsageError("%s given %d times for %d functions: give it once, or once per "
                         "function" % (option, len(values), count))
    return values


def _cache_info(args):
    info = disk.info()
    size = info["bytes"]
    shown = "%d bytes" % size if size < 10240 else "%.1f KiB" % (size / 1024) \
        if size < 10 * 1024 * 1024 else "%.1f MiB" % (size / 1024 / 1024)
    state = "on" if info["enabled"] else "off (%s=%s)" % (
        disk.ENV_SWITCH, os.environ.get(disk.ENV_SWITCH))
    if info["enabled"] and not info["usable"]:
        state = "off (the directory is not owned by you, or others can write to it)"
    print("location: %s%s" % (info["directory"], "" if info["exists"] else " (not created yet)"))
    print("enabled:  %s" % state)
    print("entries:  %d%s" % (info["entries"], " (%d invalid, will be regenerated)"
                              % info["invalid"] if info["invalid"] else ""))
    print("size:     %s" % shown)
    print("(set %s to move it, %s=0 to switch it off)"
          % (disk.ENV_DIRECTORY, disk.ENV_SWITCH))


def _cache_clear(args):
    removed = disk.clear()
    print("removed %d entr%s from %s" % (removed, "y" if removed == 1 else "ies",
                                        disk.directory()))


def _version():
    return __version__


def console_main():
    """Entry point of the ``srcad`` console script and ``python -m srcad``."""
    sys.exit(main())


if __name__ == "__main__":
    console_main()
