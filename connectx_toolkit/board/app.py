"""The board's web application (Flask): the page, its static files and a small JSON API.

Every request must carry the session's token (``?token=`` or the ``X-Board-Token`` header) and a loopback
``Host`` (a page on another site that rebinds its name to 127.0.0.1 sends its own name): anything else gets
403 before any route runs. The API only plays moves and moves through games; what code runs as the agent
was fixed on the command line.
"""

from __future__ import annotations

import hmac
import os
from typing import Any

from flask import Flask, Response, abort, jsonify, request

from connectx_toolkit.board.session import BoardSession

__all__ = ["LOOPBACK_HOSTS", "create_app"]

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8"}


def host_is_loopback(host: str) -> bool:
    """``Host`` header without its port is a loopback name."""
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name.lower() in LOOPBACK_HOSTS


def create_app(session: BoardSession, token: str) -> Flask:
    app = Flask("board", static_folder=None)

    @app.before_request
    def guard() -> None:
        given = request.args.get("token") or request.headers.get("X-Board-Token") or ""
        if not host_is_loopback(request.host) or not hmac.compare_digest(given.encode(), token.encode()):
            abort(403)

    @app.after_request
    def safe_headers(response: Response) -> Response:
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"  # the token is in the page's address
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.get("/")
    def page() -> Response:
        return _static("index.html", token)

    @app.get("/static/<name>")
    def static_file(name: str) -> Response:
        if name not in os.listdir(STATIC):
            abort(404)
        return _static(name, token)

    @app.get("/api/state")
    def state() -> Any:
        return jsonify(session.state())

    @app.get("/api/export")
    def export() -> Any:
        return jsonify(session.export())

    @app.post("/api/<action>")
    def act(action: str) -> Any:
        body = request.get_json(silent=True) or {}
        try:
            if action == "move":
                return jsonify(session.move(_int(body, "column")))
            if action == "goto":
                return jsonify(session.goto(_int(body, "ply")))
            simple = {"undo": session.undo, "new-game": session.new_game, "swap-seats": session.swap_seats,
                      "play-on": session.play_on, "prev": lambda: session.step(-1), "next": lambda: session.step(1)}
            if action not in simple:
                abort(404)
            return jsonify(simple[action]())
        except ValueError as error:
            return jsonify({"error": str(error), **session.state()}), 409

    return app


def _int(body: dict[str, Any], name: str) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer")
    return value


def _static(name: str, token: str) -> Response:
    with open(os.path.join(STATIC, name), encoding="utf-8") as handle:
        text = handle.read().replace("__TOKEN__", token)  # the page's own links carry the token
    return Response(text, content_type=CONTENT_TYPES.get(os.path.splitext(name)[1], "text/plain; charset=utf-8"))
