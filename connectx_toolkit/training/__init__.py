"""Reinforcement-learning environments for ConnectX at the core's speed."""
