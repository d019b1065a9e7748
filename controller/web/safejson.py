"""JSON from the network, read with a size and a depth limit (the console's calls, the hall's calls and messages).

Python's ``json`` parser recurses once per nesting level: a 2 KB body of ``[[[[…`` 1,024 deep ends in a
``RecursionError``, which is no ``ValueError``, so it escaped every handler as an HTTP 500 with a traceback. The
nesting is counted here first, in one pass over the text that does not recurse, and anything deeper than
:data:`MAX_DEPTH` (the calls and messages are a few levels deep) is refused as a bad request, like any other
text that is not JSON. One reader for every endpoint, so no handler can forget a limit. (The table's broker link
uses :func:`loads` too: this module imports the web stack only when a request is read.)
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.requests import Request

#: The deepest nesting taken: a call is an object holding an object; a club record a few levels more.
MAX_DEPTH = 32


class TooDeep(ValueError):
    """The text nests objects and arrays deeper than the limit."""


def nesting(text: str, limit: int = MAX_DEPTH) -> int:
    """How deep ``text`` nests ``[`` and ``{`` outside strings; stops counting (raises :class:`TooDeep`) as soon as
    it passes ``limit``. Brackets inside strings do not count, escaped quotes do not end a string."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise TooDeep(f"JSON nested deeper than {limit} levels")
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises ``ValueError`` (never ``RecursionError``) for anything that is not JSON within
    ``max_depth`` levels."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    nesting(text, max_depth)
    try:
        return json.loads(text)
    except RecursionError:  # unreachable within the depth limit; kept so a change of limit cannot bring it back
        raise TooDeep("JSON nested too deep") from None


class BadBody(Exception):
    """Why a request's body was refused: the HTTP status and the reason in both languages."""

    def __init__(self, status: int, en: str, zh: str) -> None:
        super().__init__(en)
        self.status = status
        self.en = en
        self.zh = zh


def is_json(request: Request) -> bool:
    """The request says its body is JSON (``application/json``, with a charset or not). A form, ``text/plain`` or
    no type at all is what a page on another site can send without asking the browser first: refused."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return kind == "application/json"


async def read_object(request: Request, *, max_bytes: int) -> dict[str, Any]:
    """The request's JSON object: ``application/json``, at most ``max_bytes``, at most :data:`MAX_DEPTH` deep.
    Raises :class:`BadBody` (415, 413 or 400) otherwise; the body is not read at all when its type is wrong."""
    from starlette.requests import ClientDisconnect

    if not is_json(request):
        raise BadBody(415, "send JSON (Content-Type: application/json)",
                      "请以 JSON 发送（Content-Type: application/json）")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_bytes:
                raise BadBody(413, f"request too large (at most {max_bytes} bytes)", "请求过大")
    except ClientDisconnect:
        raise BadBody(400, "the request's body did not arrive", "请求内容未送达") from None
    try:
        data = loads(body)
    except TooDeep as exc:
        raise BadBody(400, f"the request is not usable JSON: {exc}", "请求的 JSON 嵌套过深") from None
    except ValueError:
        raise BadBody(400, "the request is not JSON", "请求不是 JSON") from None
    if not isinstance(data, dict):
        raise BadBody(400, "the request must be a JSON object", "请求必须是 JSON 对象")
    return data
