"""Diagnostics print on any UTF-8 stream, whatever the text they carry."""

from __future__ import annotations

import os

import pytest

from ruleplay import load_game
from ruleplay.dsl.diagnostics import Diagnostic, RulesetError, printable


def test_a_lone_surrogate_in_a_diagnostic_prints_as_its_escape():
    d = Diagnostic("RP002", "bad \udcff here", "dir/r\udcff.yaml", 2, 3, hint="h\ud800", source_line="ab\udc80cd")
    text = d.format()
    text.encode("utf-8")  # a surrogate made this raise, in the middle of reporting another error
    assert text.splitlines()[0] == "dir/r\\udcff.yaml:2:3: error RP002: bad \\udcff here"
    assert "  hint: h\\ud800" in text and "ab\\udc80cd" in text
    str(RulesetError([d])).encode("utf-8")
    assert printable("plain é 😀") == "plain é 😀"


def test_a_ruleset_whose_file_name_is_not_utf8_reports_its_error(tmp_path):
    name = os.path.join(os.fsencode(tmp_path), b"bad\xff.yaml")
    with open(name, "wb") as out:
        out.write(b"ruleplay: 1\ngame: x\nplayers: [\n")
    with pytest.raises(RulesetError) as err:
        load_game(os.fsdecode(name))
    shown = err.value.format()
    shown.encode("utf-8")
    assert "bad\\udcff.yaml:" in shown and "RP002" in shown
