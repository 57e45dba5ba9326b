"""The benchmark sections; each `run(cfg, log)` returns the JSON-ready results it measured."""
