"""Gold: the one writer of gold with its history, adjudication of doubly annotated pairs, and
the adjudication pages and API.

See docs/architecture.md for the layers and the rules."""
