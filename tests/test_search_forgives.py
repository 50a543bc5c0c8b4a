"""Search that forgives (web/catalogue.py's SearchIndex): a typo, a missing space, the words in
another order, with a query that matches as typed ranked as it always was. The rows are
made up for this test (names shaped like the shipped records')."""

from __future__ import annotations

import pytest

from benchgraph.web.catalogue import Row, SearchIndex, _one_typo

ACC = "https://w3id.org/benchgraph/id/accelerators/"
RUN = "https://w3id.org/benchgraph/id/benchmarks/"
ROWS = [
    Row(ACC + "nvidia-h100-sxm", "nvidia-h100-sxm", "NVIDIA H100 SXM 80 GB"),
    Row(ACC + "nvidia-h100-pcie", "nvidia-h100-pcie", "NVIDIA H100 PCIe 80 GB"),
    Row(ACC + "nvidia-h200-sxm", "nvidia-h200-sxm", "NVIDIA H200 SXM 141 GB"),
    Row(ACC + "habana-gaudi2", "habana-gaudi2", "Habana Gaudi2"),
    Row(ACC + "other-gaudi3", "other-gaudi3", "Gaudi3 board of another maker"),
    Row(RUN + "run-h100-sxm-x8", "run-h100-sxm-x8", "A run on 8 NVIDIA H100 SXM 80 GB"),
    Row(RUN + "run-h200-sxm-x8", "run-h200-sxm-x8", "A run on 8 NVIDIA H200 SXM 141 GB"),
]


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex(ROWS)


def ids(index: SearchIndex, query: str) -> list[str]:
    return [row.id for _score, row, _why in index.search(query, limit=None)]


@pytest.mark.parametrize("typo", ["nvidai", "nvida", "nviddia", "nvidja"])
def test_a_word_one_typo_away_finds_what_the_word_finds(index, typo):
    """Two letters swapped, one left out, one added, one wrong: ranked as the word is."""
    assert ids(index, f"{typo} h100") == ids(index, "nvidia h100")
    assert ids(index, f"{typo} h100")[0].startswith("nvidia-h100-")  # a part before its runs
    assert ids(index, typo) == ids(index, "nvidia")  # ranked as the word is


def test_a_missing_space_finds_the_part_first(index):
    assert ids(index, "h100sxm")[0] == "nvidia-h100-sxm"
    assert ids(index, "nvidiah100sxm")[0] == "nvidia-h100-sxm"


def test_words_in_another_order_find_and_rank_the_same(index):
    assert ids(index, "sxm h100") == ids(index, "h100 sxm")
    assert ids(index, "sxm 80 gb nvidia h100") == ids(index, "nvidia h100 sxm 80 gb")
    (first, *_rest) = index.search("sxm 80 gb nvidia h100")
    (same, *_rest) = index.search("nvidia h100 sxm 80 gb")
    assert first[1].id == "nvidia-h100-sxm" and first[0] == pytest.approx(same[0])  # whole name


def test_a_query_that_matches_as_typed_gets_no_near_words(index):
    """h200 is one typo from h100: a search for h100 finds no H200 record."""
    found = ids(index, "h100")
    assert found and not any("h200" in i for i in found)
    assert ids(index, "gaudi2") == ["habana-gaudi2"]  # not gaudi3's
    assert index.search("nvidia zebra") == []  # every word, or a word one typo from it


def test_when_no_record_holds_every_word_words_one_typo_away_are_tried(index):
    """`gaudi3` is in a record, but not with `habana`: Habana's Gaudi2 is one typo away."""
    assert ids(index, "habana gaudi3") == ["habana-gaudi2"]


@pytest.mark.parametrize(
    "a, b, near",
    [
        ("nvidia", "nvidai", True),
        ("nvidia", "nvida", True),
        ("nvidia", "nvidiaa", True),
        ("nvidia", "mvidia", True),
        ("nvidia", "nvidia", False),  # the word itself is no typo of it
        ("nvidia", "nvdiai", False),  # two edits
        ("abc", "cba", False),
        ("gaudi2", "gaudi3", True),
    ],
)
def test_one_typo_is_one_letter_wrong_missing_added_or_swapped(a, b, near):
    assert _one_typo(a, b) is near and _one_typo(b, a) is near
