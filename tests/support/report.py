"""Summaries that tests hand to the end of the run (printed by the root conftest's terminal
summary), so a report such as builtin coverage shows without posing as a warning."""

SUMMARIES: list[str] = []


def report_summary(text: str) -> None:
    SUMMARIES.append(text)
