"""The base of every error ruleplay raises on purpose: bad rulesets, bad moves, states and logs, faults of rules.

It lives with the language, the package's lowest layer, so that the errors
raised while a ruleset loads (`RulesetError`) and while its code runs
(`RuleRuntimeError`) share it with the engine's: `except RuleplayError`
catches whatever ruleplay reports, and nothing else.
"""

from __future__ import annotations


class RuleplayError(Exception):
    """Base of the errors ruleplay raises; `code` is the stable diagnostic code, `message` the text."""

    code = "RP600"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
