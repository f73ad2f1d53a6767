"""Result types shared by the list questions."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Item:
    """One item of a list answer and how it is proven (a witness plan when the proof is one)."""

    name: str
    how: str  # proof kind
    witness: list[str] | None = field(default=None, compare=False)


@dataclass
class ItemList:
    """Items proven to have the property; `complete` says every other candidate was refuted.

    When the budget runs out the answer is partial, never a bare unknown: `items` are the members
    proven so far, `refuted` the candidates proven not to be members (each with how), `unknown` the
    candidates still undecided."""

    items: list[Item]
    complete: bool
    total: int  # how many items have the property (len(items) may be cut by a limit)
    unknown: list[str] = field(default_factory=list)  # candidates left undecided by the budget
    detail: str = ""
    refuted: list[Item] = field(default_factory=list)  # candidates proven not to have the property
    from_store: bool = field(default=False, compare=False)  # read from the proof store (acptools.truth)

    @property
    def names(self) -> list[str]:
        """The items' names."""
        return [i.name for i in self.items]

    def member(self, name: str) -> tuple[bool | None, Item | None]:
        """Is `name` proven to have the property (True), proven not to (False), or undecided (None)?
        With the Item that says how, when one is kept. A complete list decides every candidate: a
        name it neither lists nor refutes explicitly is not a member."""
        hit = self._index().get(name)
        if hit is not None:
            return hit
        if self.complete and name not in self.unknown:
            return False, None
        return None, None

    def _index(self) -> dict[str, tuple[bool, Item]]:
        index = self.__dict__.get("_by_name")
        if index is None or len(index) != len(self.items) + len(self.refuted):
            index = {it.name: (False, it) for it in self.refuted}
            index.update((it.name, (True, it)) for it in self.items)
            self.__dict__["_by_name"] = index
        return index
