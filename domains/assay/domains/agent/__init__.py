"""The agent (tool-calling) domain: replayed environments, call accuracy, step rewards."""
