"""The lab in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`,
installed by scripts/test.sh) driven by Selenium with the system chromedriver, against
`subword lab --no-browser --port 0` on 127.0.0.1. It types text and checks the coloured
tokens equal `tokenize`, clicks a word and checks its merge steps, steps the training
replay forward and back, and saves screenshots under tests/artifacts/ (git-ignored).
Every wait is bounded. Missing Chromium: skipped with the reason, a failure under CI=true."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from peers import corpus_lines, missing, peer

import subword
from subword.lab.models import load_model
from subword.teaching import reference

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TABLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
WAIT = 30  # seconds, for any one thing the page must do


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, cl100k_path: Path) -> Iterator[dict]:
    folder = tmp_path_factory.mktemp("lab-browser")
    model = folder / "textbook.json"
    subword.train(TABLE, num_merges=10, tie_break="first", min_frequency=1).save(model)
    corpus = folder / "fortunes.txt"
    corpus.write_text("".join(corpus_lines("multi-fortunes.txt")[:400]), encoding="utf-8")
    command = ["lab", "--no-browser", "--port", "0", "--corpus", str(corpus), "cl100k", str(model)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "subword", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # printed once the server listens (or the child died)
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, f"no URL from subword lab: {line!r}"
        lines = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
        yield {
            "url": found.group(0),
            "textbook": subword.load(model),
            "model": model.name,
            "corpus": lines,
        }
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    webdriver = peer("selenium.webdriver")
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        missing("Chromium is not installed (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(flag)
    # The system driver: Selenium Manager would otherwise look for one on the network.
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver, condition, message: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(condition, message)


def shot(driver, name: str, element=None) -> Path:
    """A screenshot of the window (or of one element) in tests/artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"lab-{name}.png"
    if element is None:
        driver.save_screenshot(str(path))
    else:
        element.screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def choose_model(driver, label: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "model")).select_by_value(label)


def type_text(driver, text: str) -> None:
    box = driver.find_element("id", "text")
    box.clear()
    box.send_keys(text)


def attributes(driver, selector: str, name: str) -> list[str]:
    """One attribute of every element `selector` finds, read in one script run (the page
    may re-render between two separate reads)."""
    script = (
        "return [...document.querySelectorAll(arguments[0])].map(e => e.getAttribute(arguments[1]))"
    )
    return driver.execute_script(script, selector, name)


def dom_tokens(driver) -> list[str]:
    return attributes(driver, "#tokens .tok", "data-token")


def test_tokens_merge_steps_and_replay(lab: dict, browser) -> None:
    driver = browser
    driver.get(lab["url"])
    wait_for(
        driver,
        lambda d: d.find_element("tag name", "body").get_attribute("data-ready"),
        "page ready",
    )

    # Tokens: the coloured spans are cl100k's tokenize, ids and all.
    cl100k = load_model("cl100k")
    choose_model(driver, "cl100k")
    text = "Byte pair encoding, 토큰화 and 123456 tokens!"
    type_text(driver, text)
    expected = cl100k.tokenize(text)
    wait_for(driver, lambda d: dom_tokens(d) == expected, f"tokens {expected}")
    ids = [
        int(s.get_attribute("data-id"))
        for s in driver.find_elements("css selector", "#tokens .tok")
    ]
    assert ids == cl100k.encode(text)
    stats = driver.find_element("id", "stats").text
    assert stats.startswith(f"{len(ids)} tokens")
    shot(driver, "tokens")

    # A cl100k word is one token, taken whole; the page shows how its merges would build it.
    driver.find_elements("css selector", "#tokens .tok")[1].click()  # " pair"
    alone = lambda d: d.find_elements("css selector", "#merges-alone tr.step")  # noqa: E731
    wait_for(driver, lambda d: len(alone(d)) > 0, "merges of a whole cl100k word")
    assert driver.find_element("id", "word").get_attribute("value") == " pair"
    last = alone(driver)[-1].find_elements("css selector", ".sym")
    assert [s.text for s in last] == ["\u0120pair"]
    assert (
        driver.find_element("css selector", "#merge-table .pair").text == "whole piece is a token"
    )
    shot(driver, "merge-steps-cl100k")
    driver.find_element("css selector", "#tabs button[data-tab=tokens]").click()

    # Side by side: both models, each row the model's own tokens.
    driver.find_element("css selector", "#tabs button[data-tab=compare]").click()
    rows = lambda d: d.find_elements("css selector", "#compare .row")  # noqa: E731
    wait_for(driver, lambda d: len(rows(d)) == 2, "two rows side by side")
    row = driver.find_element("css selector", "#compare .row[data-model=cl100k]")
    assert [
        s.get_attribute("data-token") for s in row.find_elements("css selector", ".tok")
    ] == expected
    assert driver.find_elements("css selector", "#compare .tok.diff")  # the models differ
    shot(driver, "side-by-side")

    # Merge steps: click "lowest" in the textbook model's tokens.
    driver.find_element("css selector", "#tabs button[data-tab=tokens]").click()
    textbook = lab["textbook"]
    choose_model(driver, lab["model"])
    type_text(driver, "the lowest newest")
    wait_for(
        driver, lambda d: dom_tokens(d) == textbook.tokenize("the lowest newest"), "textbook tokens"
    )
    first_of_lowest = driver.find_elements("css selector", "#tokens .tok")[
        len(textbook.tokenize("the"))
    ]
    first_of_lowest.click()
    steps = lambda d: d.find_elements("css selector", "#merge-table tr.step")  # noqa: E731
    merges: list[tuple[int, reference.Pair, list[str]]] = []
    reference.apply(
        reference.split_word("lowest"), textbook.merges, lambda r, p, s: merges.append((r, p, s))
    )
    wait_for(driver, lambda d: len(steps(d)) == len(merges), f"{len(merges)} merge steps")
    for row, (rank, pair, after) in zip(steps(driver), merges):
        assert row.find_element("css selector", ".rank").text == str(rank)
        assert row.find_element("css selector", ".pair").text == f"{pair[0]} + {pair[1]}"
        assert [s.text for s in row.find_elements("css selector", ".sym")] == after
    result = driver.find_elements("css selector", "#merge-result .sym")
    assert [s.text for s in result] == textbook.tokenize("lowest")
    shot(driver, "merge-steps")

    # Training replay: forward three merges, back one; each as subword.train learned it.
    trained = subword.train(TABLE, num_merges=10, tie_break="first", min_frequency=1)
    driver.find_element("css selector", "#tabs button[data-tab=replay]").click()
    step_label = lambda d: d.find_element("id", "replay-step").text  # noqa: E731
    wait_for(driver, lambda d: step_label(d) == "step 0 of 10", "replay at step 0")
    for k in (1, 2, 3):
        driver.find_element("id", "replay-next").click()
        wait_for(driver, lambda d, k=k: step_label(d) == f"step {k} of 10", f"step {k}")
        a, b = trained.merges[k - 1]
        assert (
            driver.find_element("id", "replay-merge").text == f"merge {k}: {a} + {b} \u2192 {a + b}"
        )
    winner = driver.find_element("css selector", ".pair-counts tr.winner").text
    assert winner.split() == [
        *trained.merges[2],
        str(_count(trained.merges[:2], trained.merges[2])),
    ]
    shot(driver, "replay")
    driver.find_element("id", "replay-prev").click()
    wait_for(driver, lambda d: step_label(d) == "step 2 of 10", "back to step 2")
    a, b = trained.merges[1]
    assert driver.find_element("id", "replay-merge").text == f"merge 2: {a} + {b} \u2192 {a + b}"

    # The lexicographic rule changes the winner among the tied pairs of the first step.
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "tie-break")).select_by_value("lexicographic")
    driver.find_element("id", "replay-run").click()
    lexicographic = subword.train(TABLE, num_merges=10, tie_break="lexicographic", min_frequency=1)
    wait_for(driver, lambda d: step_label(d) == "step 0 of 10", "replay restarted")
    driver.find_element("id", "replay-next").click()
    a, b = lexicographic.merges[0]
    wait_for(
        driver,
        lambda d: d.find_element("id", "replay-merge").text == f"merge 1: {a} + {b} \u2192 {a + b}",
        "lexicographic first merge",
    )

    # Vocabulary health: the textbook model has no unreachable token.
    driver.find_element("css selector", "#tabs button[data-tab=health]").click()
    wait_for(
        driver,
        lambda d: "0 unreachable" in d.find_element("id", "health-summary").text,
        "health summary",
    )

    # Corpus view: cl100k's token count on the corpus, as encode_batch gives it.
    choose_model(driver, "cl100k")
    driver.find_element("css selector", "#tabs button[data-tab=corpus]").click()
    tokens = sum(len(ids) for ids in load_model("cl100k").encode_batch(lab["corpus"]))
    wait_for(
        driver,
        lambda d: f"{tokens} tokens with cl100k" in d.find_element("id", "corpus-summary").text,
        "corpus summary",
    )
    assert len(driver.find_elements("css selector", "#corpus svg")) == 2
    shot(driver, "corpus")

    # The README's picture: cl100k's tokens of a short text, whitespace shown.
    driver.find_element("css selector", "#tabs button[data-tab=tokens]").click()
    driver.find_element("id", "show-ws").click()
    readme = "def encode(text):\n    return tok.encode(text)  # 12345 tokens, lowest newest widest"
    type_text(driver, readme)
    wait_for(driver, lambda d: dom_tokens(d) == cl100k.tokenize(readme), "README tokens")
    shot(driver, "readme", driver.find_element("tag name", "body"))
    assert driver.find_elements("css selector", "#error[hidden]")  # no error shown anywhere
    logs = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert logs == []


def _count(earlier: list[reference.Pair], pair: reference.Pair) -> int:
    table = reference.word_table(TABLE)
    for merge in earlier:
        table = reference.merge_pair(merge, table)
    return reference.pair_counts(table)[pair]


def test_artifacts_folder_is_ignored() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(ARTIFACTS / "lab-tokens.png")],
        cwd=ARTIFACTS.parent,
        timeout=30,
    )
    assert ignored.returncode == 0
