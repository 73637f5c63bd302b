"""Page-number pagination: ``{count, next, previous, results}``; ``?page=`` and
``?page_size=`` (at most 500)."""

from django.core.paginator import InvalidPage
from django.core.paginator import Paginator as DjangoPaginator
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

# No list has this many pages (500 rows a page at most); a larger ?page= is judged by the
# paginator, which answers 404 past the last page.
MAX_PAGE = 10**9


class CountedPaginator(DjangoPaginator):
    """Django's paginator, told the count when the caller already has it (no COUNT query)."""

    def __init__(self, *args, count: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if count is not None:
            self.count = count  # replaces the cached property's query


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def plain_page_number(self, request) -> int | None:
        """The ?page= number when it is a plain positive integer of at most MAX_PAGE (else
        None: "last", a number no list reaches, or anything the paginator must judge). The
        bound keeps the page's offset within what a database accepts (a bigint)."""
        text = request.query_params.get(self.page_query_param) or "1"
        if not (text.isascii() and text.isdigit() and len(text) <= len(str(MAX_PAGE))):
            return None
        return int(text) if 0 < int(text) <= MAX_PAGE else None

    def page_queryset(self, queryset, request, view=None, *, count: int | None = None):
        """``paginate_queryset`` (same page size, page number and errors) returning the page's
        slice of ``queryset`` unevaluated, so a view can use it as a subquery and load the
        page's rows in the same query. ``count``: the number of rows, when the caller already
        has it (then no COUNT query)."""
        self.request = request
        paginator = CountedPaginator(queryset, self.get_page_size(request), count=count)
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
