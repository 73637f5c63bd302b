"""Page-number pagination: ``{count, next, previous, results}``; ``?page=`` and
``?page_size=`` (at most 500)."""

from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
