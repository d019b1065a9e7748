"""Every prompt ID the code can produce exists in every committed pack.

The list is not kept by hand: it is read from the code (every ``prompt("...")`` literal under ``controller/``,
every ``role_prompt(role, what)`` expanded over the roles of every variant file, every seat and count the
helpers can say) and from the catalogue."""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.voice import prompts as P
from controller.voice.packs import SOURCE_PACKS, Pack

ROOT = Path(P.__file__).resolve().parents[2]
CONTROLLER = ROOT / "controller"
CATALOG = ROOT / "sounds" / "catalog.toml"
PACKS = sorted(p for p in SOURCE_PACKS.iterdir() if (p / "manifest.toml").is_file())


def _calls(tree: ast.AST, name: str) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == name) or (isinstance(f, ast.Attribute) and f.attr == name):
                yield node


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def variant_roles() -> dict[str, set[str]]:
    """Role names per variant file (the keys of its ``[roles]`` table)."""
    out = {}
    for path in sorted((CONTROLLER / "variants").glob("*.toml")):
        with path.open("rb") as fh:
            out[path.name] = set(tomllib.load(fh).get("roles", {}))
    return out


def all_roles() -> set[str]:
    found = set().union(*variant_roles().values()) if variant_roles() else set()
    return found or set(P.ROLES)


@functools.cache
def code_prompt_ids() -> frozenset[str]:
    ids: set[str] = set()
    roles = {P.canonical_role(r) for r in all_roles()}
    for path in CONTROLLER.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for call in _calls(tree, "prompt"):
            literal = _literal(call.args[0] if call.args else None)
            if literal is not None:
                ids.add(literal)
        for call in _calls(tree, "role_prompt"):
            what = _literal(call.args[1] if len(call.args) > 1 else None)
            role = _literal(call.args[0] if call.args else None)
            for r in [P.canonical_role(role)] if role else roles:
                ids.update(f"role.{r}.{w}" for w in P.ROLE_PROMPTS[r] if what in (None, w))
    ids.update(P.numbers_in_catalogue())
    return frozenset(ids)


def test_the_scan_sees_the_helpers_own_prompts() -> None:
    ids = code_prompt_ids()
    assert {"dawn.deaths", "vote.hands_for", "unit.votes", "seat.20", "number.0"} <= ids


def test_every_variant_role_has_voice_prompts() -> None:
    for variant, roles in variant_roles().items():
        for role in roles:
            try:
                P.canonical_role(role)
            except P.PromptError as exc:
                pytest.fail(f"variant {variant}: {exc} (add it to ROLE_PROMPTS and sounds/catalog.toml)")


def test_every_role_prompt_is_in_the_catalogue() -> None:
    with CATALOG.open("rb") as fh:
        catalog = set(tomllib.load(fh)["prompts"])
    missing = sorted((set(P.role_prompts_in_catalogue()) | code_prompt_ids()) - catalog)
    assert not missing, f"sounds/catalog.toml lacks: {missing}"


def test_no_bare_prompt_ids_passed_to_the_voice() -> None:
    """A literal ID handed to ``say``/``duration`` without ``prompt()`` would escape this check."""
    bare = []
    for path in CONTROLLER.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name in ("say", "duration"):
            for call in _calls(tree, name):
                for arg in call.args[:1]:
                    elements = arg.elts if isinstance(arg, ast.List | ast.Tuple) else []
                    bare += [f"{path.relative_to(ROOT)}:{e.lineno}" for e in elements if _literal(e) is not None]
    assert not bare, f"wrap these prompt IDs in prompt(...): {bare}"


@pytest.mark.parametrize("pack", PACKS, ids=[p.name for p in PACKS])
def test_every_prompt_the_code_can_produce_is_in_the_pack(pack: Path) -> None:
    clips = Pack.load(pack).clips
    missing = sorted(pid for pid in code_prompt_ids() | set(P.role_prompts_in_catalogue()) if pid not in clips)
    assert not missing, f"pack {pack.name} lacks: {missing} (run: sounds/build.py {pack.name})"
    absent = sorted(pid for pid, clip in clips.items() if not clip.path.is_file())
    assert not absent, f"pack {pack.name} lists files that are not there: {absent}"


def test_the_committed_packs_are_built_from_the_current_catalogue() -> None:
    with CATALOG.open("rb") as fh:
        catalog = tomllib.load(fh)
    for pack in PACKS:
        clips = Pack.load(pack).clips
        assert set(clips) == set(catalog["prompts"]) | set(catalog["sounds"]), pack.name
        stale = [pid for pid, text in catalog["prompts"].items() if clips[pid].text != text[pack.name]]
        assert not stale, f"pack {pack.name} is older than the catalogue for {stale} (run: sounds/build.py)"
