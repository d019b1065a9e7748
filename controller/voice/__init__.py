"""The voice of the table: the prompt catalogue (:mod:`.prompts`), voice packs (:mod:`.packs`), their build and
check, and the two :class:`controller.ports.Voice` adapters (:mod:`.pygame_voice`, :mod:`.null_voice`)."""
