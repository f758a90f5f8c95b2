"""Pieces shared by every game: the batch-game protocol and the turn-based AEC template."""
