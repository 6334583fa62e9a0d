"""``buraco-rules play``: a person against bots, in the terminal.

The person sees only their seat's view (drawn by :func:`buraco_rules.render`); each move is
picked by its number in the list of legal actions or typed in the action notation. A move the
engine refuses prints the engine's message and the prompt comes back. The deal's seed is drawn
from :mod:`secrets` unless ``--seed`` is given, and is never printed: it would give away every
hand. It is kept in the saved record only (``--record``).
"""

from __future__ import annotations

import argparse
import io
import random
import secrets
import sys
from typing import Any, TextIO

from .. import GameRecord, apply, legal_actions, new_game, parse_action, score, to_json, view
from ..bots import Bot, ISMCTSBot, bot_from_name
from ..bots.simulate import game_seed, seat_bots
from ..core.actions import Action
from ..hidden.views import PlayerView
from ..play.rendering import action_text, ending_text, escape, render, render_actions, render_score
from .house_options import add_house_options, house_rules_line, rules_of
from .options import (
    add_montecarlo_budget,
    add_variant,
    bot_list,
    check_bot_count,
    montecarlo_bots,
    players_of,
    whole_number,
    with_policies,
)
from .render import can_show

__all__ = ["add_parser", "run"]

SEED_BITS = 128
"""The size of a seed drawn for a deal when none is given (unguessable, as ``new_game`` asks)."""
_MOVE_NUMBER_DIGITS = 6  # more digits than any list of moves has: no int() of a huge number


def add_parser(commands: Any) -> None:
    """Add ``play`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "play",
        help="play a hand against bots in the terminal",
        description="Play one hand against bots. Type a move's number from the list, or the "
        "move itself (e.g. 'draw', 'meld 5S 6S 7S', 'add 0 8S', 'discard KH'); 'q' quits.",
    )
    add_variant(parser, "canasta-stbl")
    add_house_options(parser)
    parser.add_argument("--seat", type=whole_number, default=0, help="your seat (default 0)")
    parser.add_argument(
        "--seed",
        type=whole_number,
        help="deal from this seed (default: an unguessable one, kept only in --record's file)",
    )
    parser.add_argument(
        "--bots",
        type=bot_list,
        default=("greedy",),
        metavar="BOT[,BOT...]",
        help="one bot for every other seat, one per team (team 0 first) or one per seat; your "
        "own seat's entry is not used (default: greedy)",
    )
    add_montecarlo_budget(parser)
    parser.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    parser.add_argument(
        "--record", metavar="FILE", help="save the hand as a game record (see 'replay')"
    )
    parser.set_defaults(run=run, parser=parser)


def seats_text(players: int) -> str:
    """``0 or 1``, ``0, 1, 2 or 3``."""
    seats = [str(s) for s in range(players)]
    return ", ".join(seats[:-1]) + " or " + seats[-1]


def run(args: argparse.Namespace) -> int:
    """Play one hand with the person at ``args.seat``."""
    parser: argparse.ArgumentParser = args.parser
    rules = rules_of(parser, args, single_hand=True)
    players = players_of(parser, rules, args.players)
    if not 0 <= args.seat < players:
        parser.error(
            f"--seat must be {seats_text(players)} with {players} players, "
            f"not {escape(str(args.seat), 20)}"
        )
    check_bot_count(parser, args.bots, players, alone=True)
    specs = with_policies(parser, montecarlo_bots(parser, args), rules, players)
    seats = seat_bots(specs * players if len(specs) == 1 else specs, players)
    bots = {s: _bot(seats[s]) for s in range(players) if s != args.seat}
    seed = args.seed if args.seed is not None else secrets.randbits(SEED_BITS)
    # A terminal that cannot show the suit symbols gets letters rather than an encoding error.
    ascii_only = args.ascii or not can_show(sys.stdout, "♠♥♦♣★")
    stdin = sys.stdin
    if isinstance(stdin, io.TextIOWrapper):
        # Bytes that are not text in the input's encoding are read as escapes (and refused
        # as no move), not raised as a UnicodeDecodeError: any input is answered.
        stdin.reconfigure(errors="surrogateescape")
    game = _Game(args.seat, ascii_only, stdin, sys.stdout)
    start = state = new_game(rules, players, seed=seed)
    played: list[Action] = []
    # The bots' choices come from the seed too, so that a given --seed replays the whole hand;
    # from a hash of it, never from random.Random(seed) itself: that is the stream new_game
    # shuffled the deck with, so the bots' random choices would give away the deal's order to
    # the person watching them, and the Monte Carlo bot would sample deals like the real one.
    rng = random.Random(game_seed(seed, 0))
    out = game.out
    dealt = f", seed {seed}" if args.seed is not None else ""  # never a seed it was not given
    print(f"{rules.title}, {players} players{dealt}. You are seat {args.seat}.", file=out)
    if house := house_rules_line(rules):
        print(house.capitalize() + ".", file=out)
    while not state.is_over:
        seat = state.current_player
        seen = view(state, seat)
        if seat == args.seat:
            action = game.ask(seen)
            if action is None:
                print("Bye.", file=out)
                return 0
        else:
            action = bots[seat].choose(seen, rng)
            print(f"seat {seat}: {action_text(action, ascii_only)}", file=out)
        state = apply(state, action)
        played.append(action)
    print("\nThe hand is over.", file=out)
    ending = ending_text(state.outcome) if state.outcome else "over"
    print(f"{ending.capitalize()}.\n", file=out)
    print(render(view(state, args.seat), ascii_only=ascii_only), file=out)
    print("\n" + render_score(score(state)), file=out)
    if args.record:
        record_names = [("you" if s == args.seat else _label(seats[s])) for s in range(players)]
        record = GameRecord.from_game(start, played, names=record_names, meta={"seed": str(seed)})
        try:
            with open(args.record, "w", encoding="utf-8") as file:
                file.write(to_json(record))
        except OSError as error:
            where = escape(args.record, 200)
            print(f"cannot write {where}: {escape(str(error.strerror))}", file=sys.stderr)
            return 1
        print(f"\nRecorded in {escape(args.record, 200)}.", file=out)
    return 0


def _bot(spec: str | Bot) -> Bot:
    return bot_from_name(spec) if isinstance(spec, str) else spec


def _label(spec: str | Bot) -> str:
    # A bot object here is a policy (named policy:...) or a search bot given --playouts or
    # --seconds-per-move.
    if isinstance(spec, str):
        return spec
    named = getattr(spec, "name", None)
    if isinstance(named, str):
        return named
    return "ismcts" if isinstance(spec, ISMCTSBot) else "montecarlo"


class _Game:
    """The person's side: showing the view and reading moves."""

    def __init__(self, seat: int, ascii_only: bool, stdin: TextIO, out: TextIO) -> None:
        self.seat = seat
        self.ascii = ascii_only
        self.stdin = stdin
        self.out = out

    def ask(self, seen: PlayerView) -> Action | None:
        """The person's next legal move, or None when they quit (``q`` or end of input)."""
        actions = legal_actions(seen)
        print("\n" + render(seen, ascii_only=self.ascii), file=self.out)
        print("Your moves:\n" + render_actions(actions, self.ascii), file=self.out)
        while True:
            print("> ", end="", file=self.out, flush=True)
            line = self.stdin.readline()
            if not line:
                return None
            text = line.strip()
            if text.lower() in ("q", "quit", "exit"):
                return None
            if not text:
                continue
            action, problem = self.read(seen, actions, text)
            if action is not None:
                return action
            print(escape(problem), file=self.out)

    def read(
        self, seen: PlayerView, actions: tuple[Action, ...], text: str
    ) -> tuple[Action | None, str]:
        """The move ``text`` names, or None and why it cannot be played. Any text is answered:
        a number is read only when it is ASCII digits (``"²"`` is a digit to ``isdigit``, not
        to ``int``) and short (``int`` refuses numbers of more than 4,300 digits)."""
        if text.isascii() and text.isdigit():
            number = int(text) if len(text) <= _MOVE_NUMBER_DIGITS else 0
            if 1 <= number <= len(actions):
                return actions[number - 1], ""
            return None, f"choose a move from 1 to {len(actions)}"
        try:
            action = parse_action(text, seen, player=self.seat)
        except ValueError as error:  # not an action, or the engine's "K♥ is not in your hand"
            return None, str(error)
        return action, ""
