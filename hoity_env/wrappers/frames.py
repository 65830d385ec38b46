"""``FrameRecorder``: record the board picture of every step of a parallel env, save it as a GIF.

Gymnasium's ``RecordVideo`` wraps single-agent envs only (and needs moviepy);
this is the parallel env's counterpart, with no dependency beyond Pillow: it
keeps ``env.render()`` after ``reset`` and after each ``step`` and writes an
animated GIF (or, for ``.npy``, the ``(T, H, W, 3)`` uint8 array) atomically.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from hoity_env.engine.errors import ConfigError
from hoity_env.environment.parallel import HoityParallelEnv
from hoity_env.files import write_atomically

__all__ = ["FrameRecorder"]


class FrameRecorder:
    """Wraps a parallel env built with ``render_mode="rgb_array"``; ``frames`` holds the pictures.

    Every other attribute is the env's, so it plays wherever the env does.  Each
    ``reset`` starts a new recording.
    """

    def __init__(self, env: HoityParallelEnv) -> None:
        if env.render_mode != "rgb_array":
            raise ConfigError(f"FrameRecorder needs render_mode='rgb_array', got {env.render_mode!r}")
        self.env = env
        self.frames: list[np.ndarray] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def _capture(self) -> None:
        frame = self.env.render()
        assert isinstance(frame, np.ndarray)
        self.frames.append(frame)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and start a new recording with the deal's picture."""
        out = self.env.reset(seed=seed, options=options)
        self.frames = []
        self._capture()
        return out

    def step(self, actions: Mapping[str, Any]) -> Any:
        """Step the env and keep the picture after the step."""
        out = self.env.step(actions)
        if out[0]:  # a step after the end returns empty dicts and draws nothing new
            self._capture()
        return out

    def save(self, path: str | Path, fps: float = 2.0) -> Path:
        """Write the frames: an animated GIF (``.gif``) or a NumPy array (``.npy``); return the path."""
        path = Path(path)
        if not self.frames:
            raise ConfigError("no frames recorded: call reset() first")
        if fps <= 0:
            raise ConfigError(f"fps must be positive, got {fps!r}")
        buffer = io.BytesIO()
        if path.suffix == ".npy":
            np.save(buffer, np.stack(self.frames))
        elif path.suffix == ".gif":
            images = [Image.fromarray(f) for f in self.frames]
            images[0].save(
                buffer,
                format="GIF",
                save_all=True,
                append_images=images[1:],
                duration=round(1000 / fps),
                loop=0,
            )
        else:
            raise ConfigError(f"save frames as .gif or .npy, not {path.suffix or 'no suffix'!r}")
        return write_atomically(path, buffer.getvalue())
