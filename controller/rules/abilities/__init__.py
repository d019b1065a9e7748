"""The built-in night abilities, one module each; importing this package registers them all
(controller/rules/ability.py says what the fields mean). A club's or a test's own ability is a module like these
that calls :func:`controller.rules.ability.register` before its variant file is read."""

from importlib import import_module

#: The built-in ability modules, in the order error messages list the abilities.
BUILT_IN = ("kill", "check", "protect", "secret_kill", "recognise", "hug", "shoot", "needle", "silence", "revive",
            "take", "late_kill", "dual_needle", "dual_shot", "d2_hug", "antidote", "poison", "guard")

for _name in BUILT_IN:
    import_module(f"{__name__}.{_name}")
