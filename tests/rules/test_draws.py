"""The simulator's own draws (controller/rules/draws.py) are exactly ``random.Random``'s: the same shuffles and
choices from the same generator state, and the generator left in the same state, so a seed gives the same games
whether the replica or the standard library draws."""

from __future__ import annotations

import random

from controller.rules import draws


def test_the_replica_is_used_here():
    assert draws.EXACT


def test_a_deal_shuffled_in_one_batch_of_draws_is_random_shuffle_and_leaves_the_generator_where_it_would():
    for seed in range(60):
        ours, theirs = random.Random(seed), random.Random(seed)
        for size in (0, 1, 2, 5, 8, 12, 13, 16, 17, 24, 33):
            deck, expected = list(range(size)), list(range(size))
            draws.shuffle(ours, deck)
            theirs.shuffle(expected)
            assert deck == expected, (seed, size)
        assert ours.getrandbits(32) == theirs.getrandbits(32)


def test_a_choice_is_random_choice_from_a_tuple_a_list_or_any_sequence():
    ours, theirs = random.Random(7), random.Random(7)
    for n in range(1, 40):
        for seq in (tuple(range(n)), list(range(n)), range(n)):
            assert draws.choice(ours, seq) == theirs.choice(seq)
    assert ours.random() == theirs.random()
