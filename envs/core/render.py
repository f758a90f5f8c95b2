"""Showing RGB frames in a pygame window (``render_mode="human"``).

pygame is imported lazily, only when a human window is first needed, so the core install
(and every other render mode) works without it. Set ``SDL_VIDEODRIVER=dummy`` to run
"human" rendering headless (the tests do).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class HumanWindow:
    """A pygame window that shows one RGB frame per ``show`` call."""

    def __init__(self, title: str, fps: float) -> None:
        self.title = title
        self.fps = fps
        self._screen: Any = None
        self._clock: Any = None
        self._pygame: Any = None

    def show(self, frame: np.ndarray) -> None:
        """Blit ``frame`` (H, W, 3 uint8) and keep the window responsive."""
        if self._pygame is None:
            try:
                import pygame
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise ImportError(
                    "render_mode='human' needs pygame: pip install 'tabletop-arena[render]'"
                ) from exc
            pygame.init()
            pygame.display.set_caption(self.title)
            self._pygame = pygame
            self._clock = pygame.time.Clock()
        pygame = self._pygame
        height, width = frame.shape[:2]
        if self._screen is None or self._screen.get_size() != (width, height):
            self._screen = pygame.display.set_mode((width, height))
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        """Close the window (safe to call when none was opened)."""
        if self._pygame is not None:
            self._pygame.display.quit()
            self._pygame.quit()
            self._pygame = None
            self._screen = None
