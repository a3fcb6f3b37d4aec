"""Accuracy against perfect play: how often an agent keeps the outcome class (win, draw, loss) that perfect
play keeps, on labelled positions (``accuracy.benchmark``), asked as games ask them (``accuracy.play``)."""
