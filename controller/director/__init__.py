"""The director: the table's game master. It walks the script of a game (prompts, who wakes, input windows,
timers, speeches, votes), turns seat inputs into rule actions and rule events into outputs."""
