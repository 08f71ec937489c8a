"""Where a server's face files what waits on the person (docs/policy.md, "Approvals out of band"):
one place that reads the ``approval.*`` settings for the desk (commands, questions, facts to
keep), so ``wisp mcp`` and ``wisp acp`` say only what differs (the thread, the client, the
face's own dialog, how long a question may be held)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from wisp.config.sections import Approval

if TYPE_CHECKING:
    from wisp.audit.kinds import Details
    from wisp.desk.approval import Alongside, OutOfBandApprover
    from wisp.desk.fact import Apply, FactKeeper
    from wisp.desk.question import OutOfBandAsker, QuestionAlongside
    from wisp.desk.wait import Desk, Notify

D = TypeVar("D", bound="Desk[Any, Any, Any]")


class OutOfBand(msgspec.Struct, frozen=True):
    """One thread's (or session's) place at the desk: its requests filed under ``home``, recorded
    on its log, named for it and its client, as ``settings`` say."""

    home: Path
    record: Callable[[Details], object]
    thread: str | None
    client: str | None
    settings: Approval
    notify: Notify | None = None
    """The face's notifier, told of each request still waiting after
    ``approval.bannerDelaySeconds``."""

    def approver(self, alongside: Alongside | None) -> OutOfBandApprover:
        """Commands' approvals, raced against ``alongside`` (the face's dialog) when there is
        one."""
        from wisp.desk.approval import OutOfBandApprover

        return self._told(OutOfBandApprover(self.home, alongside=alongside, **self._filing()))

    def asker(
        self, alongside: QuestionAlongside | None, *, hold: float | None = None
    ) -> OutOfBandAsker:
        """The model's questions, each waiting at most ``approval.timeoutSeconds`` and held in
        its call ``hold`` seconds before it is parked (None: the desk's default hold)."""
        from wisp.desk.question import OutOfBandAsker

        return self._told(
            OutOfBandAsker(
                self.home,
                alongside=alongside,
                wait_limit=self.wait_limit,
                hold=hold,
                **self._filing(),
            )
        )

    def keeper(self, apply: Apply) -> FactKeeper:
        """Facts proposed as permanent, each waiting for the person's keep or drop, the answer
        applied with ``apply``; no time limit and no dialog."""
        from wisp.desk.fact import FactKeeper

        return self._told(FactKeeper(self.home, apply=apply, **self._filing()))

    def _told(self, desk: D) -> D:
        """``desk``, posting its waiting notices through the face's notifier."""
        desk.notify = self.notify
        return desk

    def _filing(self) -> dict[str, Any]:
        """What every kind's desk is told of where and how it files."""
        return {
            "record": self.record,
            "thread": self.thread,
            "client": self.client,
            "out_of_band": self.settings.out_of_band,
            "banner_delay": float(self.settings.banner_delay_seconds),
        }

    @property
    def wait_limit(self) -> float | None:
        """``approval.timeoutSeconds``; None when it is 0 (no limit)."""
        return float(self.settings.timeout_seconds) or None
