"""Reads about seeds: the uncertainty-first queue order (issue 11 §3), and a seed job's result
in words (:func:`seed_result_summary`), and the project's unfinished seed job
(:func:`pending_seed_job`).

A project with ``uncertainty_first`` serves its unstarted, non-trial assignments most
uncertain seed first (``SeedAlignment.uncertainty``, written at seeding), after the pairs the
annotator has already started or submitted; pending trial pairs stay ahead of everything (the
queue's own rank). Other projects keep the import order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Case, F, FloatField, IntegerField, Q, QuerySet, Value, When

from annotator.models import Assignment, Job, Project

_UNCERTAINTY_FIRST = Q(
    pair__project__uncertainty_first=True,
    pair__is_trial=False,
    status=Assignment.Status.ASSIGNED,
)


def uncertainty_order(
    assignments: QuerySet[Assignment], *, uncertainty_first: bool | None = None
) -> tuple[QuerySet[Assignment], list[Any]]:
    """``assignments`` annotated for the uncertainty-first order, and the ``order_by`` terms
    to place after the queue's own rank (before the import position). ``uncertainty_first``:
    the flag of the one project all ``assignments`` belong to, when the caller knows it; False
    leaves the order as it is (no join to the project and the seeds, the same order)."""
    if uncertainty_first is False:
        return assignments, []
    annotated = assignments.annotate(
        uncertainty_rank=Case(
            When(_UNCERTAINTY_FIRST, then=Value(1)), default=Value(0), output_field=IntegerField()
        ),
        uncertainty_key=Case(
            When(_UNCERTAINTY_FIRST, then=F("seed__uncertainty")),
            default=Value(None),
            output_field=FloatField(),
        ),
    )
    return annotated, ["uncertainty_rank", F("uncertainty_key").desc(nulls_last=True)]


def _pooling_words(result: Mapping[str, Any]) -> list[str]:
    """What a supervised seed result says of pooling with the built-in English model."""
    if not result.get("builtin_weight"):
        return []
    return [
        f"Pooled with the built-in English model {result.get('builtin_version')} at weight "
        f"{result['builtin_weight']} (chosen by cross-validation on the gold)."
    ]


def _builtin_words(result: Mapping[str, Any], gold_pairs: int) -> str:
    """Which built-in model seeded (in chunks over the workers, for a big project), and why
    it seeded alone: too little gold."""
    model = f"Model: the built-in English paraphrase model {result.get('builtin_version')}"
    if result.get("chunks"):
        model += ", seeding in chunks over the workers"
    return f"{model} ({gold_pairs} gold pairs: too few for a model of the project's own)."


def _sample_words(result: Mapping[str, Any]) -> list[str]:
    """How a supervised model seeded a big project in chunks: what read all the pairs, and
    what read the fit's sample."""
    if not result.get("chunks"):
        return []
    return [
        f"Seeded in chunks over the workers: the unsupervised HMM read all {result['pairs']} "
        f"pairs; the HMMs with the gold as counts read a sample of {result.get('sample_pairs')} "
        "(every gold pair, and pairs spread over the project)."
    ]


def seed_result_summary(result: Mapping[str, Any]) -> str | None:
    """A seed job's result (``seeding.services.seed_project``) in words, for the lead: which
    model seeded, how it did in cross-validation on the project's own gold beside the HMM
    alone, and what became of the assignments. None when ``result`` is not such a result."""
    try:
        model, gold_pairs = result["model"], int(result["gold_pairs"])
        pairs, reseeded, kept = (
            int(result[k]) for k in ("pairs", "assignments_reseeded", "assignments_kept")
        )
    except (KeyError, TypeError, ValueError):
        return None
    if model == "supervised":
        evidence = "; ".join(
            f"{name}: {result[key]}"
            for name, key in (
                ("WordNet", "wordnet"),
                ("word vectors", "vectors"),
                ("thesaurus", "thesaurus"),
                ("tag lexicon", "tags"),
            )
            if result.get(key)
        )
        words = [
            f"Model: the supervised link model, trained on {gold_pairs} gold pairs"
            + (f" ({evidence})." if evidence else ".")
        ]
        cv, cv_hmm = result.get("cv") or {}, result.get("cv_hmm") or {}
        edits, hmm_edits = cv.get("edits_per_pair"), cv_hmm.get("edits_per_pair")
        if edits is not None:
            line = f"Cross-validated on this project's gold: {edits:.2f} edits per pair"
            if hmm_edits is not None:
                line += f", against {hmm_edits:.2f} for the HMM alone"
            scores = [
                f"{name} {cv[key]:.3f}"
                for name, key in (("F1", "all_f1"), ("non-identical F1", "nonident_f1"))
                if cv.get(key) is not None
            ]
            words.append(line + ("; " + ", ".join(scores) if scores else "") + ".")
        words += _pooling_words(result) + _sample_words(result)
        counted = result.get("pseudo_gold_pairs")
        if counted:
            words.append(
                f"Its own links on the {counted} pairs it did not learn from then counted as "
                "gold for the seeds' word-pair evidence."
            )
    elif model == "builtin":
        words = [_builtin_words(result, gold_pairs)]
    elif gold_pairs == 0:
        words = ["Model: the HMM alone, trained without gold."]
    else:
        words = [f"Model: {result.get('model_note') or 'the HMM alone'}."]
    if result.get("builtin_not_used"):
        words.append(f"The built-in English model was not used: {result['builtin_not_used']}.")
    words.append(
        f"{pairs} pairs seeded. Assignments: {reseeded} not yet started got the new seeds, "
        f"{kept} with work kept theirs."
    )
    return " ".join(words)


def pending_seed_job(*, project: Project) -> Job | None:
    """The project's oldest queued or running seed job (the one ``start_job`` would reuse),
    or None."""
    unfinished = [Job.Status.QUEUED, Job.Status.RUNNING]
    jobs = Job.objects.filter(project=project, kind="seed", status__in=unfinished)
    return jobs.order_by("created_at", "id").first()
