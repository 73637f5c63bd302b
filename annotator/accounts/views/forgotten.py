""" "Forgotten your password?": Django's reset-by-mail page, honest when the site sends no mail
(``MAIL_SENDS`` off, the console backend's default): it then says to ask a lead for a reset
link (Members → Reset link) and a post sends nothing, instead of "check your e-mail"."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.views import PasswordResetView
from django.http import HttpRequest, HttpResponse


class ForgottenPasswordView(PasswordResetView):
    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "mail_sends": settings.MAIL_SENDS}

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.MAIL_SENDS:
            return self.get(request, *args, **kwargs)
        return super().post(request, *args, **kwargs)
