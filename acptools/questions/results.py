"""Result types shared by the list questions."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Item:
    """One item of a list answer and how it is proven."""
    name: str
    how: str                   # proof kind


@dataclass
class ItemList:
    """Items proven to have the property; `complete` says every other candidate was refuted."""

    items: list[Item]
    complete: bool
    total: int                 # how many items have the property (len(items) may be cut by a limit)
    unknown: list[str] = field(default_factory=list)   # candidates left undecided by the budget
    detail: str = ""

    @property
    def names(self) -> list[str]:
        """The items' names."""
        return [i.name for i in self.items]
