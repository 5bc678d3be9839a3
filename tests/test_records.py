"""The plain records (index.records) behave as the dataclasses they replace did."""

from __future__ import annotations

import copy
import pickle

import pytest

from index.model import Document, Rule, XRefs
from index.numbers import RuleNumber, RuleRef, parse_rule_ref
from index.store import EditionInfo


def test_frozen_records_compare_hash_and_refuse_changes() -> None:
    a, b = RuleNumber(7, 704, 5, "j"), RuleNumber(7, 704, 5, "j")
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert a != RuleNumber(7, 704, 5, "k") and a != (7, 704, 5, "j")
    assert repr(a) == "RuleNumber(section=7, rule=704, sub=5, letters='j')"
    with pytest.raises(AttributeError, match="cannot assign to field 'letters'"):
        a.letters = "k"
    with pytest.raises(AttributeError):
        del a.rule
    ref = parse_rule_ref("601.2a-h")
    assert pickle.loads(pickle.dumps(ref)) == ref == copy.deepcopy(ref)
    assert repr(RuleRef(RuleNumber(7))) == (
        "RuleRef(start=RuleNumber(section=7, rule=None, sub=None, letters=''), end=None,"
        " with_subrules=True)"
    )
    info = EditionInfo("2025-02-07", 3, 2, "cr.txt")
    assert info == EditionInfo("2025-02-07", 3, 2, "cr.txt", "", "", 0)
    assert len({info, EditionInfo("2025-02-07", 3, 2, "cr.txt")}) == 1


def test_mutable_records_compare_but_do_not_hash() -> None:
    rule = Rule("704.5j", "text")
    assert rule == Rule("704.5j", "text", [], 0) and rule != Rule("704.5j", "text", ["e"])
    assert rule.examples == [] and rule.examples is not Rule("1", "x").examples
    with pytest.raises(TypeError):
        hash(rule)
    doc = Document("2025-02-07", {"704.5j": rule})
    other = Document("2025-02-07", {"704.5j": Rule("704.5j", "text")}, all_numbers=["704.5j"])
    assert doc == other  # the caches and all_numbers are not compared, nor shown
    assert "all_numbers" not in repr(other) and repr(doc).startswith("Document(edition=")
    assert XRefs() == XRefs({}, {}, []) and XRefs().cites is not XRefs().cites
