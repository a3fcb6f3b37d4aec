"""Search helpers shared by several agents: window counts and the bitboard line heuristic."""
