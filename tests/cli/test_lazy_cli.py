"""`tianhei --help` lists every subcommand without importing any of them, and each line it shows is the one the
subcommand's own module registers (so the list in controller/cli/__init__.py cannot drift)."""

from __future__ import annotations

import subprocess
import sys

from controller.cli import SUBCOMMANDS, build_parser


def test_every_listed_line_is_what_its_module_registers() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    registered = {action.dest: action.help for action in sub._choices_actions}  # type: ignore[attr-defined]
    assert registered == SUBCOMMANDS


def test_help_imports_no_subcommand_and_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from controller.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('PIL', 'luma', 'pygame', 'controller.director', 'controller.rules', 'serial')\n"
        "         if m in sys.modules]\n"
        "subs = [m for m in sys.modules if m.startswith('controller.cli.') and m != 'controller.cli.guard']\n"
        "print(heavy, subs)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[] []"


def test_a_subcommand_still_gets_its_own_arguments_and_help() -> None:
    out = subprocess.run([sys.executable, "-m", "controller.cli", "variants", "--help"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert "--json" in out.stdout
