"""Reproducible measurements (see docs/benchmarks.md). A regular package, so that the
scripts' ``from benchmarks.x import ...`` finds this folder and not the top-level ``benchmarks``
package that pysbd 0.3.4 installs into site-packages."""
