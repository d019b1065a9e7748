"""The variant files shipped with Tianhei (data read by controller.rules.variant)."""
