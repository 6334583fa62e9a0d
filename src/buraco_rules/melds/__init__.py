"""What cards form: the run geometry (:mod:`~buraco_rules.melds.geometry`), what a
multiset of cards makes (:mod:`~buraco_rules.melds.meld`) and every meld or addition some cards
allow (:mod:`~buraco_rules.melds.search`).

Built on :mod:`buraco_rules.core` alone.
"""
