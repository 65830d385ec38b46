"""``render_mode="rgb_array"``: the board picture in every env form, recorders and SB3's make_vec_env."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from PIL import Image

import hoity_env
from hoity_env.engine.config import ORIGINAL, STANDARD
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.original import OriginalState
from hoity_env.engine.state import GameState
from hoity_env.environment.render.standard import DRAWN_RULESETS, FRAME_SHAPE, board_image, check_drawable
from hoity_env.wrappers import SingleAgentEnv
from hoity_env.wrappers.frames import FrameRecorder
from tests.helpers import RULESETS


def _play(env: Any, seed: int, steps: int | None = None) -> None:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    k = 0
    while env.agents and (steps is None or k < steps):
        obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
        k += 1


@pytest.mark.parametrize("rules", RULESETS)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_parallel_frames_have_one_shape_and_follow_the_game(num_players: int, rules: str) -> None:
    env = hoity_env.parallel_env(num_players=num_players, rules=rules, render_mode="rgb_array")
    blank = env.render()
    assert isinstance(blank, np.ndarray) and blank.shape == FRAME_SHAPE and blank.dtype == np.uint8
    env.reset(seed=num_players)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.shape == FRAME_SHAPE and first.dtype == np.uint8
    assert first.std() > 10  # something is drawn
    _play(env, num_players, steps=6)
    later = env.render()
    assert isinstance(later, np.ndarray) and later.shape == FRAME_SHAPE
    assert not np.array_equal(first, later)
    _play(env, num_players)  # to the end: the final picture draws too
    assert env.render().shape == FRAME_SHAPE  # type: ignore[union-attr]


def _face_down(state: GameState) -> list[int]:
    """The state's face-down cards (edits change it): the draw pile, or the original's fuller pile."""
    if isinstance(state, OriginalState):
        return max(state.piles, key=len)
    return state.draw_pile


def _hidden_twins(state: GameState, rng: np.random.Generator) -> list[GameState]:
    """Copies of ``state`` that differ from it in hidden cards only (every card stays in one place)."""
    n = state.num_players
    hidden = [[c for c in state.hands[p] if c not in state.public[p]] for p in range(n)]
    holders = [p for p in range(n) if hidden[p]]
    twins = []
    if len(holders) >= 2:  # two hidden cards change hands
        p, q = rng.choice(holders, size=2, replace=False)
        twin = state.clone()
        a, b = hidden[p][-1], hidden[q][0]
        twin.take_card(p, a)
        twin.take_card(q, b)
        twin.give_card(p, b, public=False)
        twin.give_card(q, a, public=False)
        twins.append(twin)
    if holders and _face_down(state):  # a hidden card changes places with a face-down one
        p = holders[0]
        twin = state.clone()
        pile = _face_down(twin)
        a, k = hidden[p][0], int(rng.integers(len(pile)))
        twin.take_card(p, a)
        twin.give_card(p, pile[k], public=False)
        pile[k] = a
        twins.append(twin)
    if len(_face_down(state)) >= 2:  # the face-down order is hidden too
        twin = state.clone()
        _face_down(twin).reverse()
        twins.append(twin)
    return twins


@pytest.mark.parametrize("rules", RULESETS)
def test_the_picture_shows_public_information_only(rules: str) -> None:
    """Swapping hidden cards (between hands, with the face-down cards, their order) changes no pixel."""
    compared = 0
    for seed in range(4):
        env = hoity_env.parallel_env(num_players=4, rules=rules, render_mode="rgb_array")
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        while env.agents:
            state, events = env.game_state, env.last_events
            if state.round % 3 == 1 or state.round < 2:
                frame = board_image(state, events)
                for twin in _hidden_twins(state, rng):
                    assert twin.comparable() != state.comparable()
                    assert np.array_equal(frame, board_image(twin, events)), (rules, seed, state.round)
                    compared += 1
            obs = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})[0]
    assert compared > 40
    richer = state.clone()
    richer.positions[0] += 1  # public facts do show
    assert not np.array_equal(board_image(state, events), board_image(richer, events))


def test_other_rulesets_are_refused_clearly() -> None:
    other = STANDARD.replace(name="variant")
    object.__setattr__(other, "ruleset", "variant")  # a ruleset the picture does not know
    with pytest.raises(ConfigError, match="draws the standard and original rulesets only, not 'variant'"):
        check_drawable(other)
    check_drawable(STANDARD)
    check_drawable(ORIGINAL)
    assert DRAWN_RULESETS == ("standard", "original")


def test_aec_forms_render_the_same_picture() -> None:
    for make in (hoity_env.env, hoity_env.raw_env):
        aec = make(num_players=3, render_mode="rgb_array")
        aec.reset(seed=4)
        par = hoity_env.parallel_env(num_players=3, render_mode="rgb_array")
        par.reset(seed=4)
        assert np.array_equal(aec.render(), par.render())


@pytest.mark.parametrize("rules", RULESETS)
def test_single_agent_view_through_gymnasium_make_and_its_checker(rules: str) -> None:
    env = gymnasium.make(hoity_env.GYM_ID, rules=rules, render_mode="rgb_array", opponents="random")
    env.reset(seed=0)
    frame = env.render()  # the passive env checker inspects the first frame
    assert isinstance(frame, np.ndarray) and frame.shape == FRAME_SHAPE and frame.dtype == np.uint8
    assert "rgb_array" in SingleAgentEnv.metadata["render_modes"]


def test_sb3_make_vec_env_with_the_registry_id() -> None:
    """Regression: make_vec_env passes render_mode='rgb_array', which used to raise ConfigError."""
    from stable_baselines3.common.env_util import make_vec_env  # the train extra (CI installs it)

    vec = make_vec_env(hoity_env.GYM_ID, n_envs=2, seed=0)
    obs = vec.reset()
    assert obs.shape[0] == 2
    images = vec.get_images()
    assert [i.shape for i in images] == [FRAME_SHAPE, FRAME_SHAPE]
    vec.close()


class _StandInClip:
    """What RecordVideo hands its frames to: moviepy's ImageSequenceClip (kept here, not encoded)."""

    clips: list[list[np.ndarray]] = []  # noqa: RUF012

    def __init__(self, frames: list[np.ndarray], fps: int) -> None:
        self.frames, self.fps = frames, fps
        _StandInClip.clips.append(frames)

    def write_videofile(self, path: str, logger: Any = None) -> None:
        Path(path).write_bytes(b"stand-in video")


def test_gymnasium_record_video_captures_every_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RecordVideo's own capture path on the single-agent view; only moviepy's encoder is stood in.

    RecordVideo imports moviepy when built and encodes with it (a heavy install:
    ffmpeg); with ``pip install moviepy`` the same code writes an .mp4 (README).
    """
    clip_module = types.ModuleType("moviepy.video.io.ImageSequenceClip")
    clip_module.ImageSequenceClip = _StandInClip  # type: ignore[attr-defined]
    for name in ("moviepy", "moviepy.video", "moviepy.video.io"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "moviepy.video.io.ImageSequenceClip", clip_module)
    _StandInClip.clips = []
    env = gymnasium.make(hoity_env.GYM_ID, render_mode="rgb_array", opponents="random", learner_seat=0)
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda e: True)
    env.reset(seed=3)
    steps, done = 0, False
    while not done:
        mask = env.unwrapped.action_masks()
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
        steps, done = steps + 1, term or trunc
    env.close()
    (frames,) = _StandInClip.clips
    assert len(frames) == steps + 1  # the deal and every step
    assert all(f.shape == FRAME_SHAPE and f.dtype == np.uint8 for f in frames)
    assert list((tmp_path / "videos").glob("*.mp4"))


def test_frame_recorder_for_the_parallel_env(tmp_path: Path) -> None:
    rec = FrameRecorder(hoity_env.parallel_env(num_players=3, render_mode="rgb_array"))
    _play(rec, 5)
    steps = 2 * rec.game_state.round  # a decided game ends after an action step
    assert len(rec.frames) == steps + 1
    gif = rec.save(tmp_path / "game.gif", fps=4)
    with Image.open(gif) as img:
        assert img.size == (FRAME_SHAPE[1], FRAME_SHAPE[0]) and img.n_frames > 1
    npy = rec.save(tmp_path / "game.npy")
    assert np.load(npy).shape == (len(rec.frames), *FRAME_SHAPE)
    with pytest.raises(ConfigError, match=r"\.gif or \.npy"):
        rec.save(tmp_path / "game.mp4")
    with pytest.raises(ConfigError, match="rgb_array"):
        FrameRecorder(hoity_env.parallel_env(render_mode="ansi"))
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind


def test_state_type_is_the_engine_state() -> None:
    env = hoity_env.parallel_env(render_mode="rgb_array")
    env.reset(seed=0)
    assert isinstance(env.game_state, GameState) and env.game_seed is not None
