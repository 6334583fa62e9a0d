"""Benchmark: random playouts and the cost of each API call, per variant and player count.

Run ``buraco-rules bench [--variant V] [--players N] [--seconds S] [--json]`` (or ``python -m
buraco_rules.bench``). Every
figure is the median of several timed rounds, taken after a warm-up (``--warmup``, by default as
long as ``--seconds``, the measuring budget of each variant and player count): the engine's memo
caches are emptied before each configuration, so the order of the configurations does not matter,
and one round timed right after that is reported as ``us_per_decision_cold``. Timings vary with
the machine's load: compare figures taken in one session.

``us_per_decision`` is a playout's time (the deal, ``legal_actions``, a uniform choice and
``apply`` at every decision) divided by its decisions: ``1e6 / (playouts_per_s *
mean_decision_steps)``, the terms in which engines with chance steps are compared per decision.
Every game timed is a fresh deal, one never played before in the process (each deal's seed is
drawn from ``--seed``'s generator), and each of the other calls is timed once on each of its
states, as a server, a bot or a trainer meets them: a game played a second time would find every
position's answers in the memo caches. That second play is reported apart, as
``us_per_decision_cache_hit`` (a round's games replayed), so that it is never read as the
engine's speed. ``build`` says whether the engine ran pure or compiled.

``--memory`` measures the memo caches instead: it plays random games of every variant for
``--seconds`` under ``tracemalloc``, then empties the caches one by one, and reports what each
held, its bytes per entry and the bytes it would hold full (its bound).

``--replay`` measures restoring a table from its record instead (a few seconds): ``from_json``
and ``replay`` of a long adversarial Italian record (take-one/discard-one turns by a seat holding
about 70 cards), in microseconds per action and peak traced memory, and the replay of matches of
one-draw hands, in microseconds per hand at two match lengths (equal when replay is linear).

``--by-hand-size`` measures what listing the legal actions costs by the size of the hand instead
(:mod:`buraco_rules.bench.scaling`): µs per ``legal_actions`` and ``legal_tokens`` call and per
listed action, at 11, 22, 44 and 72 cards.

``--adapters [HANDS]`` measures the reinforcement-learning adapters instead (needs the
``openspiel`` and ``pettingzoo`` extras, imported only then): the same random hands replayed
through the engine, the OpenSpiel game and the PettingZoo env, in CPU µs per engine decision and
per token step (:func:`adapter_figures`).
"""

from __future__ import annotations

# The other names stay importable from here (re-exported: ``X as X``), as they were when the
# benchmark was one module.
from .adapters import ADAPTER_HANDS as ADAPTER_HANDS
from .adapters import adapter_figures as adapter_figures
from .command import main, parser
from .memory import cache_memory as cache_memory
from .playouts import ROUNDS as ROUNDS
from .playouts import build as build
from .playouts import run
from .replay import adversarial_record as adversarial_record
from .replay import replay_figures as replay_figures
from .replay import short_hands_match_record as short_hands_match_record
from .scaling import HAND_SIZES as HAND_SIZES
from .scaling import hand_size_figures as hand_size_figures

__all__ = ["main", "parser", "run"]
