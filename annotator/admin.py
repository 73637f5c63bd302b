from django.contrib import admin

from annotator import models


@admin.register(models.Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "double_annotation_share", "monolingual", "created_at"]
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


@admin.register(models.AlignerRun)
class AlignerRunAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "kind", "gold_pairs", "created_at"]
    list_filter = ["project", "kind"]


@admin.register(models.SeedAlignment)
class SeedAlignmentAdmin(admin.ModelAdmin):
    list_display = ["pair", "aligner_run", "created_at"]
    raw_id_fields = ["pair"]


@admin.register(models.Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["pair", "annotator", "status", "assigned_at", "submitted_at"]
    list_filter = ["status", "annotator"]
    raw_id_fields = ["pair", "seed"]


class RevisionInline(admin.TabularInline):
    model = models.AnnotationRevision
    extra = 0
    can_delete = False
    readonly_fields = ["version", "links", "author", "created_at", "elapsed_seconds"]


@admin.register(models.Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = ["assignment", "version", "updated_at"]
    raw_id_fields = ["assignment"]
    inlines = [RevisionInline]


@admin.register(models.AnnotationRevision)
class AnnotationRevisionAdmin(admin.ModelAdmin):
    list_display = ["annotation", "version", "author", "created_at", "elapsed_seconds"]

    def has_change_permission(self, request, obj=None):  # revisions are history: read-only
        return False


@admin.register(models.GoldAlignment)
class GoldAlignmentAdmin(admin.ModelAdmin):
    list_display = ["pair", "origin", "adjudicator", "updated_at"]
    list_filter = ["origin"]
    raw_id_fields = ["pair"]


@admin.register(models.Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "project", "status", "progress", "message", "created_at"]
    list_filter = ["status", "kind"]
    readonly_fields = ["heartbeat_at", "started_at", "finished_at", "created_at"]
