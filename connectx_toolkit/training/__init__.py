"""Reinforcement learning on ConnectX: environments at the core's speed and the trainers that play in them."""
