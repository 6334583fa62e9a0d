"""Play on top of the engine: the face (``legal_actions``, ``apply``, ``is_legal``,
``why_illegal`` on a state, a seat's view or a match), matches and the table drawn as text.
"""
