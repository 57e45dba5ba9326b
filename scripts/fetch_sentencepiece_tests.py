"""Puts SentencePiece's own test model and its text (`test/botchan_en_bpe_1000.model`,
`test/botchan.txt`, shipped only in the sdist of the `sentencepiece` package, not in its
wheels) in `.cache/sentencepiece-sdist/`, for tests/test_sentencepiece.py.

The sdist is found on the package index pip uses (PyPI's simple API), checked against the
sha256 the index gives, and read without being built. Usage:
    python scripts/fetch_sentencepiece_tests.py [VERSION]   (default: the installed one)
"""

from __future__ import annotations

import hashlib
import re
import sys
import tarfile
import urllib.request
from importlib.metadata import version as installed_version
from pathlib import Path

INDEX = "https://pypi.org/simple/sentencepiece/"
WANTED = ("test/botchan_en_bpe_1000.model", "test/botchan.txt")
TARGET = Path(__file__).resolve().parents[1] / ".cache" / "sentencepiece-sdist"


def main() -> int:
    version = sys.argv[1] if len(sys.argv) > 1 else installed_version("sentencepiece")
    if all((TARGET / Path(name).name).is_file() for name in WANTED):
        return 0
    page = urllib.request.urlopen(INDEX, timeout=60).read().decode()
    found = re.search(
        rf'href="([^"#]+/sentencepiece-{re.escape(version)}\.tar\.gz)#sha256=([0-9a-f]{{64}})"',
        page,
    )
    if found is None:
        print(f"no sdist of sentencepiece {version} on {INDEX}", file=sys.stderr)
        return 1
    url, sha256 = found.groups()
    data = urllib.request.urlopen(url, timeout=120).read()
    if hashlib.sha256(data).hexdigest() != sha256:
        print(f"{url}: sha256 differs from the index's {sha256}", file=sys.stderr)
        return 1
    TARGET.mkdir(parents=True, exist_ok=True)
    archive = TARGET / "sdist.tar.gz"
    archive.write_bytes(data)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            for name in WANTED:
                if member.isfile() and member.name.endswith("/" + name):
                    source = tar.extractfile(member)
                    assert source is not None
                    part = TARGET / (Path(name).name + ".part")
                    part.write_bytes(source.read())
                    part.replace(TARGET / Path(name).name)
    archive.unlink()
    absent = [n for n in WANTED if not (TARGET / Path(n).name).is_file()]
    if absent:
        print(f"the sdist of sentencepiece {version} lacks {absent}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
