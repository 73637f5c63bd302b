"""``Authorization: Token <key>`` for scripts (keys from ``POST /api/auth/token/``)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from annotator.accounts.services.tokens import token_for_key, touch_token

KEYWORD = "Token"


class TokenAuthentication(authentication.BaseAuthentication):
    """Looks the key up by its SHA-256 digest. No CSRF check: a token is not sent by the
    browser on its own, so a forged cross-site request cannot carry it."""

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != KEYWORD.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Authorization header: expected 'Token <key>' (one key, no spaces)."
            )
        try:
            key = header[1].decode("ascii")
        except UnicodeError:
            raise exceptions.AuthenticationFailed(
                "Authorization header: the token holds non-ASCII characters."
            ) from None
        token = token_for_key(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token (revoked, or mistyped).")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This token's user is deactivated.")
        touch_token(token=token)
        return token.user, token

    def authenticate_header(self, request) -> str:
        return KEYWORD


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "annotator.accounts.api.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>`; get a key from `POST /api/auth/token/`.",
        }
