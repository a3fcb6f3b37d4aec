"""Developer tooling around the agents (never imported by an agent or a submission)."""
