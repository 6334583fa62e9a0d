"""What a seat may see: its view of a state, and the full states that agree with
it (the cards it cannot see dealt into their places).

Built on :mod:`buraco_rules.engine`.
"""
