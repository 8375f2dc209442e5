"""Every refusal over HTTP as ``{code, detail}``: a stable code and a sentence, never the input.

A 422 also lists its problems under ``errors`` (where, which check, why), with at most a short,
safely encodable excerpt of what was sent: an echo of the input made a 100 MB body a 100 MB
answer, and an input that cannot be encoded (a lone surrogate, an infinite number) a 500.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.routing import Route

from app.accounts.errors import AccountError
from app.api.routes.pages import not_found_page
from app.friends.errors import FriendError
from app.rooms.errors import RoomError
from app.text import TextRefused

EXCERPT_CHARACTERS = 40
"""The most of any one piece of the input (a field name) an error repeats."""
MESSAGE_CHARACTERS = 200
"""The longest message an error carries (pydantic's own messages are shorter)."""

_TEXT_CODES = frozenset({"bad_text", "blank_text", "text_too_long"})
"""Codes of ``app.text``'s refusals, which a 422 passes on as its own code."""

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


class Refusal(BaseModel):
    """What every refused request gets back."""

    code: str
    """Stable and snake_case: what a program tests."""
    detail: str
    """A sentence saying why, for a person."""


class Problem(BaseModel):
    """One reason a request did not fit its schema."""

    loc: list[str | int]
    """Where: ``body``, ``query``, ``path`` or ``header``, then the field."""
    type: str
    """Which check failed (pydantic's error type, or ``bad_text``/``blank_text``/…)."""
    msg: str


class InvalidRequest(Refusal):
    """A request refused as unprocessable (422): it does not fit its schema (``errors`` says
    where), or the game cannot be dealt with these options (the engine's code, no ``errors``)."""

    errors: list[Problem] = []


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": Refusal, "description": "The body cannot be read (not JSON, not UTF-8)."},
    413: {"model": Refusal, "description": "The body is larger than the server takes."},
    422: {"model": InvalidRequest, "description": "The request does not fit the schema."},
}
"""Error answers every route may give, for the OpenAPI description."""


def excerpt(text: str, limit: int = EXCERPT_CHARACTERS) -> str:
    """At most ``limit`` characters of ``text``, with anything unencodable replaced."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return short.encode("utf-8", "replace").decode("utf-8")


def _problems(errors: Sequence[Any]) -> list[Problem]:
    return [
        Problem(
            loc=[part if isinstance(part, int) else excerpt(str(part)) for part in error["loc"]],
            type=excerpt(str(error["type"])),
            msg=excerpt(str(error["msg"]), MESSAGE_CHARACTERS),
        )
        for error in errors[:10]
    ]


def _where(problem: Problem) -> str:
    fields = [str(part) for part in problem.loc[1:]] or [str(part) for part in problem.loc]
    return ".".join(fields)


async def _invalid_request(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    problems = _problems(error.errors())
    if not problems:
        problems = [Problem(loc=["body"], type="invalid", msg="The request is not valid.")]
    first = problems[0]
    code = first.type if first.type in _TEXT_CODES else "invalid_request"
    body = InvalidRequest(code=code, detail=f"{_where(first)}: {first.msg}", errors=problems)
    return JSONResponse(body.model_dump(), status_code=422)


async def _room_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, RoomError | AccountError | FriendError)
    return JSONResponse(
        {"code": error.code, "detail": error.message},
        status_code=error.status,
        headers={"Retry-After": "60"} if error.status == 429 else None,
    )


async def _text_refused(request: Request, error: Exception) -> Response:
    assert isinstance(error, TextRefused)
    return JSONResponse({"code": error.code, "detail": error.message}, status_code=422)


def _is_page_address(path: str) -> bool:
    """A path a person might type or follow in a browser, not one a program calls."""
    return not path.startswith(("/api/", "/ws/", "/static/")) and path not in (
        "/api",
        "/metrics",
        "/healthz",
        "/openapi.json",
    )


def _allowed_methods(request: Request) -> str:
    """Every method some route takes at this path (Starlette's router names only those of the
    first route whose path matches)."""
    path = request.url.path
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(path):
            methods |= route.methods
    return ", ".join(sorted(methods))


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    headers = dict(error.headers or {})
    if error.status_code == 405:
        headers["Allow"] = _allowed_methods(request)
    page = request.method in ("GET", "HEAD") and _is_page_address(request.url.path)
    if error.status_code == 404 and page:
        return not_found_page()
    detail = error.detail if isinstance(error.detail, str) else "The request was refused."
    code = _HTTP_CODES.get(error.status_code, "http_error")
    if error.status_code == 404 and detail == "Not Found":
        detail = "There is nothing at this address."
    return JSONResponse(
        {"code": code, "detail": excerpt(detail, MESSAGE_CHARACTERS)},
        status_code=error.status_code,
        headers=headers,
    )


def answer_errors_plainly(app: FastAPI) -> None:
    """Install the handlers that turn every refusal into ``{code, detail}``."""
    app.add_exception_handler(RoomError, _room_error)
    app.add_exception_handler(AccountError, _room_error)
    app.add_exception_handler(FriendError, _room_error)
    app.add_exception_handler(TextRefused, _text_refused)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(HTTPException, _http_error)
