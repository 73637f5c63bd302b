"""Corpora: import (parse, check, plan, write, report), uploads and the import job, export,
and evaluation against gold. Registers job kind ``import``.

See docs/architecture.md for the layers and the rules."""
