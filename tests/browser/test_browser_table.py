"""The table on one screen at a laptop's and a phone's size, whole games against AI players: six
players, a rival with eleven sets, a duel of nine plays, a two-card answer and a claim to
contest in a draft game on a phone. At every state the page does not scroll, no text of the
table is clipped or covered, and the prompt, the last move and every button of the bar are in
view (``watch_layout``). And a whole game can be played with the keyboard alone.

The tests of what fits open their pages asking for reduced motion (``motion=False``): no card
flies, and each state is checked as it stands once its flights have landed. Flights are a layer
over the table that moves nothing in it; the motion tests play whole games at both sizes with
them and check that no ghost makes the page scroll (``test_browser_motion.py``). Played with
flights, the same games took about half as long again (28 s against 18 s for the long duel,
alone)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import (
    MOST_TURNS,
    WAIT_MS,
    OpenPage,
    Server,
    add_ai_players,
    create_room,
    layout_checks,
    layout_problems,
    play_until_over,
    screenshot,
    table_version,
    take_listed_move,
    wait_for_next_state,
    watch_layout,
)
from tests.browser.server import (
    BIG_STACK_ROOM,
    CLAIM_ROOM,
    LONG_DUEL_ROOM,
    PENNY_DUEL_ROOM,
    SIX_DUEL_ROOM,
    TALL_CLAIM_ROOM,
)

SIZES = {"laptop": (1280, 800), "phone": (360, 740)}
SHORT_LAPTOP = (1280, 620)
"""A 1366 x 768 laptop's window, less the browser's bars: the shortest wide table."""
SHORT_PHONE = (360, 640)
"""The shortest phone window tested: a 360 x 720 screen, less the browser's bars."""
EDGE = {"x": 8, "y": 40}
"""Where to press a hand card: near its left edge, the part a fanned hand always shows."""
MID_GAME_MOVE = 6
"""The move before which the mid-game screenshot is taken."""
MOST_TABS = 40
"""More Tab presses than it takes to go from a hand card to the move menu's button."""
LONG_NAME = "Wilhelmina Josephine Abernathy"
"""Thirty letters: the longest name the lobby takes (``NAME_LENGTH``)."""
DUEL_PLAYS = 9
"""The plays of the long duel: the challenge and eight answers."""


ANCHORS = {
    "the deck": ".felt [data-zone='deck']",
    "the discard pile": ".felt [data-zone='discard']",
    "your hand": ".player.you [data-zone='hand']",
}
"""What must never move while a turn is played: a notice, a selection or a duel opening."""


def anchors(page: Page) -> dict[str, tuple[int, int]]:
    """Where the deck, the discard pile and the hand stand (their boxes' top-left corners)."""
    found = {}
    for name, selector in ANCHORS.items():
        expect(page.locator(selector), f"{name} is not on the page").to_have_count(1)
        box = page.locator(selector).bounding_box()
        assert box is not None, f"{name} is not shown"
        found[name] = (round(box["x"]), round(box["y"]))
    return found


def assert_nothing_jumped(page: Page, before: dict[str, tuple[int, int]], after: str) -> None:
    now = anchors(page)
    moved = {name: (before[name], now[name]) for name in before if before[name] != now[name]}
    assert not moved, f"after {after}, moved (from, to): {moved}"


def start_against_ai(page: Page, server: Server, ais: int, *, room_name: str = "") -> None:
    create_room(page, server, name="Ann", seats=ais + 1, room_name=room_name)
    add_ai_players(page, ais)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".hand-card").first).to_be_visible()


def assert_fits(page: Page, *, states: int) -> None:
    problems = layout_problems(page)
    assert not problems, "\n".join(problems[:40])
    assert layout_checks(page) >= states, "the layout watch did not check the states shown"


def finish_and_check_game_over(page: Page, size: str) -> None:
    winner = page.get_by_test_id("winner")
    expect(winner).to_contain_text(re.compile(r"wins?!|share the win!"))
    expect(page.get_by_role("heading", name="Game over")).to_be_in_viewport()
    expect(winner).to_be_in_viewport()
    expect(page.locator("[data-motion]")).to_have_count(0)


@pytest.mark.parametrize("size", [*SIZES, "short phone"])
def test_a_six_player_game_fits_the_screen(open_page: OpenPage, server: Server, size: str) -> None:
    """A whole six-seat game against the AI, every state shown checked; on a short phone too,
    where late in a game two rows of rivals and your stack left the centre's piles under your
    place (33-180 problems a game before its piles' names stood beside them)."""
    width, height = SHORT_PHONE if size == "short phone" else SIZES[size]
    name = size.replace(" ", "-")
    page = open_page(width=width, height=height, motion=False)
    watch_layout(page, whole_table_in_view=True)
    start_against_ai(page, server, 5)
    expect(page.locator(".rivals .player")).to_have_count(5)
    turns = 0

    def on_turn(page: Page) -> None:
        nonlocal turns
        turns += 1
        if turns == MID_GAME_MOVE:
            expect(page.locator("[data-motion]")).to_have_count(0)  # no card in flight
            screenshot(page, f"table-six-{name}", as_seen=True)

    moves = play_until_over(page, on_turn=on_turn)
    assert moves >= MID_GAME_MOVE
    finish_and_check_game_over(page, size)
    expect(page.locator(".game-over svg.chart polyline")).to_have_count(6)
    cues = page.evaluate("async () => (await import('/static/js/sound.js')).playedCues()")
    assert "turn" in cues and cues[-1] == "gameover", cues
    screenshot(page, f"game-over-{name}", as_seen=True)
    assert_fits(page, states=moves)


@pytest.mark.parametrize("size", SIZES)
def test_a_four_player_game_with_a_thirty_letter_name_fits_the_screen(
    open_page: OpenPage, server: Server, size: str
) -> None:
    """Four players, three rivals at full size, and the longest name a player may take: the
    name is never cut, the last move that holds it never squeezes the table, and a duel's
    Answer place stays whole between tall rivals and your stack."""
    width, height = SIZES[size]
    page = open_page(width=width, height=height, motion=False)
    watch_layout(page, whole_table_in_view=True)
    create_room(page, server, name=LONG_NAME, seats=4)
    add_ai_players(page, 3)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".player.you .player-name")).to_have_text(f"{LONG_NAME} (you)")
    turns = 0

    def on_turn(page: Page) -> None:
        nonlocal turns
        turns += 1
        if turns == MID_GAME_MOVE:
            expect(page.locator("[data-motion]")).to_have_count(0)
            screenshot(page, f"table-four-long-name-{size}", as_seen=True)

    moves = play_until_over(page, on_turn=on_turn)
    finish_and_check_game_over(page, size)
    assert_fits(page, states=moves)


@pytest.mark.parametrize("size", SIZES)
def test_a_rival_with_eleven_sets_and_a_ten_card_hand_fit_and_the_list_covers_nothing(
    open_page: OpenPage, server: Server, size: str
) -> None:
    width, height = SIZES[size]
    page = open_page(width=width, height=height, motion=False)
    watch_layout(page, whole_table_in_view=True)
    start_against_ai(page, server, 1, room_name=BIG_STACK_ROOM)
    expect(page.locator(".turn-status")).to_contain_text("Your turn")
    rival = page.locator(".rivals .player")
    toggle = rival.locator(".strip-toggle")
    expect(toggle).to_have_text("+10 sets")
    expect(page.locator(".hand .hand-card")).to_have_count(10)

    # Pressing a place with no card selected says what to do, in the bar: nothing moves.
    still = anchors(page)
    page.locator('.felt [data-place="new-set"]').click(force=True)
    expect(page.get_by_test_id("notice")).to_contain_text("Select cards in your hand first")
    assert_nothing_jumped(page, still, "a notice")
    screenshot(page, f"table-notice-{size}", as_seen=True)

    # Opened, the list of sets below the top is a popover over the rivals and the centre: it
    # never covers the hand or the action bar, and the next state closes it.
    toggle.click()
    listed = page.locator(".stack-list")
    expect(listed).to_be_visible()
    expect(listed.locator("li")).to_have_count(10)
    box = listed.bounding_box()
    for covered in [page.locator(".player.you [data-zone='hand']"), page.locator(".action-bar")]:
        other = covered.bounding_box()
        assert box and other and box["y"] + box["height"] <= other["y"] + 1, "it covers the hand"
    screenshot(page, f"table-stack-list-{size}", as_seen=True)
    version = table_version(page)
    take_listed_move(page)
    wait_for_next_state(page, version)
    expect(page.locator(".stack-list")).to_have_count(0)

    moves = play_until_over(page)
    finish_and_check_game_over(page, size)
    assert_fits(page, states=moves)


def select(page: Page, kind: str, *, touch: bool = False) -> None:
    """Select one card of this kind in the hand (tapped on a touch screen)."""
    of_kind = page.locator(f'.hand .hand-card[data-kind="{kind}"]')
    card = of_kind.and_(page.locator('[aria-pressed="false"]')).first
    card.tap(position=EDGE) if touch else card.click(position=EDGE)
    expect(of_kind.and_(page.locator('[aria-pressed="true"]'))).to_have_count(1)


def play_at(page: Page, place: str, *, touch: bool = False) -> None:
    """Press a lit place of the table: the move is sent, the next state comes."""
    target = page.locator(f'.felt [data-place="{place}"]')
    expect(target).to_have_attribute("aria-disabled", "false")
    version = table_version(page)
    target.tap() if touch else target.click()
    wait_for_next_state(page, version)


def same_version(*pages: Page) -> str:
    """The version every page's table shows, once they all show the same one: a page whose
    state is still on its way shows the move before, and a state that reaches it after its
    move menu is open draws the menu anew (closed, with the new moves)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        versions = {table_version(page) for page in pages}
        if len(versions) == 1:
            return versions.pop()
        assert time.monotonic() < deadline, f"the tables show versions {sorted(versions)}"
        pages[0].wait_for_timeout(50)


def seat_bea_with_ann(
    ann: Page, bea: Page, server: Server, *, seats: int, room_name: str, host: str = "Ann"
) -> None:
    """Ann (or ``host``) creates the room (with its deal), Bea joins by the invite link; not
    yet started."""
    invite = create_room(ann, server, name=host, seats=seats, room_name=room_name)
    bea.goto(invite)
    bea.get_by_label("Your name").fill("Bea")
    bea.get_by_role("button", name="Join the room").click()
    expect(ann.locator(".seat-row", has_text="Bea")).to_be_visible()


def test_the_move_menu_stays_open_while_the_moves_it_lists_stay_the_same(
    open_page: OpenPage, server: Server
) -> None:
    """The seat to move opens its move menu; its rival leaves the table, and the state that
    says so (a new version) leaves the mover's moves as they were: the menu stays open. The
    state after a move from it, with other moves, closes it."""
    ann = open_page(motion=False)
    bea = open_page(motion=False)
    seat_bea_with_ann(ann, bea, server, seats=2, room_name="")
    ann.get_by_role("button", name="Start the game").click()
    for page in (ann, bea):
        expect(page.get_by_test_id("turn-status")).to_be_visible()
    same_version(ann, bea)
    yours = re.compile(r"^Your")
    ann_moves = ann.locator(".turn-status", has_text=yours).is_visible()
    mover, rival = (ann, bea) if ann_moves else (bea, ann)
    expect(mover.locator(".turn-status", has_text=yours)).to_be_visible()

    menu = mover.locator(".move-menu:popover-open")
    mover.get_by_test_id("all-moves").click()
    expect(menu).to_have_count(1)
    version = table_version(mover)
    rival.close()
    wait_for_next_state(mover, version)
    expect(mover.locator(".badge.away")).to_be_visible()
    expect(menu).to_have_count(1)
    expect(menu.locator("button.option").first).to_be_visible()

    version = table_version(mover)
    take_listed_move(mover)
    wait_for_next_state(mover, version)
    expect(menu).to_have_count(0)


@pytest.mark.parametrize("laptop", ["laptop", "short laptop"])
def test_a_duel_of_nine_plays_fits_a_laptop_and_a_phone(
    open_page: OpenPage, server: Server, laptop: str
) -> None:
    """Ann on a laptop (a short window, too, with a third seat's rival row) and Bea on a phone
    play a duel of nine plays by pressing its Answer place: it stays whole and pressable."""
    width, height = SHORT_LAPTOP if laptop == "short laptop" else SIZES["laptop"]
    ann = open_page(width=width, height=height, motion=False)
    bea = open_page(width=360, height=740, touch=True, motion=False)
    for page in (ann, bea):
        watch_layout(page, whole_table_in_view=True)
    seat_bea_with_ann(ann, bea, server, seats=3, room_name=LONG_DUEL_ROOM)
    add_ai_players(ann, 1)
    ann.get_by_role("button", name="Start the game").click()
    expect(ann.get_by_test_id("turn-status")).to_contain_text("Your turn")

    expect(bea.get_by_test_id("turn-status")).to_be_visible()
    still = {page: anchors(page) for page in (ann, bea)}

    # Ann challenges Bea's top Vintage Guitar set by selecting a guitar and pressing the set;
    # then each answers in turn by selecting a card and pressing the duel's answer place.
    select(ann, "guitar")
    assert_nothing_jumped(ann, still[ann], "a selection")
    play_at(ann, "set:1:0")
    expect(bea.locator(".duel.yours")).to_be_visible()
    for page in (ann, bea):
        expect(page.locator("[data-motion]")).to_have_count(0)
        assert_nothing_jumped(page, still[page], "a duel opening")
    answers = [
        (bea, "guitar"),
        (ann, "guitar"),
        (bea, "guitar"),
        (ann, "guitar"),
        (bea, "guitar"),
        (ann, "guitar"),
        (bea, "silver_bar"),
        (ann, "silver_bar"),
    ]
    for page, kind in answers:
        touch = page is bea
        expect(page.locator(".duel.yours")).to_be_visible()
        select(page, kind, touch=touch)
        play_at(page, "duel", touch=touch)
    for page in (ann, bea):
        expect(page.locator("#duel .plays-earlier")).to_be_visible()
        expect(page.locator("#duel")).to_be_in_viewport(ratio=1)
    concede = bea.locator(".bar-buttons > button.option[data-move='concede']")
    expect(concede).to_be_in_viewport(ratio=1)
    expect(ann.locator("[data-motion]")).to_have_count(0)
    expect(bea.locator("[data-motion]")).to_have_count(0)
    screenshot(ann, f"table-long-duel-{laptop.replace(' ', '-')}", as_seen=True)
    screenshot(bea, "table-long-duel-phone", as_seen=True)
    version = table_version(bea)
    concede.tap()
    wait_for_next_state(bea, version)
    expect(ann.locator(".log")).to_contain_text("Bea concedes")

    # The rest of the game: the seat to act (as Ann's table shows it) moves, the two people by
    # the first move of their menu.
    over = ann.get_by_role("heading", name="Game over")
    for _ in range(MOST_TURNS):
        if over.is_visible():
            break
        version = same_version(ann, bea)
        to_act = ann.locator(".felt .player.to-act")
        seats = to_act.evaluate_all("els => els.map(el => el.dataset.seat)")
        mover = {"0": ann, "1": bea}.get(seats[0]) if seats else None
        if mover is None:  # the AI's move, or the game just ended
            newer = ann.locator(f'.felt:not([data-version="{version}"])')
            expect(over.or_(newer).first).to_be_visible()
            continue
        expect(mover.locator(".turn-status", has_text=re.compile(r"^Your"))).to_be_visible()
        take_listed_move(mover)
        wait_for_next_state(ann, version)
    else:
        raise AssertionError(f"the game did not end within {MOST_TURNS} moves")
    finish_and_check_game_over(ann, "laptop")
    finish_and_check_game_over(bea, "phone")
    assert_fits(ann, states=DUEL_PLAYS)
    assert_fits(bea, states=DUEL_PLAYS)


@pytest.mark.parametrize("phone", ["phone", "short phone"])
def test_a_challenge_at_a_six_seat_table_fits_a_phone(
    open_page: OpenPage, server: Server, phone: str
) -> None:
    """Six seats leave a phone's duel the least room (every rival shows its sets): the
    challenge of a set with the longest name of a kind, and its answers, still show whole, on
    a short phone too."""
    ann = open_page(width=1280, height=800, motion=False)
    width, height = SHORT_PHONE if phone == "short phone" else SIZES["phone"]
    bea = open_page(width=width, height=height, touch=True, motion=False)
    for page in (ann, bea):
        watch_layout(page, whole_table_in_view=True)
    # The challenger's name in the row of plays: as long as a name may be (30 letters).
    host = "Maximiliana Fitzgerald-Ashby X"
    seat_bea_with_ann(ann, bea, server, seats=6, room_name=SIX_DUEL_ROOM, host=host)
    add_ai_players(ann, 4)
    ann.get_by_role("button", name="Start the game").click()
    expect(ann.get_by_test_id("turn-status")).to_contain_text("Your turn")
    expect(bea.locator(".rivals .player")).to_have_count(5)
    select(ann, "stocks")
    play_at(ann, "set:1:0")
    expect(bea.locator(".duel.yours")).to_contain_text("Stock Certificates")
    answers = [(bea, "stocks"), (ann, "stocks"), (bea, "stocks"), (ann, "stocks")]
    answers += [(bea, "silver_bar"), (ann, "silver_bar")]
    for page, kind in answers:
        touch = page is bea
        expect(page.locator(".duel.yours")).to_be_visible()
        select(page, kind, touch=touch)
        play_at(page, "duel", touch=touch)
    expect(bea.locator(".duel.yours")).to_be_visible()
    for page in (ann, bea):
        expect(page.locator("[data-motion]")).to_have_count(0)
        expect(page.locator("#duel")).to_be_in_viewport(ratio=1)
    screenshot(ann, "table-six-duel-laptop", as_seen=True)
    screenshot(bea, f"table-six-duel-{phone.replace(' ', '-')}", as_seen=True)
    assert_fits(ann, states=len(answers) + 1)
    assert_fits(bea, states=len(answers) + 1)


def assert_answers_in_view(
    page: Page, concede_words: str, answer_words: str, *, one_row: bool
) -> None:
    """The bar's Concede and its one answer say these words and stand whole inside the window,
    with nothing to scroll inside the bar; ``one_row``: side by side (a phone's bar has one row
    of buttons, a laptop's wraps them under one another)."""
    bar = page.locator(".action-bar .bar-buttons")
    concede = bar.locator("> button.option[data-move='concede']")
    answer = bar.locator("> button.option[data-move='answer']")
    expect(concede).to_have_text(concede_words)
    expect(answer).to_have_text(answer_words)
    for button in (concede, answer):
        expect(button).to_be_in_viewport(ratio=1)
    overflow = bar.evaluate("el => el.scrollWidth - el.clientWidth")
    assert overflow <= 0, f"the bar's buttons run {overflow} px past its edge"
    if one_row:
        tops = {round(box["y"]) for box in (concede.bounding_box(), answer.bounding_box()) if box}
        assert len(tops) == 1, f"the bar's buttons do not stand in one row: {tops}"


def test_a_two_card_answer_and_concede_fit_a_phones_bar(
    open_page: OpenPage, server: Server
) -> None:
    """A challenge opened with a Penny Jar needs weight 2: the phone's bar shows Concede and the
    answer "Racehorse + Silver Bar" side by side, both whole and inside the window."""
    ann = open_page(width=1280, height=800, motion=False)
    bea = open_page(width=360, height=740, touch=True, motion=False)
    watch_layout(bea, whole_table_in_view=True)
    seat_bea_with_ann(ann, bea, server, seats=2, room_name=PENNY_DUEL_ROOM)
    ann.get_by_role("button", name="Start the game").click()
    expect(ann.get_by_test_id("turn-status")).to_contain_text("Your turn")

    select(ann, "penny_jar")
    play_at(ann, "set:1:0")
    expect(bea.locator(".duel.yours")).to_be_visible()
    assert_answers_in_view(bea, "Concede", "Answer: Racehorse + Silver Bar", one_row=True)
    expect(bea.locator("[data-motion]")).to_have_count(0)
    screenshot(bea, "table-two-card-answer-phone", as_seen=True)

    version = table_version(bea)
    bea.locator(".action-bar .bar-buttons > button.option[data-move='answer']").tap()
    wait_for_next_state(bea, version)
    expect(ann.locator("#duel")).to_contain_text("Bea played")
    assert_fits(bea, states=2)


def start_a_claim(page: Page, server: Server, room_name: str) -> None:
    """Ann starts a two-seat game with draft piles against a Medium AI, which claims first."""
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Room name").fill(room_name)
    page.get_by_label("Seats").fill("2")
    page.get_by_label("Draft piles").check()
    page.get_by_role("button", name="Create room").click()
    add_ai_players(page, 1, level="medium")
    page.get_by_role("button", name="Start the game").click()


@pytest.mark.parametrize("size", [*SIZES, "short laptop"])
def test_a_claim_to_contest_and_a_draft_game_fit_the_screen(
    open_page: OpenPage, server: Server, size: str
) -> None:
    """Draft piles: the AI claims a pile's top first, and the bar offers "Let the claim go
    (concede)" and the contest's opening card side by side, inside the window; then the whole
    game, every state checked (on a phone, the six zones of the centre in one row)."""
    width, height = SHORT_LAPTOP if size == "short laptop" else SIZES[size]
    page = open_page(width=width, height=height, touch=size == "phone", motion=False)
    watch_layout(page, whole_table_in_view=True)
    start_a_claim(page, server, CLAIM_ROOM)

    expect(page.locator("#duel")).to_contain_text("Medium Bot claims")
    assert_answers_in_view(
        page, "Let the claim go (concede)", "Answer: Racehorse", one_row=size == "phone"
    )
    expect(page.locator("[data-motion]")).to_have_count(0)
    screenshot(page, f"table-claim-{size.replace(' ', '-')}", as_seen=True)

    moves = play_until_over(page)
    finish_and_check_game_over(page, size)
    assert_fits(page, states=moves)


def test_a_claim_between_tall_stacks_in_a_short_window_keeps_the_duel_whole(
    open_page: OpenPage, server: Server
) -> None:
    """Both seats with five and six sets, in a short laptop window: the centre keeps the claim's
    cards and the Answer place whole and pressable (the rivals' and your cards are smaller, and
    the duel's title gives way first), and every state of the contest fits."""
    page = open_page(width=SHORT_LAPTOP[0], height=SHORT_LAPTOP[1], motion=False)
    watch_layout(page, whole_table_in_view=True)
    start_a_claim(page, server, TALL_CLAIM_ROOM)

    duel = page.locator("#duel")
    expect(duel).to_contain_text("Medium Bot claims")
    expect(duel).to_be_in_viewport(ratio=1)
    expect(duel.locator(".duel-subject .cardface")).to_have_count(2)
    for claimed in duel.locator(".duel-subject .cardface").all():
        expect(claimed).to_be_in_viewport(ratio=1)
    expect(page.locator("[data-motion]")).to_have_count(0)
    screenshot(page, "table-claim-tall-stacks-short-laptop", as_seen=True)
    # Made shorter still, the window leaves the duel too little room: it closes up at once (its
    # title goes first), and opens again as the window grows back.
    expect(duel).not_to_have_class(re.compile(r"\bshort\b"))
    page.set_viewport_size({"width": SHORT_LAPTOP[0], "height": SHORT_LAPTOP[1] - 80})
    expect(duel).to_have_class(re.compile(r"\bshort\b"))
    page.set_viewport_size({"width": SHORT_LAPTOP[0], "height": SHORT_LAPTOP[1]})
    expect(duel).not_to_have_class(re.compile(r"\bshort\b"))
    select(page, "racehorse")
    play_at(page, "duel")
    expect(page.locator(".log")).to_contain_text("Ann contests the claim")
    assert_fits(page, states=2)


def focused(page: Page) -> str:
    """The focused element: its tag, classes and text, for the assertion messages."""
    description: str = page.evaluate(
        "() => { const el = document.activeElement;"
        " const text = el.textContent.trim().slice(0, 60);"
        " return `${el.tagName.toLowerCase()}.${el.className} ${text}`; }"
    )
    return description


def play_a_card_with_the_keyboard(page: Page) -> bool:
    """From a hand card: Space selects it, the arrows move along the hand and back, Up goes to
    the first lit place and Enter plays there (a chooser's first move, when it asks). Tries
    each card in turn; False when none has a lit place."""
    cards = page.locator(".hand .hand-card").count()
    for _ in range(cards):
        page.keyboard.press("Space")
        card = page.locator(".hand-card:focus")
        expect(card).to_have_attribute("aria-pressed", "true")
        expect(card).to_have_css("outline-style", "solid")
        if page.locator(".felt .place.lit").count():
            page.keyboard.press("ArrowUp")
            expect(page.locator(".felt .place.lit:focus")).to_have_count(1)
            assert "place" in focused(page)
            page.keyboard.press("Enter")
            if page.locator(".chooser").count():
                expect(page.locator(".chooser button.option").first).to_be_focused()
                page.keyboard.press("Enter")
            return True
        page.keyboard.press("Space")  # not this one: unselect it, and look at the next card
        expect(card).to_have_attribute("aria-pressed", "false")
        page.keyboard.press("ArrowRight")
    return False


def tab_to(page: Page, class_name: str) -> None:
    """Press Tab until the focused element has this class."""
    for _ in range(MOST_TABS):
        page.keyboard.press("Tab")
        if page.evaluate("name => document.activeElement.classList.contains(name)", class_name):
            return
    raise AssertionError(f"Tab never reached .{class_name}")


def tab_to_the_move_menu(page: Page) -> None:
    """Tab from the hand to the "All moves" button, open it with Enter, play its first move."""
    tab_to(page, "menu-toggle")
    page.keyboard.press("Enter")
    expect(page.locator(".move-menu button.option").first).to_be_focused()
    page.keyboard.press("Enter")


def test_a_whole_game_is_played_with_the_keyboard_alone(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(width=1280, height=800)
    start_against_ai(page, server, 3)
    over = page.get_by_role("heading", name="Game over")
    my_move = page.locator(".turn-status", has_text=re.compile(r"^Your"))
    played_on_the_table = 0
    for moves in range(MOST_TURNS):
        expect(over.or_(my_move)).to_be_visible()
        if over.is_visible():
            break
        version = table_version(page)
        if page.locator(".duel.yours").count():
            # In a challenge against us focus is on the bar's first answer; with none, on the
            # prompt, and Concede is a Tab away (never the default).
            if page.locator(".bar-buttons > button.answer").count():
                expect(page.locator(".bar-buttons > button.answer").first).to_be_focused()
            else:
                expect(page.get_by_test_id("turn-status")).to_be_focused()
                tab_to(page, "concede")
            page.keyboard.press("Enter")
        elif page.locator(".duel.pending").count():
            expect(page.locator(".bar-buttons > button.option").first).to_be_focused()
            page.keyboard.press("Enter")
        elif not page.locator(".hand .hand-card").count():
            tab_to_the_move_menu(page)
        else:
            # On our turn focus is on the first card of the hand.
            expect(page.locator(".hand .hand-card").first).to_be_focused()
            if moves % 2 == 0 and play_a_card_with_the_keyboard(page):
                played_on_the_table += 1
            else:
                tab_to_the_move_menu(page)
        wait_for_next_state(page, version)
    else:
        raise AssertionError(f"the game did not end within {MOST_TURNS} moves")
    assert moves > 0 and played_on_the_table > 0
    expect(over).to_be_focused()
    expect(page.get_by_test_id("winner")).to_contain_text(re.compile(r"wins?!|share the win!"))
