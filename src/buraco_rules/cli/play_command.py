"""``buraco-rules play``: a person against bots, in the terminal.

The person sees only their seat's view; each move is picked by its number in the list of legal
actions or typed in the action notation. A move the engine refuses prints the engine's message
and the prompt comes back.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any, TextIO

from .. import (
    GameRecord,
    apply,
    legal_actions,
    new_game,
    parse_action,
    score,
    to_json,
    view,
    why_illegal,
)
from ..actions import Action
from ..bots import bot_from_name
from ..formats import NotationError
from ..views import PlayerView
from .options import add_variant, players_of, whole_number
from .render import action_text, can_show, render_actions, render_score, render_view

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add ``play`` to the subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "play",
        help="play a hand against bots in the terminal",
        description="Play one hand against bots. Type a move's number from the list, or the "
        "move itself (e.g. 'draw', 'meld 5S 6S 7S', 'add 0 8S', 'discard KH'); 'q' quits.",
    )
    add_variant(parser, "canasta-stbl")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=whole_number, help="deal from this seed (default: random)")
    parser.add_argument(
        "--bots", default="greedy", metavar="BOT", help="the other seats' bot (default greedy)"
    )
    parser.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    parser.add_argument(
        "--record", metavar="FILE", help="save the hand as a game record (see 'replay')"
    )
    parser.set_defaults(run=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    """Play one hand with the person at ``args.seat``."""
    parser: argparse.ArgumentParser = args.parser
    rules = args.variant
    players = players_of(parser, rules, args.players)
    if not 0 <= args.seat < players:
        parser.error(f"--seat must be 0 to {players - 1}, not {args.seat}")
    try:
        bot = bot_from_name(args.bots)
    except ValueError as error:
        parser.error(str(error))
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    # A terminal that cannot show the suit symbols gets letters rather than an encoding error.
    ascii_only = args.ascii or not can_show(sys.stdout, "♠♥♦♣★")
    game = _Game(args.seat, ascii_only, sys.stdin, sys.stdout)
    start = state = new_game(rules, players, seed=seed)
    played: list[Action] = []
    rng = random.Random(seed)
    out = game.out
    print(f"{rules.title}, {players} players, seed {seed}. You are seat {args.seat}.", file=out)
    while not state.is_over:
        seat = state.current_player
        seen = view(state, seat)
        if seat == args.seat:
            action = game.ask(seen)
            if action is None:
                print("Bye.", file=out)
                return 1
        else:
            action = bot.choose(seen, rng)
            print(f"seat {seat}: {action_text(action, ascii_only)}", file=out)
        state = apply(state, action)
        played.append(action)
    print("\nThe hand is over.", file=out)
    ending = "stock exhausted" if state.went_out is None else f"team {state.went_out} went out"
    print(f"{ending}\n", file=out)
    print(render_score(score(state)), file=out)
    if args.record:
        names = [("you" if s == args.seat else args.bots) for s in range(players)]
        record = GameRecord.from_game(start, played, names=names, meta={"seed": str(seed)})
        try:
            with open(args.record, "w", encoding="utf-8") as file:
                file.write(to_json(record))
        except OSError as error:
            print(f"cannot write {args.record}: {error.strerror}", file=sys.stderr)
            return 1
        print(f"\nRecorded in {args.record}.", file=out)
    return 0


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
        print("\n" + render_view(seen, self.ascii), file=self.out)
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
            print(problem, file=self.out)

    def read(
        self, seen: PlayerView, actions: tuple[Action, ...], text: str
    ) -> tuple[Action | None, str]:
        """The move ``text`` names, or None and why it cannot be played."""
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(actions):
                return actions[number - 1], ""
            return None, f"choose a move from 1 to {len(actions)}"
        try:
            action = parse_action(text)
        except NotationError as error:
            return None, str(error)
        refusal = why_illegal(seen, action)
        if refusal is not None:
            return None, str(refusal)  # the engine's own message: "K♥ is not in your hand"
        return action, ""
