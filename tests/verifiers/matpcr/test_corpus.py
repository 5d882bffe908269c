"""Items by id: a corpus id names an item the model cannot write, and an id that names none is malformed
input naming the item field, never a traceback."""

from __future__ import annotations

import pytest

from physvec.verifiers.matpcr.corpus import corpus_item
from physvec.verifiers.matpcr.schema import MalformedInput


def test_a_raman_id_with_a_seed_is_that_seeds_spectrum():
    assert corpus_item("raman:Si:12").id == "raman:Si:12" and corpus_item("raman:Si").id == "raman:Si:0"


@pytest.mark.parametrize("seed", ["²", "٣", "9" * 19, "9" * 5000, "1 ", "+1", "0x10"])
def test_attack_a_seed_that_is_not_a_few_ascii_digits_is_malformed_input(seed):
    # '²' and the Arabic-Indic three pass str.isdigit() but int() refuses them; 5000 digits pass the limit of 4300
    with pytest.raises(MalformedInput, match=r"^item: the seed of a raman item must be 1 to 18 ASCII digits"):
        corpus_item(f"raman:Si:{seed}")


@pytest.mark.parametrize("item_id", ["raman:Unobtainium:1", "diffraction:", "nothing", ""])
def test_an_id_naming_no_item_is_malformed_input(item_id):
    with pytest.raises(MalformedInput, match=r"^item: no corpus item"):
        corpus_item(item_id)
