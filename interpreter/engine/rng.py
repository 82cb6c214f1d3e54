"""A small seeded PRNG whose whole state is one integer stored in the game state.

Python's `random.Random` has a 625-word state and its algorithms may change
between versions; a game must replay bit for bit in any process, so the state
carries its own SplitMix64 counter instead.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
MAX_SEED = MASK  # seeds are 0..2^64-1: the generator has 2^64 states, so a larger seed would be some smaller one


def check_seed(seed: object) -> None:
    """A TypeError or ValueError unless `seed` is a seed: an int from 0 to 2^64-1.

    Every seed is reduced modulo 2^64 on the way in, so -1 and 2^64 + 5
    would silently play the games of 2^64-1 and 5; refusing them keeps one
    game per written seed.
    """
    if type(seed) is not int:
        raise TypeError("seed must be an int")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed {seed} is outside 0..{MAX_SEED} (2^64-1): give a seed in that range")


def seed_state(seed: int) -> int:
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK


class Rng:
    """SplitMix64; `state` is the value saved in the game state."""

    __slots__ = ("state",)

    def __init__(self, state: int):
        self.state = state & MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform int in [0, n) without modulo bias."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def random(self) -> float:
        return (self.next64() >> 11) / float(1 << 53)

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def derive(self, index: int) -> int:
        """A seed for sub-stream `index` (per-game seeds of a batch, agents)."""
        return Rng(self.state ^ seed_state(index + 1)).next64()
