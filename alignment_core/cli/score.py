"""Placeholder for the `score` subcommand; its owner replaces this module."""

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="(not built yet)")
    p.set_defaults(func=lambda args: print("score: not built yet") or 2)
