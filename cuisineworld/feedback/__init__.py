"""Words for the engine's structured reasons, for the dispatcher's prompt and for people.

All English about refusals lives here, one template per reason code, so the game rules stay
free of wording and a change of tone is a change in one table.

Example::

    from cuisineworld.feedback import describe
    describe(Reason(Code.LOCATION_BUSY, agent=0, location="pot0"))
    # 'agent0 cannot use pot0: it is still cooking.'
"""

from cuisineworld.feedback.words import describe, outcome_lines, step_lines

__all__ = ["describe", "outcome_lines", "step_lines"]
