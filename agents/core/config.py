"""Game configuration (rows, columns, inarow) read from Kaggle's ``config`` or a plain dict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def field(obj: Any, name: str, default: Any = None) -> Any:
    """Read ``name`` from a Kaggle ``Struct``, a dict or any object with attributes."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    try:
        return obj[name]
    except (KeyError, TypeError, IndexError):
        return getattr(obj, name, default)


@dataclass(frozen=True)
class Config:
    """The shape of a ConnectX game. Kaggle's defaults are 6 rows, 7 columns, 4 in a row."""

    rows: int = 6
    columns: int = 7
    inarow: int = 4

    def __post_init__(self) -> None:
        for name in ("rows", "columns", "inarow"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")

    @classmethod
    def from_kaggle(cls, config: Any) -> "Config":
        """Build from Kaggle's ``config`` (a ``Struct``) or a dict; missing fields take Kaggle's defaults."""
        if isinstance(config, Config):
            return config
        if config is None:
            return cls()
        return cls(
            int(field(config, "rows", 6)),
            int(field(config, "columns", 7)),
            int(field(config, "inarow", 4)),
        )

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    @property
    def is_standard(self) -> bool:
        """True for Connect 4 proper: 6x7, four in a row."""
        return (self.rows, self.columns, self.inarow) == (6, 7, 4)

    def as_dict(self) -> dict[str, int]:
        return {"rows": self.rows, "columns": self.columns, "inarow": self.inarow}
