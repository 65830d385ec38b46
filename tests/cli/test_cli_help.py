"""Every flag of every command line has a one-line help with its choices or syntax (docs/design.md §8)."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from collections.abc import Callable
from types import ModuleType

import pytest

from hoity_env.cli.eval import COMMANDS, build_parser
from hoity_env.environment.rewards import REWARD_MODES
from tests.helpers import ROOT

SCRIPTS = [
    "training/train_ppo.py",
    "training/selfplay.py",
    "examples/random_game.py",
    "examples/zoo_baseline.py",
    "benchmarks/bench_env.py",
    "benchmarks/bench_eval.py",
    "benchmarks/profile_training.py",
    "benchmarks/bench_learner.py",
    "benchmarks/bench_best_response.py",
    "benchmarks/bench_harness_engines.py",
    "benchmarks/learner_settings.py",
    "benchmarks/viewer_size.py",
]


class _Captured(Exception):
    """Raised instead of parsing, carrying the parser a script built."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__(parser.prog)
        self.parser = parser


def _load(relative: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    path = ROOT / relative
    monkeypatch.syspath_prepend(str(path.parent))  # the recipes import their neighbour modules
    spec = importlib.util.spec_from_file_location(f"cli_help_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _script_parser(relative: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The parser a script's ``main`` builds, caught at its ``parse_args`` call (nothing runs)."""

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Captured(self)

    main: Callable[..., object] = _load(relative, monkeypatch).main
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(_Captured) as caught:
        main([]) if main.__code__.co_argcount else main()
    return caught.value.parser


def _flags(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each flag's help, with the "(default: ...)" part removed."""
    return {
        action.option_strings[-1]: re.sub(r"\(default[: ][^)]*\)", "", action.help or "").strip()
        for action in parser._actions
        if action.option_strings and not isinstance(action, argparse._HelpAction)
    }


def _assert_every_flag_helped(parser: argparse.ArgumentParser) -> None:
    flags = _flags(parser)
    assert flags, parser.prog
    bare = [flag for flag, text in flags.items() if len(text.split()) < 2]
    assert bare == [], f"{parser.prog}: flags without a help text: {bare}"


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_flag_has_a_help_text(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_every_flag_helped(_script_parser(script, monkeypatch))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_hoity_eval_flag_has_a_help_text(command: str) -> None:
    parser = build_parser(command)
    _assert_every_flag_helped(parser)
    if command == "meta":  # takes a population manifest, not a list of agent specs
        return
    flags = _flags(parser)
    specs = {"evaluate": "--agents", "ladder": "--agents", "exploit": "--pool"}.get(command, "--pool")
    assert "comma-separated" in flags[specs]
    assert "ppo:PATH" in flags[specs]


@pytest.mark.parametrize("script", ["training/train_ppo.py", "training/selfplay.py"])
def test_recipe_help_shows_choices_and_syntax(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    flags = _flags(_script_parser(script, monkeypatch))
    assert all(mode in flags["--reward"] for mode in REWARD_MODES)
    assert "subproc" in flags["--vec-env"] and "dummy" in flags["--vec-env"]
    specs = flags["--opponents" if "--opponents" in flags else "--zoo"]
    assert "comma-separated" in specs and "ppo:PATH" in specs and "zoo" in specs


def test_the_check_sees_a_bare_flag() -> None:
    # Guards the tests above: a flag that shows only its default is caught.
    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("--good", default=1, help="a useful flag (default: 1)")
    parser.add_argument("--bare", default=2, help="(default: 2)")
    with pytest.raises(AssertionError, match="--bare"):
        _assert_every_flag_helped(parser)


def test_every_hoity_play_hoity_replay_hoity_serve_and_hoity_export_flag_has_a_help_text() -> None:
    from hoity_env.cli.export import build_parser as export_parser
    from hoity_env.cli.play import build_parser as play_parser
    from hoity_env.cli.replay import build_parser as replay_parser
    from hoity_env.cli.serve import build_parser as serve_parser

    play = _flags(play_parser())
    _assert_every_flag_helped(play_parser())
    _assert_every_flag_helped(replay_parser())
    _assert_every_flag_helped(serve_parser())
    _assert_every_flag_helped(export_parser())
    assert "comma-separated" in _flags(serve_parser())["--agents"]
    assert "comma-separated" in play["--opponents"] and "ppo:PATH" in play["--opponents"]
    assert "--out" in _flags(build_parser("evaluate"))["--save-replays"]
