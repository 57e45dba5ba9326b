"""Side-by-side benchmark suite for subword against the BPE libraries on PyPI.

Run it with `bash benchmarks/run.sh` (see benchmarks/README.md). Nothing in the package or
its tests imports this folder.
"""
