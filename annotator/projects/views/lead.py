"""The lead's pages (issue 8 §1–3, §6): members, assignment with a preview, progress with the
work list (reassign, withdraw, restore, reopen), and the list of pairs to adjudicate.

Only the project's leads (and staff) reach them: annotators get 403, outsiders 404, anonymous
visitors the login page. Views validate input, call one service or selector, and render.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotator.common import access
from annotator.common.redirects import next_or
from annotator.models import Assignment, Membership, Project
from annotator.projects.selectors import progress as progress_selectors
from annotator.projects.selectors import projects as project_selectors
from annotator.projects.services import assignment as assignment_services
from annotator.projects.services import member_rules
from annotator.projects.services import members as member_services

User = get_user_model()


def lead_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Resolves ``project_id`` to the project for its leads and staff; else 404 (not a member)
    or 403 (an annotator)."""

    @login_required
    @functools.wraps(view)
    def wrapper(request: HttpRequest, project_id: int, **kwargs: Any) -> HttpResponse:
        project = access.get_visible_project(project_id=project_id, user=request.user)
        if project is None:
            raise Http404("No such project, or you are not a member of it.")
        if not access.can_manage_project(project=project, user=request.user):
            raise PermissionDenied("Only the project's leads may open this page.")
        return view(request, project, **kwargs)

    return wrapper


# --- members ---------------------------------------------------------------------------------


class AddMemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.ANNOTATOR)

    def clean_username(self) -> Any:
        user = User.objects.filter(username=self.cleaned_data["username"].strip()).first()
        if user is None:
            raise forms.ValidationError(member_rules.NOT_ADDABLE)  # as for a stranger
        return user


class NewAnnotatorForm(forms.Form):
    username = forms.CharField(max_length=150, label="New annotator's username")
    email = forms.EmailField(
        required=False, label="E-mail (optional)", help_text="where a forgotten-password link goes"
    )


@never_cache
@lead_page
def members_page(request: HttpRequest, project: Project) -> HttpResponse:
    add_form, new_form, new_account, reset_link = AddMemberForm(), NewAnnotatorForm(), None, None
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "add":
                add_form = AddMemberForm(request.POST)
                if add_form.is_valid():
                    user, role = add_form.cleaned_data["username"], add_form.cleaned_data["role"]
                    if not member_rules.may_add(project=project, by=request.user, user=user):
                        add_form.add_error("username", member_rules.NOT_ADDABLE)
                    else:
                        member_services.add_member(project=project, user=user, role=role)
                        messages.success(request, f"{user.get_username()} is now a {role}.")
                        return redirect("project-members", project.pk)
            elif action == "create":
                new_form = NewAnnotatorForm(request.POST)
                if new_form.is_valid():
                    # Shown once in this response, never stored in the session or a message.
                    new_account = member_services.create_annotator(
                        project=project,
                        username=new_form.cleaned_data["username"],
                        email=new_form.cleaned_data["email"],
                    )
                    new_form = NewAnnotatorForm()
            elif action in ("reset", "link"):
                new_account, reset_link = _reset_access(request, project, action)
            elif action == "remove":
                user = get_object_or_404(User, pk=_int(request.POST.get("user")))
                withdrawn = member_services.remove_member(project=project, user=user)
                messages.success(
                    request,
                    f"{user.get_username()} removed; {withdrawn} unstarted assignment"
                    f"{'s' if withdrawn != 1 else ''} withdrawn, started work kept.",
                )
                return redirect("project-members", project.pk)
            else:
                return HttpResponse("unknown action", status=400)
        except member_services.MemberError as exc:
            messages.error(request, str(exc))
            if action == "remove":
                return redirect("project-members", project.pk)
    counts = _work_counts(project)
    rows = [
        {"membership": m, **counts.get(m.user_id, {})}
        for m in project_selectors.project_members(project=project)
    ]
    status = 400 if (add_form.errors or new_form.errors) else 200
    # never_cache (no-store): the one-time password must not stay in a cache.
    return render(
        request,
        "annotator/lead_members.html",
        {"project": project, "rows": rows, "add_form": add_form, "new_form": new_form,
         "new_account": new_account, "reset_link": reset_link,
         "reset_days": settings.PASSWORD_RESET_TIMEOUT // 86400},
        status=status,
    )  # fmt: skip


def _reset_access(request: HttpRequest, project: Project, action: str) -> tuple[Any, Any]:
    """Members' "Reset password" (a new one-time password) or "Reset link" (a one-time link
    where the member chooses one): (new account, reset link), one of them None; each shown
    once, in this response only."""
    user = get_object_or_404(User, pk=_int(request.POST.get("user")))
    if action == "reset":
        return member_services.reset_password(project=project, user=user, by=request.user), None
    uid, token = member_services.reset_token(project=project, user=user, by=request.user)
    link = request.build_absolute_uri(reverse("password_reset_confirm", args=[uid, token]))
    return None, {"user": user, "url": link}


def _work_counts(project: Project) -> dict[int, dict[str, int]]:
    out: dict[int, dict[str, int]] = {}
    for a in Assignment.objects.filter(pair__project=project, withdrawn_at__isnull=True).values(
        "annotator_id", "status", "pair__is_trial"
    ):
        row = out.setdefault(a["annotator_id"], {"active": 0, "trial": 0, "submitted": 0})
        row["active"] += 1
        row["trial"] += bool(a["pair__is_trial"])
        row["submitted"] += a["status"] == Assignment.Status.SUBMITTED
    return out


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Http404("no such user") from None


# --- assignment ------------------------------------------------------------------------------


class AssignForm(forms.Form):
    annotators = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    share = forms.FloatField(
        min_value=0, max_value=1, label="Share annotated twice", help_text="0 to 1"
    )
    random_seed = forms.IntegerField(min_value=0, max_value=2**32 - 1)
    subcorpora = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    include_trial = forms.BooleanField(required=False, label="Trial pairs to everyone")
    rebalance = forms.BooleanField(
        required=False, label="Also re-deal pairs nobody has started (for people added later)"
    )

    def __init__(self, *args: Any, project: Project, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        annotators = Membership.objects.filter(
            project=project, role=Membership.Role.ANNOTATOR
        ).select_related("user")
        self.fields["annotators"].choices = sorted(
            ((str(m.user_id), m.user.get_username()) for m in annotators), key=lambda c: c[1]
        )
        subs = list(project.subcorpora.order_by("name").values_list("name", flat=True))
        if project.pairs.filter(subcorpus__isnull=True, is_trial=False).exists():
            subs.append("")
        self.fields["subcorpora"].choices = [(s, s or "(none)") for s in subs]

    def to_request(self) -> assignment_services.AssignmentRequest:
        d = self.cleaned_data
        return assignment_services.AssignmentRequest(
            annotator_ids=tuple(int(x) for x in d["annotators"]),
            share=d["share"],
            random_seed=d["random_seed"],
            subcorpora=tuple(d["subcorpora"]),
            include_trial=d["include_trial"],
            rebalance=d["rebalance"],
        )


@lead_page
def assign_page(request: HttpRequest, project: Project) -> HttpResponse:
    """GET: the form, and with ``preview`` each person's workload; POST: apply what was
    previewed (refused if the project changed in between)."""
    preview, error = None, None
    data = request.POST if request.method == "POST" else request.GET
    if request.method == "POST" or "preview" in data:
        form = AssignForm(data, project=project)
        if form.is_valid():
            try:
                if request.method == "POST":
                    plan = assignment_services.apply_assignment(
                        project=project,
                        request=form.to_request(),
                        created_by=request.user,
                        expect=data.get("fingerprint") or None,
                    )
                    messages.success(
                        request,
                        f"Plan {project_selectors.plan_number(plan=plan)} applied: "
                        f"{plan.summary['assignments_created']} "
                        f"assignments, {plan.summary['double_pairs']} pairs annotated twice.",
                    )
                    return redirect("project-progress", project.pk)
                preview = assignment_services.preview_assignment(
                    project=project, request=form.to_request()
                )
            except (assignment_services.PlanError, assignment_services.AssignmentError) as exc:
                error = str(exc)
    else:
        form = AssignForm(
            initial={
                "share": round(project.double_annotation_share, 4),
                "random_seed": secrets.randbelow(2**31),
                "include_trial": True,
            },
            project=project,
        )
        form.initial["annotators"] = [c[0] for c in form.fields["annotators"].choices]
        form.initial["subcorpora"] = [c[0] for c in form.fields["subcorpora"].choices]
    context = {
        "project": project,
        "form": form,
        "preview": preview,
        "error": error,
        "plans": project_selectors.numbered_plans(project=project)[:10],
        # work given out by setup_demo, an import or by hand, not by a plan (issue 31, defect 8)
        "outside_plans": Assignment.objects.filter(
            pair__project=project, plan__isnull=True, withdrawn_at__isnull=True
        ).count(),
    }
    bad = form.is_bound and (form.errors or error)
    return render(request, "annotator/lead_assign.html", context, status=400 if bad else 200)


# --- progress and the work list --------------------------------------------------------------


@lead_page
def progress_page(request: HttpRequest, project: Project) -> HttpResponse:
    annotator = request.GET.get("annotator") or None
    progress = progress_selectors.project_progress(project=project)
    work = progress_selectors.assignments_of(
        project=project, annotator_username=annotator, counts=progress.work_counts
    )
    page = Paginator(work, 50).get_page(request.GET.get("page"))
    reassign_to = Membership.objects.filter(
        project=project, role=Membership.Role.ANNOTATOR
    ).select_related("user")
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "project": project,
        "progress": progress,
        "work": page,
        "query": query.urlencode(),
        "annotator": annotator,
        "annotators": sorted(m.user.get_username() for m in reassign_to),
        "reassign_to": sorted(reassign_to, key=lambda m: m.user.get_username()),
    }
    return render(request, "annotator/lead_progress.html", context)


ASSIGNMENT_ACTIONS = ("withdraw", "restore", "reassign", "reopen")


@require_POST
@lead_page
def assignment_action(
    request: HttpRequest, project: Project, assignment_id: int, action: str
) -> HttpResponse:
    assignment = get_object_or_404(
        Assignment.objects.select_related("pair", "annotator"),
        pk=assignment_id,
        pair__project=project,
    )
    who, pair = assignment.annotator.get_username(), assignment.pair.external_id
    try:
        if action == "withdraw":
            assignment_services.withdraw_assignment(assignment=assignment)
            messages.success(request, f"Withdrew {pair} from {who}; their work is kept.")
        elif action == "restore":
            assignment_services.restore_assignment(assignment=assignment)
            messages.success(request, f"{pair} is {who}'s again.")
        elif action == "reassign":
            to = get_object_or_404(User, pk=_int(request.POST.get("to")))
            assignment_services.reassign(assignment=assignment, to_user=to)
            messages.success(request, f"{pair} moved from {who} to {to.get_username()}.")
        elif action == "reopen":
            assignment_services.reopen_assignment(assignment=assignment, by=request.user)
            messages.success(request, f"{pair} reopened for {who}.")
        else:
            raise Http404("no such action")
    except assignment_services.AssignmentError as exc:
        messages.error(request, str(exc))
    fallback = reverse("project-progress", args=[project.pk])
    return redirect(next_or(request, fallback, prefix=f"/projects/{project.pk}/"))
