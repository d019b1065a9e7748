"""Players that act only through the engine's "what are you waiting for" answer (``engine.pending``).

A policy sees the state only as a seat holder (or the judge, for group entries) would: its own role, partners,
and what its seat learnt. The simulator and the simulated table use them.
"""

from controller.bots.policies import POLICIES, HeuristicPolicy, Policy, RandomPolicy, UninformedPolicy

__all__ = ["POLICIES", "HeuristicPolicy", "Policy", "RandomPolicy", "UninformedPolicy"]
