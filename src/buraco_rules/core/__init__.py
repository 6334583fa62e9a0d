"""The vocabulary every floor above speaks: cards, actions, rule sets and their errors,
the 108 cards of two decks, the game's bounds, quoting, the memo caches and how a hand ended.

It imports nothing of the package outside itself.
"""
