"""Placeholder for the `convert` subcommand; its owner replaces this module."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("convert", help="(not built yet)")
    p.set_defaults(func=lambda args: print("convert: not built yet") or 2)
