"""Reinforcement learning and search: a token code for actions and adapters for other libraries.

:mod:`buraco_rules.rl.encoding` needs nothing beyond the engine. The rest sit behind extras:
:mod:`buraco_rules.rl.observation` (``rl``: numpy), :mod:`buraco_rules.rl.openspiel`
(``openspiel``), :mod:`buraco_rules.rl.pettingzoo` and :mod:`buraco_rules.rl.gymnasium`
(``pettingzoo``). This package imports none of them, so that the engine stays attrs-only.
"""
