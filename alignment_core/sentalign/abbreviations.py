"""Abbreviations the sentence splitter must not end a sentence at, per language (ISO 639-1).

Three kinds, written as they appear in text (spaces between the parts are optional when
matched: ``z. B.`` also finds ``z.B.``; a capital first letter is found too: ``Vgl.``):

* ``inner``: never end a sentence (``z. B.``, ``p. ex.``, ``Dr.``): their periods are never
  a boundary;
* ``before_number``: end nothing when a number follows (``S. 12``, ``Nr. 5``, ``pag. 5``);
* ``may_end``: can end a sentence (``etc.``, ``usw.``), so they hold only when a lowercase
  word, a digit or punctuation follows; before a capital the splitter's own rules decide.

``months`` are the month names after which ``3.`` is an ordinal (``3. Juli``), and
``ordinal_after`` the words after which it is one whatever follows (German ``am 3. Tag``).

Languages not listed here still get the rules every language shares (initials, decimals and
dates, ordinals before a month or a lowercase word) on top of pysbd's own lists.
"""

from __future__ import annotations

from typing import NamedTuple


class LanguageAbbreviations(NamedTuple):
    inner: tuple[str, ...] = ()
    before_number: tuple[str, ...] = ()
    may_end: tuple[str, ...] = ()
    months: tuple[str, ...] = ()
    # words after which ``3.`` is an ordinal whatever follows (``am 3. Tag``)
    ordinal_after: tuple[str, ...] = ()


_TITLES = ("Dr.", "Prof.", "St.")
# units written with a period: inside a sentence before a lowercase word, else its end
_UNITS = ("m.", "km.", "cm.", "mm.", "kg.")

ABBREVIATIONS: dict[str, LanguageAbbreviations] = {
    "en": LanguageAbbreviations(
        inner=(*_TITLES, "e.g.", "i.e.", "cf.", "vs.", "Mr.", "Mrs.", "Ms.", "Mt.", "approx."),
        before_number=("No.", "p.", "pp.", "vol.", "ch.", "fig.", "ca.", "c."),
        may_end=(*_UNITS, "etc.", "al.", "Jr.", "Inc.", "Ltd."),
        months=(
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
    ),
    "de": LanguageAbbreviations(
        inner=(
            *_TITLES,
            "z. B.",
            "d. h.",
            "u. a.",
            "vgl.",
            "ca.",
            "bzw.",
            "z. T.",
            "u. U.",
            "o. ä.",
            "sog.",
            "Hr.",
            "Fr.",
            "evtl.",
            "ggf.",
            "inkl.",
            "Ing.",
            "Mio.",
            "Mrd.",
        ),
        before_number=("Nr.", "S.", "Abb.", "Bd.", "Kap.", "Tab.", "Jh.", "Jhdt."),
        may_end=(*_UNITS, "etc.", "usw.", "u. ä.", "u. s. w.", "Std."),
        months=(
            "Januar",
            "Jänner",
            "Februar",
            "März",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ),
        ordinal_after=(
            "am",
            "der",
            "die",
            "das",
            "dem",
            "den",
            "des",
            "vom",
            "zum",
            "zur",
            "im",
            "bis",
            "ab",
            "jeden",
            "jedem",
        ),
    ),
    "fr": LanguageAbbreviations(
        inner=(
            *_TITLES,
            "p. ex.",
            "c.-à-d.",
            "c-à-d.",
            "cf.",
            "M.",
            "MM.",
            "Mme.",
            "Mlle.",
            "Me.",
            "Ste.",
            "env.",
            "ca.",
            "resp.",
            "Mgr.",
        ),
        before_number=("p.", "n°.", "no.", "vol.", "chap.", "fig.", "art.", "t."),
        may_end=(*_UNITS, "etc.", "av. J.-C.", "apr. J.-C."),
        months=(
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ),
    ),
    "it": LanguageAbbreviations(
        inner=(*_TITLES, "p. es.", "ad es.", "dott.", "prof.", "sig.", "sig.ra", "ca.", "cfr."),
        before_number=("pag.", "p.", "n.", "vol.", "cap.", "fig.", "art."),
        may_end=(*_UNITS, "ecc.", "etc."),
        months=(
            "gennaio",
            "febbraio",
            "marzo",
            "aprile",
            "maggio",
            "giugno",
            "luglio",
            "agosto",
            "settembre",
            "ottobre",
            "novembre",
            "dicembre",
        ),
    ),
    "es": LanguageAbbreviations(
        inner=(*_TITLES, "p. ej.", "Sr.", "Sra.", "Srta.", "Dra.", "aprox.", "ca.", "cf."),
        before_number=("pág.", "p.", "núm.", "n.", "vol.", "cap.", "art."),
        may_end=(
            *_UNITS,
            "etc.",
        ),
        months=(
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ),
    ),
    "nl": LanguageAbbreviations(
        inner=(*_TITLES, "bijv.", "d.w.z.", "o.a.", "m.a.w.", "ca.", "dhr.", "mevr.", "vgl."),
        before_number=("nr.", "blz.", "p.", "art."),
        may_end=(*_UNITS, "enz.", "etc."),
        months=(
            "januari",
            "februari",
            "maart",
            "april",
            "mei",
            "juni",
            "juli",
            "augustus",
            "september",
            "oktober",
            "november",
            "december",
        ),
    ),
    "da": LanguageAbbreviations(
        inner=(*_TITLES, "f.eks.", "bl.a.", "dvs.", "ca.", "hr.", "fru.", "jf."),
        before_number=("nr.", "s.", "kap."),
        may_end=(*_UNITS, "osv.", "etc."),
        months=(
            "januar",
            "februar",
            "marts",
            "april",
            "maj",
            "juni",
            "juli",
            "august",
            "september",
            "oktober",
            "november",
            "december",
        ),
    ),
    "pl": LanguageAbbreviations(
        inner=(*_TITLES, "np.", "tzn.", "tj.", "m.in.", "ok.", "ul.", "prof.", "dr."),
        before_number=("nr.", "s.", "str.", "t."),
        may_end=(*_UNITS, "itd.", "itp.", "etc.", "r."),
    ),
    "sk": LanguageAbbreviations(
        inner=(*_TITLES, "napr.", "t. j.", "resp.", "cca.", "tzv.", "doc.", "prof."),
        before_number=("č.", "s.", "str."),
        may_end=(*_UNITS, "atď.", "a pod.", "etc."),
    ),
    "ru": LanguageAbbreviations(
        inner=("т. е.", "т. к.", "напр.", "см.", "ок.", "им.", "г-н.", "проф."),
        before_number=("с.", "стр.", "№.", "т."),
        may_end=("и т. д.", "и т. п.", "и др.", "г.", "гг."),
    ),
    "bg": LanguageAbbreviations(
        inner=("т. е.", "напр.", "вж.", "ок.", "проф.", "д-р."),
        before_number=("с.", "стр.", "№.", "т."),
        may_end=("и т. н.", "и др.", "г."),
    ),
}


def for_language(lang: str) -> LanguageAbbreviations:
    return ABBREVIATIONS.get(lang, LanguageAbbreviations())
