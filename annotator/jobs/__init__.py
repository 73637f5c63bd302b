"""Jobs: start one by task name (services), the kinds each feature registers (registry), the
runner the Celery task calls, the self-test, and the job API and page.

See docs/architecture.md for the layers and the rules."""
