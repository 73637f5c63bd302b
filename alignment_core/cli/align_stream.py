"""``align`` on a corpus that is never held whole: the HMM path without gold or posteriors.

The corpus file is read chunk by chunk (``formats.iter_pair_chunks``; jsonl and tsv stream a
line at a time, other formats are read whole by the reader) to train (the chunked EM of
``aligner.workspace``, in a temporary folder), then the links are written chunk by chunk: as
they come for pharaoh output (links only), else beside the pairs of a second reading. Memory
is bounded by the vocabulary, the translation table and one chunk.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from alignment_core.aligner import AlignerConfig, AlignerModel
from alignment_core.aligner.training import run_em
from alignment_core.aligner.workspace import Workspace
from alignment_core.alignment import AlignedPair
from alignment_core.cli.normalize import normalization, say_normalized
from alignment_core.formats import iter_pair_chunks, write_pairs
from alignment_core.progress import ProgressBar, part


def streamable(args: argparse.Namespace) -> bool:
    """Whether this run can stream: the HMM, no gold, no posteriors."""
    return args.model_kind == "hmm" and not args.gold and not args.posteriors


def _chunks(args: argparse.Namespace) -> Iterator[list[AlignedPair]]:
    return iter_pair_chunks(args.corpus, args.from_fmt, encoding=args.encoding,
                            target_text=args.target_text, normalize=normalization(args))  # fmt: skip


def _train(args: argparse.Namespace, cfg: AlignerConfig, bar: ProgressBar, folder: Path):
    """The corpus trained in a workspace under ``folder``."""
    pairs = ((p.source, p.target) for chunk in _chunks(args) for p in chunk)
    bar.report(0.0, "reading and encoding the corpus")
    ws = Workspace.create(folder / "em", pairs, cfg)
    run_em(ws, cfg.threads, part(bar.report, 0.1, 0.9))
    return ws


def _links(ws: Workspace | None, model: AlignerModel | None, args, text: bool) -> Iterator[tuple]:
    """(pair, alignment) in input order: from the workspace's chunks (no vocabulary, one table
    at a time) after training, else from ``model``. When the output holds no ``text`` (pharaoh
    links), the workspace's links need no second reading of the corpus: their pairs are empty."""
    stream = (a for c in range(ws.n_corpus_chunks) for a in ws.alignments(c)) if ws else None
    if stream is not None and not text:
        for a in stream:
            yield AlignedPair("", [], [], a), a
        return
    for chunk in _chunks(args):
        if stream is None:
            alignments = model.align([(p.source, p.target) for p in chunk])
        else:
            alignments = [next(stream) for _ in chunk]
        yield from zip(chunk, alignments, strict=True)


def start_streamed(args: argparse.Namespace, config_of) -> int:
    """Load ``--model`` or take the config (``config_of(args, base)``), then ``run_streamed``."""
    model = None
    try:
        if args.model:
            model = AlignerModel.load(args.model)
            decoding = {"symmetrize": args.symmetrize, "threads": args.threads}
            model.config = model.config.replace(**{k: v for k, v in decoding.items() if v})
        cfg = config_of(args, AlignerConfig())
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1 if args.model else 2
    return run_streamed(args, cfg, model)


def run_streamed(args: argparse.Namespace, cfg: AlignerConfig, model: AlignerModel | None) -> int:
    """Train (unless ``model`` is given), then align and write chunk by chunk."""
    bar = ProgressBar(sys.stderr, enabled=not args.quiet)
    counts = {"pairs": 0, "links": 0}
    try:
        with tempfile.TemporaryDirectory(prefix="gridalign-align-") as tmp:
            ws = _train(args, cfg, bar, Path(tmp)) if model is None else None
            say_normalized(normalization(args))

            out_fmt = args.out_fmt or ("jsonl" if args.out.endswith(".jsonl") else "pharaoh")

            def aligned() -> Iterator[AlignedPair]:
                for p, a in _links(ws, model, args, text=out_fmt != "pharaoh"):
                    counts["pairs"] += 1
                    counts["links"] += len(a)
                    if counts["pairs"] % 5000 == 0:
                        bar.report(0.95, f"aligned {counts['pairs']} pairs")
                    yield AlignedPair(p.id, p.source, p.target, a, p.subcorpus, metadata=p.metadata)

            write_pairs(aligned(), sys.stdout if args.out == "-" else args.out, out_fmt)
            if args.save_model:
                (model or ws.model()).save(args.save_model)
            method = (model.config if model else ws.config).symmetrize
    finally:
        bar.close()
    print(
        f"align: {counts['pairs']} pairs (0 with gold), {counts['links']} links "
        f"({method}) → {args.out}",
        file=sys.stderr,
    )
    return 0
