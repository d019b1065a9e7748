"""One guard around every subcommand: what a person at the table can fix becomes one line, a bug says where to
report it.

A traceback tells a club member nothing and hides the one sentence that matters. So:

* our own error types (a bad configuration, a variant that has no row for 40 players, a missing voice pack, a
  journal that cannot be opened, a refused pairing, …) already carry a message that names the problem and the fix:
  it is printed as ``tianhei: …`` on stderr and the command exits with :data:`EXIT_PROBLEM`;
* the operating system saying no (a serial port that is not there, a file we may not write) is one line too,
  with the path it was about;
* a reader that stopped reading (``tianhei variants | head``) is not an error: the output stops quietly with
  the shell's usual status for it (:data:`EXIT_BROKEN_PIPE`);
* anything else is a bug in Tianhei. It is not hidden: the whole traceback is written to a crash log, and the one
  line says so, where the log is and that it should be reported. ``TIANHEI_TRACEBACK=1`` lets it through instead
  (for a developer at a terminal).

The error types are matched by their module and class name, so that ``tianhei --help`` does not import the rules,
the voice and the journal just to be able to recognise their errors.
"""

from __future__ import annotations

import datetime
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

#: A problem the person running the command can fix (configuration, arguments, a missing file or device).
EXIT_PROBLEM = 2
#: A bug in Tianhei (``EX_SOFTWARE`` of sysexits.h).
EXIT_BUG = 70
#: Interrupted with Ctrl-C.
EXIT_INTERRUPTED = 130
#: The reader of our output went away (128 + SIGPIPE, what the shell reports for a command killed by it).
EXIT_BROKEN_PIPE = 141

#: Our own error types, whose messages already name the problem and the fix.
USER_ERRORS = frozenset({
    "controller.config.errors.ConfigError",
    "controller.rules.variant.VariantError",
    "controller.voice.packs.PackError",
    "controller.voice.packs.UnknownPrompt",
    "controller.voice.prompts.PromptError",
    "controller.voice.build.BuildError",
    "controller.director.journal_error.JournalError",
    "controller.director.saved.SavedGameDiffers",
    "controller.diag.host.HardwareError",
    "controller.bus.nodes.Refused",
    "controller.bus.pairing.PairingError",
    "controller.bus.auth_counter.CounterStoreError",
    "controller.web.certificate.CertificateError",
    "controller.web.guarded.ListenError",
})

#: Where reports go; printed with the crash log's path.
REPORT_TO = "the Tianhei issue tracker (see README.md, \"Reporting a problem\")"


def is_user_error(exc: BaseException) -> bool:
    return any(f"{cls.__module__}.{cls.__qualname__}" in USER_ERRORS for cls in type(exc).__mro__)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    if isinstance(exc, KeyError) and text.startswith(("'", '"')):
        text = text[1:-1]
    return text or type(exc).__name__


def crash_log_dir() -> Path:
    """The service's state directory when systemd gives one (``StateDirectory=``), else the user's."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0])
    xdg = os.environ.get("XDG_STATE_HOME")
    return Path(xdg) / "tianhei" if xdg else Path.home() / ".local" / "state" / "tianhei"


def write_crash_log(exc: BaseException, argv: list[str]) -> Path | None:
    """The full traceback, the command line and the versions, in a file only its owner can read (a game's roles
    may be in the local variables of a traceback's message)."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    text = (f"tianhei {' '.join(argv)}\npython {sys.version.split()[0]} on {sys.platform}\n\n"
            + "".join(traceback.format_exception(exc)))
    for folder in (crash_log_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"tianhei-crash-{stamp}-{os.getpid()}.log"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            return path
        except OSError:
            continue
    return None


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" at {Path(last.filename).name}:{last.lineno}"


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so that flushing it at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def guarded(run: Callable[[], int], argv: list[str] | None = None) -> int:
    """Run a subcommand and turn what it raises into one line on stderr and an exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        status = run()
        sys.stdout.flush()  # a reader that went away is noticed here, not in the interpreter's exit
        return status
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        if is_user_error(exc):
            print(f"tianhei: {_one_line(exc)}", file=sys.stderr)
            return EXIT_PROBLEM
        if isinstance(exc, OSError) and exc.errno is not None:
            what = f"{exc.strerror}: {exc.filename}" if exc.filename else (exc.strerror or _one_line(exc))
            print(f"tianhei: {what} (check that it exists and that this user may use it)", file=sys.stderr)
            return EXIT_PROBLEM
        if os.environ.get("TIANHEI_TRACEBACK") == "1":
            raise
        log = write_crash_log(exc, argv)
        kept = f"the details are in {log}" if log is not None else "no crash log could be written"
        print(f"tianhei: internal error {type(exc).__name__}{_where(exc)}: {_one_line(exc)}. This is a bug in "
              f"Tianhei, not in your setup: {kept}; please report it to {REPORT_TO} with that file.",
              file=sys.stderr)
        return EXIT_BUG
