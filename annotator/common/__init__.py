"""The shared web layer: permissions, the API's errors, pagination, negotiation, filters,
schema helpers, upload fields, middleware, access selectors and health. Imports no feature.

See docs/architecture.md for the layers and the rules."""
