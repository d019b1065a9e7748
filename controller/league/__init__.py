"""The league: several clubs, each with its own hall and broker, bridged to one league broker (docs/league.md)."""
