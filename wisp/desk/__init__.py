"""The desk: every request that waits on a person, whatever it asks (docs/design.md, "A request
that waits on a person").

A face whose caller must never answer for the person (``wisp mcp``, ``wisp acp``) files each
request under ``WISP_HOME/pending`` and races it against its own dialog; the person answers with
``wisp approvals`` or ``wisp questions``, in wisp-tui, or in that dialog; the first answer
settles the request, once, and the other way is withdrawn. One channel (``channel.py``: the
files, their binding, the sweep), one wait (``wait.py``: filing, the race, the waiting notice,
refusing an answer that does not fit, settling, withdrawing, and parking for a kind that opts
in), one answering path (``answering.py``: what ``wisp approvals``, ``wisp questions`` and the
chat's relay to wisp-tui share) serve every kind of request.

A kind (``kind.py``) says only what differs: its name and nouns (which name its files,
``<id>.request.json`` and ``<id>.answer.json`` for an approval), its record's fields and the
fields its binding covers, how it is shown (a listing, the waiting notice, a dialog's lines), how
an answer is checked and applied, and which audit events it records. Three kinds exist:
``approval.py`` (a command to approve: ``approval.*``), ``question.py`` (the model's question:
``inquiry.*``; it opts into parking past its call's hold) and ``fact.py`` (a fact to keep for
good: ``approval.*`` with ``kind: fact``; it opts into being handed over, outliving its wait).

To add a kind, write one module beside those: its record, a
``Filed`` Struct adding its own fields and naming ``binding_fields``; its filed answer, a Struct
with ``id``, ``via`` and ``binding``; a ``Kind`` subclass with its ``name``, ``noun``,
``answer_noun`` and ``refused_words`` and the methods that check, show and record it; one instance
of it; and a ``Desk`` subclass whose ``ask`` builds the record (``Desk.stamp`` gives the fields
every record has) and calls ``Desk.wait``, as ``OutOfBandApprover`` does. For the terminal, a
command module that hands the kind to ``wisp.cli.answering.terminal`` (as
``wisp/cli/answering/approvals.py`` does). The channel, the wait and the answering path take the
kind as it is: nothing in them changes.

This module imports nothing, so importing one part of the desk loads no other.
"""
