"""The slot-and-card policy (:mod:`buraco_rules.rl.slot_card`): its numpy forward pass equals the
torch network it was trained as (on a fixture written by ``tools/train_policy.py --fixture``, so
no torch is needed here), its features read the slot or card they score, and as a bot it sees
nothing its seat cannot (re-dealt with ``determinize``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import buraco_rules as br
from buraco_rules import variants
from buraco_rules.rl.encoding import FIRST_CARD, MELD, NUM_TOKENS

np = pytest.importorskip("numpy")
slot_card = pytest.importorskip("buraco_rules.rl.slot_card")
from buraco_rules.rl.observation import LAYOUT, OBSERVATION_SIZE, OWN_SLOTS, encode  # noqa: E402
from buraco_rules.rl.policy import PolicyBot, load_policy, load_policy_bot  # noqa: E402

SlotCardPolicy = slot_card.SlotCardPolicy
FIXTURE = Path(__file__).resolve().parent / "data" / "slot-card-policy.npz"


def test_the_numpy_forward_pass_equals_torchs_on_saved_weights() -> None:
    policy = load_policy(FIXTURE)
    assert isinstance(policy, SlotCardPolicy)
    with np.load(FIXTURE) as saved:
        observations, expected = saved["observations"], saved["logits"]
    assert observations.shape[0] >= 8 and observations[:, LAYOUT["prefix"].slice].any()
    got = policy.logits(observations)
    assert got.shape == (len(observations), NUM_TOKENS)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(policy.logits(observations[3]), expected[3], rtol=1e-5, atol=1e-5)
    # the scorers matter: zeroing the card scorer changes exactly the card tokens' logits
    arrays = policy.to_arrays()
    arrays["card_w2"] = np.zeros_like(arrays["card_w2"])
    changed = SlotCardPolicy(arrays).logits(observations) != got
    assert changed[:, FIRST_CARD:].any() and not changed[:, :FIRST_CARD].any()


def test_card_and_slot_features_read_their_own_card_and_slot() -> None:
    state = br.apply(br.new_game(variants.ITALIAN, 2, seed=0), br.DrawFromStock())
    state = br.apply(state, br.NewMeld("QC KC 2H"))
    seen = br.view(state, 0)
    observation = encode(seen, (MELD,))
    cards = slot_card.card_features(observation[None])[0]
    slots = slot_card.slot_features(observation[None])[0]
    assert cards.shape == (53, slot_card.CARD_FEATURES)
    assert slots.shape == (OWN_SLOTS, slot_card.SLOT_FEATURES)
    hand = observation[LAYOUT["hand"].slice]
    count_at = 14 + 7 * 14 - 14 + 4 + 3  # after the positions, six rows, set flags, rank counts
    np.testing.assert_array_equal(cards[:, count_at], hand)
    queen_of_clubs = 11
    assert cards[queen_of_clubs, 11] == 1.0  # its own run position, 12
    assert cards[queen_of_clubs, 14 + 4 * 14 + 11] == 1.0  # the team's club run holds it
    assert slots[0, 0] == 1.0 and not slots[1:, :31].any()  # one run on the table, in slot 0
    clubs_in_hand = hand[[s for s in range(13)] + [0]]
    np.testing.assert_array_equal(slots[0, 31:45], clubs_in_hand)
    with pytest.raises(ValueError, match="shaped"):
        slot_card.card_features(observation)


def test_weights_round_trip_and_bad_weights_are_refused(tmp_path: Path) -> None:
    policy = SlotCardPolicy.random(np.random.default_rng(1), hidden=6, scorer=3, summary=2)
    path = tmp_path / "net.npz"
    policy.save(path)
    observation = np.random.default_rng(0).random(OBSERVATION_SIZE, dtype=np.float32)
    assert np.array_equal(load_policy(path).logits(observation), policy.logits(observation))
    assert load_policy_bot(path).name == f"policy:{path}"
    arrays = policy.to_arrays()
    with pytest.raises(ValueError, match="lack"):
        SlotCardPolicy({k: v for k, v in arrays.items() if k != "slot_bias"})
    with pytest.raises(ValueError, match="card_w1"):
        SlotCardPolicy(arrays | {"card_w1": arrays["card_w1"][1:]})
    with pytest.raises(ValueError, match="trunk"):
        SlotCardPolicy(arrays | {"trunk_w0": arrays["trunk_w0"][1:]})


@pytest.mark.parametrize(("variant", "players"), [("buraco-fechado", 2), ("italian", 4)])
def test_a_slot_card_policy_bot_depends_only_on_the_view(variant: str, players: int) -> None:
    bot = PolicyBot(SlotCardPolicy.random(np.random.default_rng(2), hidden=8, scorer=4, summary=2))
    rng = random.Random(5)
    state = br.new_game(variants.get(variant), players, seed=6)
    decisions = 0
    while not state.is_over and decisions < 40:
        seat = state.current_player
        seen = br.view(state, seat)
        action = bot.choose(seen, rng)
        redealt = br.determinize(seen, rng)
        assert bot.choose(br.view(redealt, seat), rng) == action
        state = br.apply(state, action)
        decisions += 1


def test_the_shipped_policies_load_and_play_a_legal_hand() -> None:
    from buraco_rules.bots.simulate import simulate
    from buraco_rules.rl import policies

    assert set(policies.SHIPPED) == {"buraco-fechado-2p", "italian-2p"}
    assert isinstance(policies.load("buraco-fechado-2p"), SlotCardPolicy)
    for name, variant in (("italian-2p", "italian"), ("buraco-fechado-2p", "buraco-fechado")):
        bot = policies.policy_bot(name)
        assert bot.name == f"policy:{name}"
        result = simulate(variant, 2, games=1, bots=(bot, "greedy"), seed=11)
        assert result.games == 1  # every action went through apply, which refuses illegal ones
    with pytest.raises(ValueError, match="there are: buraco-fechado-2p, italian-2p"):
        policies.load("italian-9p")
    size = sum(
        p.stat().st_size for p in Path(policies.__file__).parent.iterdir() if p.suffix == ".npz"
    )
    assert size < 2_000_000  # the package stays small


@pytest.mark.parametrize(
    ("name", "variant"), [("italian-2p", "italian"), ("buraco-fechado-2p", "buraco-fechado")]
)
def test_the_shipped_policy_bots_depend_only_on_the_view(name: str, variant: str) -> None:
    from buraco_rules.rl import policies

    bot = policies.policy_bot(name)
    rng = random.Random(8)
    state = br.new_game(variants.get(variant), 2, seed=9)
    decisions = 0
    while not state.is_over and decisions < 40:
        seat = state.current_player
        seen = br.view(state, seat)
        action = bot.choose(seen, rng)
        for _ in range(2):
            redealt = br.determinize(seen, rng)
            assert br.view(redealt, seat) == seen
            assert bot.choose(br.view(redealt, seat), rng) == action
        state = br.apply(state, action)
        decisions += 1
