"""Small helpers shared by the report modules: which figures count, cell lookup, tables."""

from __future__ import annotations

MB = 1_000_000
COUNTS = ("identical", "reference")


def mbps(cell: dict | None) -> float | None:
    """MB/s of an encoding cell, only if its ids were checked equal to the reference."""
    if not cell or "seconds" not in cell or cell.get("check") not in COUNTS:
        return None
    return cell["bytes"] / cell["seconds"] / MB


def short(text: str, n: int = 48) -> str:
    text = " ".join(str(text).split()).replace("|", "/")
    return text if len(text) <= n else text[: n - 1] + "…"


def index(cells: list[dict]) -> dict[tuple[str, str, str], dict]:
    return {(c["peer"], c.get("input", ""), c.get("call", "")): c for c in cells if "peer" in c}


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]
