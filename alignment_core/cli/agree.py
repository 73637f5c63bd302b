"""Placeholder for the `agree` subcommand; its owner replaces this module."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agree", help="(not built yet)")
    p.set_defaults(func=lambda args: print("agree: not built yet") or 2)
