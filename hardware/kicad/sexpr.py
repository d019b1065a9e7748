"""KiCad's S-expression files read and written as nested lists, so our scripts can take symbols from KiCad's
libraries and write a schematic without KiCad's GUI (stdlib only: it runs under the project's Python and under
Debian's, which has pcbnew).

An atom is a ``str``; a quoted string in the file becomes a :class:`Quoted` (a ``str`` subclass), so writing it
back quotes it again; numbers stay strings as they were written.
"""

from __future__ import annotations

import re
from typing import TypeAlias

Node: TypeAlias = "str | list[Node]"

_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))', re.S)


class Quoted(str):
    """A string that was (or must be) written in double quotes."""


def parse(text: str) -> Node:
    """The first expression in ``text``."""
    stack: list[list[Node]] = [[]]
    pos = 0
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            if text[pos:].strip():
                raise ValueError(f"S-expression: cannot read from character {pos}: {text[pos:pos + 30]!r}")
            break
        pos = match.end()
        opened, closed, quoted, atom = match.groups()
        if opened:
            stack.append([])
        elif closed:
            if len(stack) < 2:
                raise ValueError(f"S-expression: ')' without '(' at character {pos}")
            done = stack.pop()
            stack[-1].append(done)
            if len(stack) == 1:
                return done
        elif quoted is not None:
            stack[-1].append(Quoted(quoted.replace('\\"', '"').replace("\\\\", "\\")))
        else:
            stack[-1].append(atom)
    raise ValueError("S-expression: the text ends before its first expression is closed")


def dump(node: Node, indent: int = 0) -> str:
    """``node`` as KiCad writes it: one list a line where it holds lists, tabs for depth."""
    if isinstance(node, Quoted):
        return '"' + node.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(node, str):
        return node
    if not any(isinstance(child, list) for child in node):
        return "(" + " ".join(dump(child) for child in node) + ")"
    pad = "\t" * (indent + 1)
    head = [dump(c) for c in node if not isinstance(c, list)]
    lines = ["(" + " ".join(head)]
    lines += [pad + dump(c, indent + 1) for c in node if isinstance(c, list)]
    return "\n".join(lines) + "\n" + "\t" * indent + ")"


def find(node: Node, key: str) -> list[list[Node]]:
    """The direct children of ``node`` that are lists headed by ``key``."""
    if isinstance(node, str):
        return []
    return [c for c in node if isinstance(c, list) and c and c[0] == key]


def first(node: Node, key: str) -> list[Node]:
    found = find(node, key)
    if not found:
        raise KeyError(f"no ({key} ...) in ({node[0] if isinstance(node, list) and node else node} ...)")
    return found[0]
