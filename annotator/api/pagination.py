"""Page-number pagination: ``{count, next, previous, results}``; ``?page=`` and
``?page_size=`` (at most 500)."""

from django.core.paginator import InvalidPage
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def page_queryset(self, queryset, request, view=None):
        """``paginate_queryset`` (same page size, page number and errors) returning the page's
        slice of ``queryset`` unevaluated, so a view can use it as a subquery and load the
        page's rows in the same query."""
        self.request = request
        paginator = self.django_paginator_class(queryset, self.get_page_size(request))
        page_number = self.get_page_number(request, paginator)
        try:
            self.page = paginator.page(page_number)
        except InvalidPage as exc:
            raise NotFound(
                self.invalid_page_message.format(page_number=page_number, message=str(exc))
            ) from exc
        if paginator.num_pages > 1 and self.template is not None:
            self.display_page_controls = True
        return self.page.object_list
