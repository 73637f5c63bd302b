"""The profile page: the user's e-mail address, and their API tokens — create one (its key
shown once), list, revoke."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotator.accounts.services.tokens import create_token, revoke_token
from annotator.models import ApiToken


class EmailForm(forms.Form):
    email = forms.EmailField(
        required=False,
        label="E-mail",
        help_text="Where a forgotten-password link is sent (when this site sends mail).",
    )


class NewTokenForm(forms.Form):
    name = forms.CharField(
        max_length=100, required=False, help_text="A label to tell tokens apart, e.g. 'laptop'."
    )


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    new_key = None
    form = NewTokenForm()
    email_form = EmailForm(initial={"email": request.user.email})
    if request.method == "POST" and request.POST.get("action") == "email":
        email_form = EmailForm(request.POST)
        if email_form.is_valid():
            request.user.email = email_form.cleaned_data["email"]
            request.user.save(update_fields=["email"])
            messages.success(request, "E-mail address saved.")
            return redirect("profile")
    elif request.method == "POST":
        form = NewTokenForm(request.POST)
        if form.is_valid():
            try:
                _, new_key = create_token(user=request.user, name=form.cleaned_data["name"])
                form = NewTokenForm()
            except ValueError as exc:
                form.add_error("name", str(exc))
    tokens = ApiToken.objects.filter(user=request.user).order_by("-created_at", "-id")
    status = 400 if form.errors or email_form.errors else 200
    context = {"tokens": tokens, "form": form, "new_key": new_key, "email_form": email_form}
    return render(request, "annotator/profile.html", context, status=status)


@require_POST
@login_required
def revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if revoke_token(user=request.user, token_id=token_id):
        messages.success(request, "Token revoked: scripts using it are refused from now on.")
    else:
        messages.error(request, "No such token (already revoked?).")
    return redirect("profile")
