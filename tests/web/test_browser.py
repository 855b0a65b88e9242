"""The web table in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`, through Selenium; no browser download) against `cardhouse serve --web`.

* A whole Klaberjass deal (scope=deal) from seat 0 against the heuristic bot, created in the
  lobby and played by clicking the highlighted cards and the choice buttons; then its record
  stepped through.
* A Jass match watched as a spectator in a second window, updated live (Watch over
  gRPC-Web) for each move the player makes in the first; Swiss suits drawn; no hidden card
  on the spectator's page.

Screenshots go to $CARDHOUSE_SCREENSHOTS (default target/web-screenshots).

Run: CARDHOUSE_BIN=target/debug/cardhouse pytest tests/web (scripts/test-all.sh does this).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import time

import cardhouse
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
SHOTS = pathlib.Path(os.environ.get("CARDHOUSE_SCREENSHOTS", ROOT / "target" / "web-screenshots"))
WAIT = 20  # seconds for any one thing to appear
# The games the engine registers (the Python module, built from the same engine): the lobby
# must offer each of them, learnt from the server, in the registry's order.
GAMES = list(cardhouse.list_games())


def _binary() -> str:
    explicit = os.environ.get("CARDHOUSE_BIN")
    if explicit:
        return explicit
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "debug" / "cardhouse"
    if not path.exists():
        pytest.fail(f"build the server first (cargo build -p cardhouse-server); {path} is missing")
    return str(path)


@pytest.fixture()
def server():
    """`cardhouse serve --web` on 127.0.0.1:0; yields its base URL."""
    proc = subprocess.Popen(
        [_binary(), "serve", "--listen", "127.0.0.1:0", "--in-memory", "--web"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("cardhouse listening on "), line
        yield "http://" + line.removeprefix("cardhouse listening on ")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture()
def browser(tmp_path):
    for path in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(path):
            pytest.fail(f"{path} is missing (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,860",
        f"--user-data-dir={tmp_path / 'chromium'}",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / name))


def wait(driver, cond, what: str, timeout: float = WAIT):
    def check(d):
        try:
            return cond(d)
        except StaleElementReferenceException:
            return False

    return WebDriverWait(driver, timeout).until(check, message=what)


def css(driver, selector: str):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def text_of(driver, selector: str) -> str:
    found = css(driver, selector)
    return found[0].text if found else ""


def create_in_lobby(driver, base: str, game: str, seats: list[str], seed: int, clock: dict | None = None,
                    **options: str) -> None:
    driver.get(base + "/")
    # The games, their options and seats come from the server (DescribeGames): wait for the
    # game's form and its seats.
    wait(driver, lambda d: css(d, "select[name=game] option"), "the lobby's games")
    offered = [o.get_attribute("value") for o in css(driver, "select[name=game] option")]
    assert offered == GAMES, f"the lobby offers {offered}, the server plays {GAMES}"
    Select(css(driver, "select[name=game]")[0]).select_by_value(game)
    wait(driver, lambda d: css(d, "select[name=scope]"), "the options of " + game)
    for name, value in options.items():
        Select(css(driver, f"select[name={name}]")[0]).select_by_value(value)
    last_seat = f"select[name=seat-{len(seats) - 1}]"
    wait(driver, lambda d: css(d, last_seat) and not css(d, "button.primary[disabled]"), "the seats of " + game)
    for i, kind in enumerate(seats):
        Select(css(driver, f"select[name=seat-{i}]")[0]).select_by_visible_text(kind)
    for name, value in (clock or {}).items():
        field = css(driver, f"[name=clock-{name}]")[0]
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.send_keys(value)
    css(driver, "input[name=seed]")[0].send_keys(str(seed))
    css(driver, "button.primary")[0].click()
    wait(driver, lambda d: "live" in text_of(d, ".live"), "the match page, live")


def move_number(driver) -> int:
    text = text_of(driver, ".match-header .move")
    return int(text.removeprefix("move ")) if text.startswith("move ") else -1


def ended(driver) -> bool:
    return bool(css(driver, ".result"))


def play_one(driver, prefer_cards: bool = True) -> str:
    """Clicks one legal move (a highlighted card, else the first choice) and waits for it."""
    wait(driver, lambda d: ended(d) or css(d, ".seat.me .card.legal") or css(d, ".seat.me .action:not([disabled])"), "a legal move")
    if ended(driver):
        return ""
    before = move_number(driver)
    cards = css(driver, ".seat.me .card.legal")
    buttons = css(driver, ".seat.me .action:not([disabled])")
    target = cards[0] if cards and (prefer_cards or not buttons) else buttons[0]
    label = target.get_attribute("data-card") or target.text
    target.click()
    wait(driver, lambda d: ended(d) or move_number(d) > before or css(d, ".error"), f"the move {label} to land")
    assert not css(driver, ".error"), text_of(driver, ".error")
    return label


def test_a_whole_klaberjass_deal_against_the_bot_then_its_record(server, browser):
    d = browser
    create_in_lobby(d, server, "klaberjass", ["human", "heuristic"], seed=11, scope="deal")
    assert "seat 0" in text_of(d, ".match-header .role")
    # Only the seat's own hand is face up; the bot's is backs.
    mine = len(css(d, ".seat.me .hand .card[data-card]"))
    assert mine in (6, 9), mine  # before or after the bidding's three more cards each
    assert len(css(d, ".seat:not(.me) .hand .card.back")) == mine
    played = []
    shot_taken = False
    for _ in range(120):
        if ended(d):
            break
        assert not css(d, ".seat:not(.me) .hand .card[data-card]")
        # Legal cards are highlighted only while it is the seat's turn.
        if css(d, ".seat.me .card.legal"):
            assert "to-act" in css(d, ".seat.me")[0].get_attribute("class")
        if not shot_taken and css(d, ".trick .card[data-card]") and css(d, ".seat.me .card.legal"):
            shot(d, "klaberjass-play.png")
            shot_taken = True
        played.append(play_one(d))
    wait(d, ended, "the end of the deal")
    assert "finished" in text_of(d, ".match-header .status")
    assert any(p and p[0].isdigit() or p[:1] in "JQKA" for p in played), played  # cards were played
    assert css(d, ".last-trick .card")
    shot(d, "klaberjass-end.png")

    # The record: every step, and the table after any of them (replayed by the Engine).
    css(d, ".record-link")[0].click()
    wait(d, lambda d: css(d, ".steps li") and css(d, ".record .table"), "the record")
    total = len(css(d, ".steps li"))
    assert total > 20
    assert f"step {total} of {total}" in text_of(d, ".position")
    css(d, "button.first")[0].click()
    wait(d, lambda d: "step 0 of" in text_of(d, ".position"), "the first step")
    for k in range(1, 4):
        css(d, "button.next")[0].click()
        wait(d, lambda d, k=k: f"step {k} of" in text_of(d, ".position") and not css(d, "button.next[disabled]"), f"step {k}")
    assert "current" in css(d, ".steps li")[2].get_attribute("class")
    # Jump into the play: the step's table shows cards.
    css(d, ".steps li")[total - 5].click()
    wait(
        d,
        lambda d: f"step {total - 4} of" in text_of(d, ".position") and not css(d, ".record-body.loading"),
        "the position near the end",
    )
    # Near the end of the deal: the play phase, both hands face up (the record shows all).
    assert "play" in text_of(d, ".record .info")
    assert css(d, ".record .seat .hand .card[data-card]")
    shot(d, "klaberjass-record.png")

    # Errors are shown as the server words them: a token that is not the match's.
    match_id = d.current_url.split("#/record/")[1].split("?")[0]
    d.get(f"{server}/#/match/{match_id}?token=not-a-token")
    wait(d, lambda d: css(d, ".error"), "the error")
    assert text_of(d, ".error").startswith("UNAUTHENTICATED: "), text_of(d, ".error")


def test_a_spectator_sees_a_jass_match_live_with_swiss_suits(server, browser):
    d = browser
    create_in_lobby(d, server, "jass", ["human", "heuristic", "heuristic", "heuristic"], seed=5, scope="deal")
    player = d.current_window_handle
    # Swiss suits on the cards, never French ones.
    assert css(d, ".seat.me .hand svg.suit-roses, .seat.me .hand svg.suit-bells, .seat.me .hand svg.suit-acorns, .seat.me .hand svg.suit-shields")
    assert not css(d, "svg.suit-hearts, svg.suit-spades, svg.suit-clubs, svg.suit-diamonds")
    css(d, "details.links summary")[0].click()
    spectator_link = css(d, "a.spectator-link")[0].get_attribute("href")

    d.switch_to.new_window("window")
    spectator = d.current_window_handle
    d.get(spectator_link)
    wait(d, lambda d: "live" in text_of(d, ".live"), "the spectator's page, live")
    assert text_of(d, ".match-header .role") == "spectator"

    for _ in range(6):
        d.switch_to.window(spectator)
        # A spectator sees no hand: backs only.
        assert not css(d, ".hand .card[data-card]")
        assert css(d, ".hand .card.back")
        seen = move_number(d)
        lines = len(css(d, ".log li"))
        d.switch_to.window(player)
        if ended(d):
            break
        play_one(d)
        d.switch_to.window(spectator)
        # The spectator's page moves on by itself (Watch), one log line per move it learns.
        wait(d, lambda d: move_number(d) > seen and len(css(d, ".log li")) > lines, "the spectator's live update")
    wait(d, lambda d: css(d, ".trick .card[data-card]") or css(d, ".last-trick .card[data-card]"), "cards on the spectator's table")
    assert css(d, ".trick svg.suit-roses, .trick svg.suit-bells, .trick svg.suit-acorns, .trick svg.suit-shields, .last-trick svg[class*=suit-]")
    shot(d, "jass-spectator.png")


def test_a_short_clock_runs_out_a_bot_plays_and_the_seat_goes_away(server, browser):
    """A one-second clock: the seat's time counts down on the table, runs out, the timeout
    bot plays for it (the log says so), the seat goes away after two timeouts and comes
    back with its button; the record marks the moves played for it."""
    d = browser
    create_in_lobby(d, server, "klaberjass", ["human", "heuristic"], seed=12, scope="deal",
                    clock={"move": "1", "bot": "random"})
    wait(d, lambda d: "⏱" in text_of(d, ".clocks .clock.running"), "the running clock")
    wait(d, lambda d: "time is up" in text_of(d, ".log"), "the timeout in the log", timeout=10)
    wait(d, lambda d: "is away" in text_of(d, ".log") or ended(d), "the seat away", timeout=15)
    if not ended(d):
        wait(d, lambda d: "(away)" in text_of(d, ".clocks") or ended(d), "the away mark")
        shot(d, "klaberjass-away.png")
        css(d, "button.away")[0].click()
        wait(d, lambda d: "is back" in text_of(d, ".log") or ended(d), "the seat back")
        # Resign, to read the record at once.
        d.execute_script("window.confirm = () => true;")
        css(d, "button.resign")[0].click()
    wait(d, ended, "the end of the match")
    css(d, ".record-link")[0].click()
    wait(d, lambda d: css(d, ".steps li"), "the record")
    steps = [li.text for li in css(d, ".steps li")]
    assert any("played by random: time was up" in t for t in steps), steps
