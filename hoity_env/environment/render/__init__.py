"""What a spectator sees: the text render and the board pictures (Pillow)."""
