"""Content negotiation for endpoints that use ``?format=`` for a FILE format (export,
evaluate): DRF would read it as a renderer name (``?format=json``) and answer 404. Errors are
still rendered as JSON."""

from rest_framework.negotiation import DefaultContentNegotiation


class FileFormatNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        renderer = renderers[0]
        return renderer, renderer.media_type
