"""The security headers on every HTTP answer (pages, static files, JSON and errors alike)."""

from __future__ import annotations

from secure import (
    ContentSecurityPolicy,
    ReferrerPolicy,
    Secure,
    XContentTypeOptions,
    XFrameOptions,
)

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""Everything the client loads comes from this server: no fonts, scripts or icons from elsewhere;
and no other site may frame any of its pages (``frame-ancestors``)."""

SECURITY_HEADERS = Secure(
    csp=ContentSecurityPolicy().set(CONTENT_SECURITY_POLICY),
    xcto=XContentTypeOptions().nosniff(),
    # Invite links carry a room's code in the path: no page hands its address to another site.
    referrer=ReferrerPolicy().no_referrer(),
    xfo=XFrameOptions().deny(),
)
"""One policy for every answer, whatever route, static file or error handler made it: a page
served from ``/static/`` is as protected as one served from ``/``."""
