"""Board states worth a golden image: one per gesture the room sees, as public_facts would give them."""

from __future__ import annotations

TWELVE = ["killer", "civilian", "police", "doctor", "secret_police", "sniper", "civilian", "killer", "civilian",
          "civilian", "police", "killer"]

SAMPLES: dict[str, dict[str, object]] = {
    "deal": {"gesture": "deal"},
    "night": {"gesture": "eyes_closed", "night": 1, "day": 0, "dead": []},
    # seat 5 died in the night and speaks its last words (V2.7), 47 seconds left
    "last_words": {"gesture": "last_words", "night": 1, "day": 1, "dead": [5], "speaker": 5, "seconds": 47},
    "speech": {"gesture": "speech", "night": 1, "day": 1, "dead": [5], "speaker": 6, "seconds": 87},
    # the vote on seat 3 is called; yesterday's tally is still public
    "vote": {"gesture": "vote", "night": 2, "day": 2, "dead": [5, 9], "candidate": 3,
             "tally": [[3, 4], [7, 2]], "out": 3, "tied": []},
    "tie": {"gesture": "day", "night": 1, "day": 1, "dead": [5], "tally": [[3, 4], [7, 4]], "out": None,
            "tied": [3, 7]},
    "paused": {"gesture": "paused", "night": 1, "day": 1, "dead": [5]},
    # C4: at the end every role is public; twelve seats wrap between seats, never inside one
    "over": {"gesture": "over", "night": 3, "day": 3, "dead": [1, 3, 5, 8, 12], "winner": "good",
             "roles": {str(i): r for i, r in enumerate(TWELVE, start=1)}},
}
