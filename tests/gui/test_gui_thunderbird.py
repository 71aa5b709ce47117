"""The GUI path against a visible Thunderbird in a private Xvfb, on the adapter's Dovecot and SMTP sink:
recorded demonstrations (real keys and clicks: Ctrl+N, typing, Ctrl+Enter; a click on a message and its
one-key command; Ctrl+S saving a draft) replayed through GuiEnv end in evaluator success, with the raw validator agreeing on
what the sync exported (the Maildir Dovecot holds, the sink's delivered mail); the untouched program fails."""

from __future__ import annotations

import pytest

from tests.gui.demos import demos_of, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = demos_of("thunderbird")


def test_demonstrations_cover_thunderbird_at_least_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and "Dovecot's Maildir was exported" in note, note


def test_the_untouched_program_fails_its_task() -> None:
    note = untouched("thunderbird-send-outage-followup").sync_note
    assert note is not None and "holds 0 message(s)" in note
