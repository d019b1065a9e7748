"""The form in which a game's journal records its variant (``Variant.data``, the ``variant`` of ``game_created``),
and the one default that form keeps.

Which roles answer the police's check with a nod (V2.2; W5: the seer's "werewolf") is the variant file's own
``nod = true`` on each such role; a role without it shakes. Before the files said so, the engine gave the nod to
any role named ``killer`` whose table did not say otherwise, and every journal written then (journal formats 1
and 2) records the seed versions' killers without ``nod``. Those journals must resume and replay as they were
played, and a game cut off by a power cut across an upgrade must still be recognised as the same game (its
variant data is hashed: controller/director/identity.py). So the recorded form keeps that old default as a rule
of the *format*, not of the game:

- :func:`to_record` (a file's data -> what a journal records): a role named ``killer`` that nods is recorded
  without ``nod``, one that does not is recorded with ``nod = false``; every other role as its file says.
- :func:`from_record` (a journal's data -> a file's data): a role named ``killer`` recorded without ``nod``
  nods.

``to_record(from_record(d)) == d`` for every recorded ``d``, so a replayed game records the same data again, and
the seed versions' journals, digests and identities stay what they were. Nothing outside this module reads a role's
name to decide a rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

#: The role that nods when its recorded table does not say (journal formats 1 and 2; see the module's docstring).
NODS_UNLESS_RECORDED: Final = "killer"


def _with_spec(data: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    roles = dict(data["roles"])
    roles[NODS_UNLESS_RECORDED] = spec
    out = dict(data)
    out["roles"] = roles
    return out


def _spec(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    roles = data.get("roles")
    spec = roles.get(NODS_UNLESS_RECORDED) if isinstance(roles, Mapping) else None
    return spec if isinstance(spec, Mapping) else None


def to_record(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A variant file's data as a journal records it (unchanged when no role is named ``killer``)."""
    spec = _spec(data)
    if spec is None:
        return data
    nod = spec.get("nod", False)
    if nod is True:
        return _with_spec(data, {k: v for k, v in spec.items() if k != "nod"})
    if "nod" in spec:  # false, or a wrong value the parser names
        return data
    return _with_spec(data, {**spec, "nod": False})


def from_record(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A journal's recorded variant data as the file would say it: the recorded default made explicit."""
    spec = _spec(data)
    if spec is None or "nod" in spec:
        return data
    return _with_spec(data, {**spec, "nod": True})
