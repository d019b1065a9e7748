"""Tianhei (天黑): an automated table for the Killer game family.

Layers, from pure to impure (see docs/architecture.md):
``controller.rules`` (pure engine), ``controller.director`` (the game master on one asyncio loop),
``controller.ports`` (what the director needs from the world) and the adapters that implement the ports.
"""

__version__ = "0.1.0"
