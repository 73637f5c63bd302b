"""The admin: a window on the data, not a way round the services.

History is append-only (annotations, their revisions, gold and its revisions, seeds): the admin
shows it read only, so every write goes through a service that records a revision. Because
those admins cannot delete, Django's admin also refuses any delete that would cascade into them
(a project or pair with work). Users with work are deactivated, never deleted.
"""

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.text import format_lazy

from annotator import models
from annotator.accounts.services.accounts import deactivate_users, users_with_work


class ReadOnlyHistoryAdmin(admin.ModelAdmin):
    """View only: no add, no change, no delete (staff still see every field)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(models.Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "double_annotation_share", "monolingual", "max_tokens", "created_at"]
    search_fields = ["name"]


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["project", "user", "role"]
    list_filter = ["role", "project"]


@admin.register(models.Subcorpus)
class SubcorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "project"]
    list_filter = ["project"]


@admin.register(models.SentencePair)
class SentencePairAdmin(admin.ModelAdmin):
    list_display = ["external_id", "project", "subcorpus", "is_trial", "position"]
    list_filter = ["project", "subcorpus", "is_trial"]
    search_fields = ["external_id"]
    # Tokens are what every alignment's indices point into: changing them would corrupt links.
    readonly_fields = ["source_tokens", "target_tokens"]


@admin.register(models.AlignerRun)
class AlignerRunAdmin(ReadOnlyHistoryAdmin):
    list_display = ["id", "project", "kind", "gold_pairs", "created_at"]
    list_filter = ["project", "kind"]


@admin.register(models.SeedAlignment)
class SeedAlignmentAdmin(ReadOnlyHistoryAdmin):
    list_display = ["pair", "aligner_run", "uncertainty", "created_at"]
    raw_id_fields = ["pair"]


@admin.register(models.Assignment)
class AssignmentAdmin(ReadOnlyHistoryAdmin):
    list_display = ["pair", "annotator", "status", "slot", "assigned_at", "submitted_at"]
    list_filter = ["status", "annotator"]
    raw_id_fields = ["pair", "seed"]


class RevisionInline(admin.TabularInline):
    model = models.AnnotationRevision
    extra = 0
    can_delete = False
    fields = readonly_fields = [
        "version", "kind", "links", "edits_from_seed", "author", "created_at", "elapsed_seconds",
    ]  # fmt: skip

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(models.Annotation)
class AnnotationAdmin(ReadOnlyHistoryAdmin):
    list_display = ["assignment", "version", "updated_at"]
    raw_id_fields = ["assignment"]
    inlines = [RevisionInline]


@admin.register(models.AnnotationRevision)
class AnnotationRevisionAdmin(ReadOnlyHistoryAdmin):
    list_display = ["annotation", "version", "kind", "author", "created_at", "elapsed_seconds"]
    list_filter = ["kind"]


class GoldRevisionInline(admin.TabularInline):
    model = models.GoldRevision
    extra = 0
    can_delete = False
    fields = readonly_fields = ["version", "origin", "links", "author", "note", "created_at"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(models.GoldAlignment)
class GoldAlignmentAdmin(ReadOnlyHistoryAdmin):
    list_display = ["pair", "origin", "version", "adjudicator", "updated_at"]
    list_filter = ["origin"]
    raw_id_fields = ["pair"]
    inlines = [GoldRevisionInline]


@admin.register(models.GoldRevision)
class GoldRevisionAdmin(ReadOnlyHistoryAdmin):
    list_display = ["gold", "version", "origin", "author", "created_at"]
    list_filter = ["origin"]


@admin.register(models.Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "project", "status", "progress", "message", "created_at"]
    list_filter = ["status", "kind"]
    readonly_fields = ["heartbeat_at", "started_at", "finished_at", "created_at"]


# --- users: deactivate, never delete someone with work ---------------------------------------

User = get_user_model()
WORK_KEPT = (
    "Users with work (assignments, saved revisions, gold) are deactivated, never deleted: their "
    "work stays and they can no longer log in. Use the action “Deactivate selected users”."
)


class GridalignUserAdmin(UserAdmin):
    actions = ["deactivate_selected"]

    @admin.action(description="Deactivate selected users (their work is kept)")
    def deactivate_selected(self, request, queryset):
        changed = deactivate_users(user_ids=queryset.values_list("pk", flat=True))
        self.message_user(request, f"Deactivated {changed} user(s).", messages.SUCCESS)

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            _, name, description = actions["delete_selected"]
            actions["delete_selected"] = (
                type(self)._delete_selected_without_work,
                name,
                description,
            )
        return actions

    def _delete_selected_without_work(self, request, queryset):
        busy = list(users_with_work(queryset).values_list("username", flat=True))
        if busy:
            self.message_user(
                request, f"Not deleted: {', '.join(busy)}. {WORK_KEPT}", messages.ERROR
            )
            return None
        return delete_selected(self, request, queryset)

    def delete_view(self, request, object_id, extra_context=None):
        user = self.get_object(request, object_id)
        if user is not None and users_with_work(User._default_manager.filter(pk=user.pk)).exists():
            self.message_user(
                request, format_lazy("{} was not deleted. {}", user, WORK_KEPT), messages.ERROR
            )
            opts = self.opts
            url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[user.pk])
            return HttpResponseRedirect(url)
        return super().delete_view(request, object_id, extra_context)


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, GridalignUserAdmin)
