"""The page's words: the English, Brazilian Portuguese and Italian catalogues of
``server/static/i18n.js`` have the same keys, every key the page's scripts and HTML use is in
them, every refusal code of the engine (``ErrorCode``) has a player's message, and no message
carries a rule id (those stay in the API's messages)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import buraco_rules as br
from buraco_rules.bots import BOT_NAMES

STATIC = Path(br.__file__).parent / "server" / "static"
LANGUAGES = ("en", "pt-BR", "it")


def catalogues() -> dict[str, dict[str, str]]:
    text = (STATIC / "i18n.js").read_text(encoding="utf-8")
    body = text.split("// catalogues-begin", 1)[1].split("// catalogues-end", 1)[0]
    found: dict[str, dict[str, str]] = json.loads(body)
    return found


def used_keys() -> set[str]:
    """The keys the scripts name (t("key"), plural("key"), "error." + code aside) and the HTML's
    data-i18n attributes."""
    keys: set[str] = set()
    for name in ("table.js", "replay.js"):
        script = (STATIC / name).read_text(encoding="utf-8")
        keys |= set(re.findall(r'\bt\(\s*"([a-z][\w.-]*)"', script))
        keys |= {
            k + suffix
            for k in re.findall(r'\bplural\(\s*"([\w.-]+)"', script)
            for suffix in (".one", ".other")
        }
    keys = {k for k in keys if not k.endswith(".")}  # a prefix: its family is below
    # Keys built from a fixed prefix and a value the page knows.
    families = {
        "conn": ("idle", "connecting", "open", "closed", "refused"),
        "rank": ("A", "J", "Q", "K"),
        "suit": ("S", "H", "D", "C"),
        "meld": ("run", "set", "clean", "mixed", "semi"),
        "meld.short": ("clean", "mixed", "semi"),
        "end.item": ("table", "canastas", "going_out", "hands", "extra_pile", "total"),
        "end.why": tuple(t.value for t in br.Termination),
        "end.hand": ("us", "them", "one.us", "one.them", "tie"),  # a match's hand that ended
        "notice": ("storage-failed", "bot-retrying", "expired"),
        "option": tuple(br.variants.OPTIONS),  # the lobby's line for each house rule
        "bot": BOT_NAMES,  # each bot as players read it, in the seat bar and the lobby
    }
    keys |= {f"{prefix}.{value}" for prefix, values in families.items() for value in values}
    for name in ("index.html", "replay.html"):
        html = (STATIC / name).read_text(encoding="utf-8")
        keys |= set(re.findall(r'data-i18n(?:-label)?="([\w.-]+)"', html))
    return keys


def test_every_catalogue_has_the_same_keys() -> None:
    found = catalogues()
    assert tuple(found) == LANGUAGES
    english = set(found["en"])
    for lang in LANGUAGES:
        assert set(found[lang]) == english, (
            lang,
            sorted(english - set(found[lang])),
            sorted(set(found[lang]) - english),
        )
        assert all(isinstance(v, str) for v in found[lang].values())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_the_page_uses_is_in_the_catalogue(lang: str) -> None:
    missing = sorted(used_keys() - set(catalogues()[lang]))
    assert not missing, missing


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_code_has_a_players_message_without_rule_ids(lang: str) -> None:
    words = catalogues()[lang]
    for code in br.ErrorCode:
        assert f"error.{code.value}" in words, code
    for key, text in words.items():
        assert not re.search(r"\bR\d{1,2}\b", text), (key, text)
        # The same placeholders as in English: a translation names the same values.
        assert set(re.findall(r"\{(\w+)\}", text)) == set(
            re.findall(r"\{(\w+)\}", catalogues()["en"][key])
        ), (lang, key)


def test_the_game_is_in_its_own_words() -> None:
    """What players call things at the big Brazilian and Italian tables."""
    pt, it = catalogues()["pt-BR"], catalogues()["it"]
    assert "morto" in pt["extra.us"].lower() and "lixo" in pt["pile"].lower()
    assert pt["meld.clean"] == "canastra limpa" and pt["meld.mixed"] == "canastra suja"
    assert "pozzetto" in it["extra.us"].lower() and "scarti" in it["pile"].lower()
    assert it["meld.clean"] == "burraco pulito" and it["meld.mixed"] == "burraco sporco"
    assert "pinella" in it["error.too-many-wildcards"]
