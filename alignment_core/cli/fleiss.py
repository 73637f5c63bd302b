"""Placeholder for the `fleiss` subcommand; its owner replaces this module."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fleiss", help="(not built yet)")
    p.set_defaults(func=lambda args: print("fleiss: not built yet") or 2)
