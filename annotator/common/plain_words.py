"""The readers of ``alignment_core`` word their way out for the command line ("pass it with
--encoding"); on a page a lead reads the same reason with the options named as the Import
form names them. One table, applied where a page shows such a reason: a job's failure
(``annotator.jobs.selectors``, ``{% job_failure %}``) and the Import form's refusal. The
command line and the API keep the reader's own words."""

from __future__ import annotations

IN_PLAIN_WORDS = {
    "pass it with --encoding (e.g. --encoding latin-1)": "choose its Encoding (e.g. latin-1)",
    "pass --text-format (": "choose the Text format (",
    "pass --from (": "choose the Format (",
    "pass --target-text as well": "give a Target text as well",
    "--normalize on the command line, ": "",
}


def in_plain_words(reason: str) -> str:
    """``reason`` with the command-line options it names put as the Import form's fields."""
    for flagged, plain in IN_PLAIN_WORDS.items():
        reason = reason.replace(flagged, plain)
    return reason
