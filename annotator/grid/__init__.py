"""The grid: the annotator's queue, the grid page and its API (open, save, submit, flag), and
trial feedback.

See docs/architecture.md for the layers and the rules."""
