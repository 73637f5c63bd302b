"""``{% once %} … {% endonce %}``: a part of a page that is the same on every request (links to
static files, fixed URLs), rendered once per process and then reused (issue 32: the grid page's
head is sixteen ``{% static %}`` look-ups, a fifth of its rendering).

Only what cannot depend on the request is allowed inside, checked when the template is
compiled: text, ``{% static %}``, ``{% url %}`` with no arguments and comments. Anything else
(a variable, a tag that reads the context) is a TemplateSyntaxError naming it, so a later edit
cannot make one user's page show another's data. The output is forgotten when a setting it is
made of changes (tests' overrides). A site served under two script prefixes at once by one
process would need this tag removed."""

from __future__ import annotations

import weakref

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.base import FilterExpression, Node, NodeList, TextNode
from django.template.defaulttags import CommentNode, URLNode
from django.templatetags.static import StaticNode

register = template.Library()


_RENDERED: weakref.WeakSet[OnceNode] = weakref.WeakSet()
# What a {% once %} part's output is made of: a change (a test's override) renders it anew.
_INPUTS = {"STATIC_URL", "STORAGES", "ROOT_URLCONF", "FORCE_SCRIPT_NAME", "INSTALLED_APPS"}


class OnceNode(Node):
    def __init__(self, nodelist: NodeList):
        self.nodelist = nodelist
        self.output: str | None = None
        _RENDERED.add(self)

    def render(self, context: template.Context) -> str:
        if self.output is None:
            self.output = self.nodelist.render(context)
        return self.output


def _check_fixed(nodelist: NodeList) -> None:
    for node in nodelist:
        if not _fixed(node):
            raise template.TemplateSyntaxError(
                "{% once %} holds only text, {% static 'literal' %} and {% url 'name' %} without "
                f"arguments; not {{% {node.token.contents} %}}"
            )


def _fixed(node: Node) -> bool:
    if isinstance(node, (TextNode, CommentNode)):
        return True
    if isinstance(node, StaticNode):
        return node.varname is None and _literal(node.path)
    if isinstance(node, URLNode):
        return not (node.args or node.kwargs or node.asvar) and _literal(node.view_name)
    return False


def _literal(expression: FilterExpression) -> bool:
    """A string written in the template, with no filter: not read from the context."""
    return isinstance(expression.var, str) and not expression.filters


@receiver(setting_changed)
def _forget(*, setting: str, **_: object) -> None:
    if setting in _INPUTS:
        for node in list(_RENDERED):
            node.output = None


@register.tag
def once(parser, token):
    nodelist = parser.parse(("endonce",))
    parser.delete_first_token()
    _check_fixed(nodelist)
    return OnceNode(nodelist)
