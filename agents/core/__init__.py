"""The one game core every agent uses: configuration, bitboard position, lines, clock, resources."""

from .config import Config
from .position import Position

__all__ = ["Config", "Position"]
