"""The reply checked against the calls: claims of actions the turn's calls did not do.

``claims`` finds what a reply says it did, ``calls`` reads what the turn's audit trail says was
done, ``readers`` matches one against the other by family, and ``verify`` records and words the
result. See docs/turn.md, "Lines under a reply".
"""

from wisp.agent.verification.verify import Verification, verification_line, verify

__all__ = ["Verification", "verification_line", "verify"]
