"""BPE in the open, for people learning it. Read the modules in this order:

- `reference`: the algorithms in plain Python, a few lines a function — split words into
  symbols, count pairs, choose a pair (with each tie-break rule), merge, learn, apply. The
  Rust core is tested against it.
- `trace`: the same algorithms narrated step by step, as `subword explain` prints them.
- `compression`: Gage's (1994) byte-pair compression, every replacement shown, as
  `subword compress --steps` prints them.
"""
