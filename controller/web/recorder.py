"""The console's recording page: the club's judge records the table's prompts on the paired phone.

==========================  ======  ==========================================================================
``/record``                 page    the recording page (a paired phone only; anyone else is sent to ``/pair``)
``/api/record/prompts``     GET     every prompt in the order to record, which are done, where to go on
``/api/record/clip?id=``    GET     what the table says for a prompt now (the judge's take, or the built voice)
``/api/record/take?id=``    POST    a take as 16-bit WAV (``audio/wav``): judged, then put in the pack or refused
==========================  ======  ==========================================================================

The phone records with the browser's MediaRecorder and decodes its own recording to WAV before sending it, so
the table reads plain PCM whatever the phone's codec (Opus in WebM, AAC in MP4). The table judges and finishes the
take (controller/voice/recording.py). Calls are guarded like the console's commands: the page's own origin, the
session cookie, its CSRF token.

The takes go into ``[voice] pack`` when it is a folder; else into ``judge-voice/`` beside the journal, and the
page says which line of the config makes the table speak with them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from controller.voice.recording import missing_tools
from controller.web.access import Refusal

if TYPE_CHECKING:
    from controller.config import Config
    from controller.voice.recording import Recording

log = logging.getLogger("controller.web.console")

#: The largest take read: 30 s of 16-bit mono at 48 kHz, with room for the header.
MAX_TAKE_BYTES = 3 * 1024 * 1024


class Recorder:
    """Where the takes go and what the table plays, from the config; the recording itself opened on first use."""

    def __init__(self, config: Config) -> None:
        self.plays = config.voice.pack
        given = Path(config.voice.pack)
        self.folder = given if len(given.parts) > 1 or given.is_dir() else \
            Path(config.journal.path).parent / "judge-voice"
        self.language = config.table.language
        self.variant = config.game.variant
        self.players = config.game.players
        self._recording: Recording | None = None

    @property
    def recording(self) -> Recording:
        if self._recording is None:
            from controller.voice.recording import open_recording

            self._recording = open_recording(str(self.folder), self.language, self.variant, self.players)
        return self._recording

    @property
    def heard(self) -> bool:
        """The table speaks with these takes (``[voice] pack`` names this folder)."""
        return Path(self.plays).resolve() == self.folder.resolve()

    def shown(self) -> str:
        """The folder as the config would name it: relative to where the table runs, when it is below it."""
        try:
            return str(self.folder.resolve().relative_to(Path.cwd().resolve()))
        except ValueError:
            return str(self.folder)

    def listing(self) -> dict[str, Any]:
        r = self.recording
        prompts = r.prompts()
        done = sum(p.recorded for p in prompts)
        return {
            "folder": self.shown(), "language": r.language, "heard": self.heard,
            "config_line": f'[voice] pack = "{self.shown()}"', "tools": missing_tools(),
            "total": len(prompts), "left": len(prompts) - done, "next": r.next_prompt(),
            "prompts": [{"id": p.id, "text": p.text, "recorded": p.recorded, "slot": round(r.slot(p.id), 1)}
                        for p in prompts],
        }


Guard = Callable[[Request, bool], Refusal | None]


def routes(recorder: Recorder, guard: Guard, page: Callable[..., Response],
           refused: Callable[[Refusal], Response], csrf_of: Callable[[Request], str | None]) -> list[Route]:
    """The recording page's routes. ``guard(request, changes)`` refuses an unpaired phone (and, for a call that
    changes something, one from another origin or without the session's CSRF token)."""

    async def record_page(request: Request) -> Response:
        csrf = csrf_of(request)
        if csrf is None:
            return RedirectResponse("/pair", status_code=303)
        return page("record.html", csrf=csrf)

    async def prompts(request: Request) -> Response:
        if (no := guard(request, False)) is not None:
            return refused(no)
        return await _answer(lambda: JSONResponse(recorder.listing()))

    async def clip(request: Request) -> Response:
        if (no := guard(request, False)) is not None:
            return refused(no)
        pid = request.query_params.get("id", "")
        if pid not in recorder.recording.order:
            return refused(Refusal(404, f"no prompt {pid[:40]!r}", "没有这个提示"))
        return FileResponse(recorder.recording.clip(pid), media_type="audio/ogg")

    async def take(request: Request) -> Response:
        if (no := guard(request, True)) is not None:
            return refused(no)
        if (why := missing_tools()) is not None:
            return refused(Refusal(503, why, "本桌未安装录音所需的工具（numpy、pyloudnorm、sox）"))
        pid = request.query_params.get("id", "")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_TAKE_BYTES:
                return refused(Refusal(413, f"a take is at most {MAX_TAKE_BYTES // 1024 // 1024} MB",
                                       "录音文件太大"))
        from controller.voice.recording import RecordingError

        try:
            verdict = await asyncio.to_thread(recorder.recording.submit, pid, bytes(body))
        except RecordingError as exc:
            return refused(Refusal(400, str(exc), "无法读取这段录音"))
        log.info("judge's console: take of %s %s: %s", pid, "kept" if verdict.ok else "refused", verdict.reason)
        r = recorder.recording
        left = len(r.order) - len(r.recorded())
        return JSONResponse({"code": verdict.code, "reason": verdict.reason, "figures": verdict.figures,
                             "next": r.next_prompt(pid) if verdict.ok else pid, "left": left})

    return [
        Route("/record", record_page),
        Route("/api/record/prompts", prompts),
        Route("/api/record/clip", clip),
        Route("/api/record/take", take, methods=["POST"]),
    ]


async def _answer(make: Callable[[], Response | Awaitable[Response]]) -> Response:
    from controller.voice.packs import PackError

    try:
        out = make()
        return await out if isinstance(out, Awaitable) else out
    except PackError as exc:
        return JSONResponse({"error": str(exc)}, status_code=500)
