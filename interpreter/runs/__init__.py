"""Runs: playing games headlessly and what that produces.

One game between agents (`play`), many games (`simulate`) over worker
processes (`workers`) streamed into results files (`results_file`), game logs and
their replay (`gamelog`), speed benchmarks (`bench`) and move-generator
counts (`perft`).  Imports `engine`, `agents` and `ruleplay.files`.
"""
