"""Every prompt the director can say is in the catalogue and in every committed pack, and the catalogue holds
nothing else: each prompt is said where the rules call for it, or it is not there.

The list is not kept by hand: it is read from the code (every ``prompt("...")`` literal under ``controller/``),
from the variant files (every night step of every variant woken and put to sleep as the director does it, with
the variant's ``night_call``; the recognition night of V2.10; the first identity a D3 player voted out shows),
from every seat and count the helpers can say, and from the catalogue. A variant's own lines (its file's
``[words.calls]``, ``[words.endings]``: the W boards) are not the catalogue's: the fallback voice says them until
a pack is rebuilt with them (tests/voice/test_variant_lines.py)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.director import announce
from controller.rules.variant import builtin_ids, load_variant
from controller.voice import prompts as P
from controller.voice import variant_lines
from controller.voice.build import load_catalog
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
    """Role names per built-in variant (the keys of its file's ``[roles]`` table)."""
    return {vid: set(load_variant(vid).roles) for vid in builtin_ids()}


def all_roles() -> set[str]:
    found = set().union(*variant_roles().values()) if variant_roles() else set()
    return found or set(P.ROLES)


def night_role_prompts() -> set[str]:
    """The role prompts the director says, variant by variant, as it says them (director: a night step is woken
    with ``announce.wake`` and put to sleep with ``announce.sleep``, naming the step's ``call`` or ``roles``)."""
    ids: set[str] = set()
    for vid in builtin_ids():
        v = load_variant(vid)
        for st in v.night:
            roles = "+".join(st.call or st.roles)
            ids.update(announce.wake(roles, st.ability, st.optional, v.night_call, variant=v, step=st.id))
            ids.update(announce.sleep(roles, v.night_call, variant=v))
        if "first_night" in v.options:  # V2.10: the recognition night wakes each team of partners
            for role, spec in v.roles.items():
                if spec.knows_partners:
                    ids.update(announce.wake(role, "recognise", False, v.night_call, variant=v))
                    ids.update(announce.sleep(role, v.night_call, variant=v))
        if v.hand == 2 and v.live == "first":  # D3: a player voted out shows the first identity, any card
            ids.update(P.role_prompt(role, "name") for role in v.roles)
    return ids


@functools.cache
def code_prompt_ids() -> frozenset[str]:
    """Every prompt the director (and the rest of the controller) can say."""
    ids: set[str] = set()
    for path in CONTROLLER.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for call in _calls(tree, "prompt"):
            literal = _literal(call.args[0] if call.args else None)
            if literal is not None:
                ids.add(literal)
    ids.update(night_role_prompts())
    # C4: each variant's ending in its seed's words (its file names a shared ending), and the shared default
    # endings a club's own file without [words.endings] says
    ids.update(pid for vid in builtin_ids() for side in ("good", "killers", "draw")
               for pid in P.ending(side, vid) + P.ending(side, "a-club-file"))
    ids.update(P.numbers_in_catalogue())
    return frozenset(ids)


def own_lines() -> set[str]:
    """The variant files' own lines (said by the fallback voice, not kept in the catalogue)."""
    return set(variant_lines.known())


def catalogue() -> dict[str, dict[str, str]]:
    """The catalogue's prompts, with the lines of the shared words it includes."""
    prompts = load_catalog(CATALOG)["prompts"]
    assert isinstance(prompts, dict)
    return prompts


def catalogue_prompt_ids() -> set[str]:
    return set(catalogue())


def test_the_prompts_the_director_can_say_are_exactly_the_catalogue() -> None:
    """A prompt the code can say is in the catalogue; a catalogue prompt nothing says is not kept."""
    said, catalogue = code_prompt_ids() - own_lines(), catalogue_prompt_ids()
    assert not said - catalogue, f"sounds/catalog.toml lacks: {sorted(said - catalogue)}"
    assert not catalogue - said, f"never said, remove from sounds/catalog.toml: {sorted(catalogue - said)}"


def test_role_prompts_lists_exactly_what_the_variants_say() -> None:
    assert set(P.role_prompts_in_catalogue()) == {
        pid for pid in code_prompt_ids() - own_lines() if pid.startswith("role.")}


def test_the_scan_sees_the_helpers_own_prompts() -> None:
    ids = code_prompt_ids()
    assert {"dawn.deaths", "vote.hands_for", "unit.votes", "seat.20", "number.0"} <= ids


def test_every_variant_role_has_voice_prompts() -> None:
    """A role of the seeds has the catalogue's prompts; a role woken (or acting on dying) that the catalogue does
    not know has its words in its variant file."""
    for variant, roles in variant_roles().items():
        v = load_variant(variant)
        assert announce.unspoken_role(v) is None, variant
        for role in roles:
            if any(key.partition(".")[0] == role for key in v.words.get("calls", {})):
                continue
            if role in v.words.get("roles", {}) and not any(role in st.roles for st in v.night):
                continue  # a role that is never woken (W2: the villager, the idiot) needs only its name
            try:
                P.canonical_role(role)
            except P.PromptError as exc:
                pytest.fail(f"variant {variant}: {exc} (give it [words.calls] in its file, or calls in the shared "
                            "words it includes)")


def test_every_role_prompt_is_in_the_catalogue() -> None:
    missing = sorted((set(P.role_prompts_in_catalogue()) | code_prompt_ids()) - catalogue_prompt_ids() - own_lines())
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
    missing = sorted(pid for pid in code_prompt_ids() | set(P.role_prompts_in_catalogue())
                     if pid not in clips and pid not in own_lines())
    assert not missing, f"pack {pack.name} lacks: {missing} (run: sounds/build.py {pack.name})"
    absent = sorted(pid for pid, clip in clips.items() if not clip.path.is_file())
    assert not absent, f"pack {pack.name} lists files that are not there: {absent}"


def test_the_committed_packs_are_built_from_the_current_catalogue() -> None:
    catalog = load_catalog(CATALOG)
    assert isinstance(catalog["prompts"], dict) and isinstance(catalog["sounds"], dict)
    for pack in PACKS:
        clips = Pack.load(pack).clips
        # a pack rebuilt since a variant file gained lines has them too (sounds build records them)
        assert set(clips) - own_lines() == set(catalog["prompts"]) | set(catalog["sounds"]), pack.name
        stale = [pid for pid, text in catalog["prompts"].items() if clips[pid].text != text[pack.name]]
        assert not stale, f"pack {pack.name} is older than the catalogue for {stale} (run: sounds/build.py)"
