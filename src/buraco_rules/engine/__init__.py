"""One hand's rules on full states: the :class:`~buraco_rules.GameState` record, the
move generator, the checker, going out, the builders of the next state, the reducer, scoring and
validation.

It takes states only: views are :mod:`buraco_rules.hidden`'s, and matches and the face that
dispatches on them are :mod:`buraco_rules.play`'s.
"""
