"""Exceptions raised by mptlab (the compiled module raises these classes)."""

from __future__ import annotations

from typing import Optional


class MptlabError(Exception):
    """Base class of mptlab's errors."""


class ScenarioError(MptlabError, ValueError):
    """Invalid scenario, sweep, ``set`` override or output directory.

    ``file``, ``line``, ``column`` (1-based, None when unknown), ``key`` (dotted,
    None when the problem is not about one key) and ``message`` (what was
    expected and found) locate it; ``str(err)`` is the CLI's message.
    """

    def __init__(self, text: str, *, file: str = "", line: Optional[int] = None,
                 column: Optional[int] = None, key: Optional[str] = None,
                 message: Optional[str] = None) -> None:
        super().__init__(text)
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message if message is not None else text


class SimulationError(MptlabError, RuntimeError):
    """A simulation run failed, or results could not be written or read."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.message = text


class UnfinishedWarning(UserWarning):
    """Some transfers (files, web pages) did not finish or some messages were
    not delivered before their run ended: completion times and message
    delays cover the completed ones only. ``unfinished`` is the result's
    ``summary.json`` object of that name (counts, runs or points)."""

    def __init__(self, text: str, unfinished: Optional[dict] = None) -> None:
        super().__init__(text)
        self.unfinished = unfinished or {}
