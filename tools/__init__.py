"""Offline developer tools: book and data-set builders, and the helpers the benches and tests share."""
