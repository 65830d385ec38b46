"""The console scripts, one thin module each: argument parsing and printing only (docs/design.md)."""
