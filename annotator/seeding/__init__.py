"""Seeding: train the aligner and store seed alignments with posteriors; the aligner-runs API
and the project page's "Seed" button. Registers job kind ``seed``.

See docs/architecture.md for the layers and the rules."""
