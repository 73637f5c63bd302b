"""A project's life in the browser (issue 31): the "new project" page and the lead's settings
page (guidelines in Markdown with a preview, sanitised as on the guidelines page; archive)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotator.models import Project
from annotator.projects.services import projects as project_services
from annotator.projects.views.lead import lead_page

SHARE_PLACES = 4  # the share as the form shows it: 0.3333, not 0.3333333333333333


class ProjectForm(forms.ModelForm):
    class Meta:
        model = Project
        fields = list(project_services.SETTINGS_FIELDS)
        widgets = {
            "description": forms.Textarea(attrs={"rows": 4}),
            "guidelines": forms.Textarea(attrs={"rows": 14, "class": "markdown-source"}),
            "double_annotation_share": forms.NumberInput(attrs={"step": "any", "min": 0, "max": 1}),
        }
        labels = {
            "monolingual": "Monolingual (paraphrases in one language)",
            "single_gold_policy": "Gold from a single annotator",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["single_gold_policy"].required = False  # a form without it keeps today's
        # a bound instance's value, else the model's default (a new project's form)
        shown = self.initial.get(
            "double_annotation_share", self.fields["double_annotation_share"].initial
        )
        if isinstance(shown, float):
            self.initial["double_annotation_share"] = round(shown, SHARE_PLACES)

    def clean_double_annotation_share(self) -> float:
        """The shown (rounded) share sent back unchanged keeps the stored one exactly, so saving
        other settings never moves the share from 1/3 to 0.3333."""
        value = self.cleaned_data["double_annotation_share"]
        stored = self.instance.double_annotation_share
        if value is not None and stored is not None and value == round(stored, SHARE_PLACES):
            return stored
        return value

    def clean_single_gold_policy(self) -> str:
        value = self.cleaned_data.get("single_gold_policy")
        return value or self.instance.single_gold_policy or Project.SingleGold.IMMEDIATE


def _settings(form: ProjectForm) -> dict[str, Any]:
    return {f: form.cleaned_data[f] for f in project_services.SETTINGS_FIELDS}


@never_cache
@login_required
def new_project(request: HttpRequest) -> HttpResponse:
    if not project_services.may_create_projects(user=request.user):
        raise PermissionDenied("Only staff and project leads may create projects.")
    form = ProjectForm(request.POST or None, initial={"source_language": "en",
                                                     "target_language": "en"})  # fmt: skip
    if request.method == "POST" and form.is_valid() and "preview" not in request.POST:
        try:
            project = project_services.create_project(user=request.user, **_settings(form))
        except project_services.ProjectError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Project “{project.name}” created. Next: add its pairs.")
            return redirect("project-detail", project_id=project.pk)
    preview = request.POST.get("guidelines", "") if "preview" in request.POST else None
    return render(
        request, "annotator/project_form.html",
        {"form": form, "preview": preview, "project": None},
        status=400 if form.errors else 200,
    )  # fmt: skip


@never_cache
@lead_page
def project_settings(request: HttpRequest, project: Project) -> HttpResponse:
    form = ProjectForm(request.POST or None, instance=project)
    if request.method == "POST" and form.is_valid() and "preview" not in request.POST:
        try:
            project_services.update_project(project=project, **_settings(form))
        except project_services.ProjectError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Settings saved.")
            return redirect("project-settings", project_id=project.pk)
    if form.errors:
        project.refresh_from_db()  # the page's title and menu keep the saved name
    preview = request.POST.get("guidelines", "") if "preview" in request.POST else None
    return render(
        request, "annotator/project_form.html",
        {"form": form, "preview": preview, "project": project},
        status=400 if form.errors else 200,
    )  # fmt: skip


@require_POST
@lead_page
def project_archive(request: HttpRequest, project: Project) -> HttpResponse:
    archived = request.POST.get("archived") == "1"
    project_services.set_archived(project=project, archived=archived)
    messages.success(request, "Project archived." if archived else "Project restored.")
    return redirect("project-settings", project_id=project.pk)
