"""Projects: projects and their pairs, members, assignment and its plan, progress, and the
lead's pages.

See docs/architecture.md for the layers and the rules."""
