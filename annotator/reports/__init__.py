"""Reports: agreement reports (a job), the dashboard and its tables, the disagreement browser.
Registers job kind ``report``.

See docs/architecture.md for the layers and the rules."""
