"""Bounded text of values that may hold states (acptools.util.shortrepr): big ints by size and digest,
long strings and containers cut with a count, dataclasses that hold bit sets written that way."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import pytest

from acptools.util.shortrepr import MAX_CHARS, MAX_ITEMS, bounded_repr, digest, int_text, short

BIG = (1 << 30_000) | 0b1011  # more digits than Python writes (4,300 by default)


def test_small_ints_are_written_and_big_ones_named_by_size_and_digest():
    assert [int_text(n) for n in (0, 7, -3, 2**64 - 1)] == ["0", "7", "-3", str(2**64 - 1)]
    assert int_text(BIG) == f"<bit set: 4 of 30001 bits, sha256 {digest(BIG)}>"
    assert len(digest(BIG)) == 12 and digest(BIG) != digest(BIG ^ 1) and digest(-BIG) != digest(BIG)
    assert short(True) == "True" and short(None) == "None" and short(2.5) == "2.5"


def test_strings_and_containers_are_cut_with_a_count_of_the_rest():
    assert short("abc") == "'abc'"
    long = "x" * (MAX_CHARS * 3)
    assert short(long).endswith(f"... ({len(long)} characters)") and len(short(long)) < MAX_CHARS + 40
    assert short([1, "a"]) == "[1, 'a']" and short((5,)) == "(5,)" and short(()) == "()"
    many = list(range(MAX_ITEMS + 5))
    assert short(many) == "[" + ", ".join(map(str, range(MAX_ITEMS))) + ", ... 5 more]"
    nested = {"state": BIG, "atoms": ["(at c0 l0)"] * 20}
    text = short(nested)
    assert "'state': <bit set: 4 of 30001 bits" in text and "... 12 more]" in text
    assert short(frozenset({BIG})).startswith("{<bit set: ")


def test_an_object_whose_own_repr_writes_a_big_int_is_named_by_its_type():
    class Holder:
        def __repr__(self) -> str:
            return f"Holder({BIG})"

    assert short(Holder()) == "<Holder>"


@bounded_repr
@dataclass(frozen=True, slots=True)
class _Op:
    action: int
    pre: int
    hidden: int = field(default=0, repr=False)


def test_bounded_repr_writes_every_repr_field_with_short_under_the_lowest_limit():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        with pytest.raises(ValueError):
            str(BIG)
        assert repr(_Op(3, BIG, BIG)) == f"_Op(action=3, pre=<bit set: 4 of 30001 bits, sha256 {digest(BIG)}>)"
    finally:
        sys.set_int_max_str_digits(old)
