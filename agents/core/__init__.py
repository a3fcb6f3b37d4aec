"""The one game core every agent uses: configuration, bitboard position, lines, clock, resources."""

from agents.core.config import Config
from agents.core.position import Position

__all__ = ["Config", "Position"]
