"""Placeholder for the `align` subcommand; its owner replaces this module."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("align", help="(not built yet)")
    p.set_defaults(func=lambda args: print("align: not built yet") or 2)
