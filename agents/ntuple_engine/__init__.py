"""The n-tuple player's parts, any weights: ``network`` (the board's encoding, the learned value, the weights
file) and ``search`` (the network alone, the search on Kaggle's clock, ``play``). The built-in agent ``ntuple``
is this player with the shipped weights; an agent folder ``connectx train --learner ntuple`` writes imports these
modules with its own weights, so that its build embeds those only."""
