"""A one-person calendar: events on dates, no overlaps, attendees as a set.

Times are ``HH:MM`` (24 h) within one day; dates are ``YYYY-MM-DD``; durations are minutes.
"""

from __future__ import annotations

import re

from assay.verifiers.agent.environment import Environment, ToolError, tool

from assay.types import JSON

_DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
_TIME = {"type": "string", "pattern": r"^\d{2}:\d{2}$"}
_DURATION = {"type": "integer", "minimum": 5, "maximum": 600}


def _minutes(time: str) -> int:
    match = re.fullmatch(r"(\d{2}):(\d{2})", time)
    if match is None or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ToolError(f"{time!r} is not a time of day (HH:MM)")
    return int(match.group(1)) * 60 + int(match.group(2))


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class CalendarEnv(Environment):
    """Events that may not overlap; attendees are compared as a set, and events as a set of
    entries: the ids the calendar hands out (``E4``, ``E5``) follow the order of the calls, so
    two events created in either order are one state."""

    name = "calendar"
    version = "2"
    unordered = ("events.*.attendees",)
    keyless = frozenset({"events"})

    @classmethod
    def initial_state(cls) -> dict[str, JSON]:
        return {
            "events": {
                "E1": {"title": "Standup", "date": "2025-03-10", "start": "09:00",
                       "duration": 15, "attendees": ["team@example.com"]},
                "E2": {"title": "Design review", "date": "2025-03-10", "start": "13:00",
                       "duration": 60, "attendees": ["bo@example.com", "cy@example.com"]},
                "E3": {"title": "Dentist", "date": "2025-03-11", "start": "10:30",
                       "duration": 45, "attendees": []},
            },
            "next_event": 4,
        }  # fmt: skip

    def _event(self, event_id: str) -> dict[str, JSON]:
        event: dict[str, JSON] | None = self.state["events"].get(event_id)
        if event is None:
            raise ToolError(f"event {event_id!r} not found")
        return event

    def _clash(self, date: str, start: int, duration: int, ignore: str | None = None) -> None:
        for event_id, event in self.state["events"].items():
            if event_id == ignore or event["date"] != date:
                continue
            begin = _minutes(event["start"])
            if start < begin + event["duration"] and begin < start + duration:
                raise ToolError(f"overlaps {event_id} ({event['title']} at {event['start']})")
        if start + duration > 24 * 60:
            raise ToolError("the event would run past midnight")

    @tool("List the events of a date, by start time.", {"date": _DATE}, ["date"])
    def list_events(self, date: str) -> JSON:
        found = [{"event_id": k, **v} for k, v in self.state["events"].items() if v["date"] == date]
        return sorted(found, key=lambda e: e["start"])

    @tool("Create an event; it may not overlap another.",
          {"title": {"type": "string", "minLength": 1}, "date": _DATE, "start": _TIME,
           "duration_minutes": _DURATION,
           "attendees": {"type": "array", "items": {"type": "string"}}},
          ["title", "date", "start", "duration_minutes"], mutates=True)  # fmt: skip
    def create_event(
        self, title: str, date: str, start: str, duration_minutes: int,
        attendees: list[str] | None = None,
    ) -> JSON:  # fmt: skip
        self._clash(date, _minutes(start), duration_minutes)
        event_id = f"E{self.state['next_event']}"
        self.state["next_event"] += 1
        self.state["events"][event_id] = {
            "title": title, "date": date, "start": start, "duration": duration_minutes,
            "attendees": sorted(set(attendees or [])),
        }  # fmt: skip
        return {"event_id": event_id}

    @tool("Cancel an event.", {"event_id": {"type": "string"}}, ["event_id"], mutates=True)
    def cancel_event(self, event_id: str) -> JSON:
        self._event(event_id)
        del self.state["events"][event_id]
        return {"event_id": event_id, "cancelled": True}

    @tool("Move an event to another date and start time.",
          {"event_id": {"type": "string"}, "date": _DATE, "start": _TIME},
          ["event_id", "date", "start"], mutates=True)  # fmt: skip
    def reschedule_event(self, event_id: str, date: str, start: str) -> JSON:
        event = self._event(event_id)
        self._clash(date, _minutes(start), event["duration"], ignore=event_id)
        event.update(date=date, start=start)
        return {"event_id": event_id, "date": date, "start": start}

    @tool("Invite someone to an event.",
          {"event_id": {"type": "string"}, "email": {"type": "string", "pattern": "@"}},
          ["event_id", "email"], mutates=True)  # fmt: skip
    def add_attendee(self, event_id: str, email: str) -> JSON:
        event = self._event(event_id)
        if email in event["attendees"]:
            raise ToolError(f"{email} is already invited to {event_id}")
        event["attendees"].append(email)
        return {"event_id": event_id, "attendees": sorted(event["attendees"])}

    @tool(
        "The earliest free slot of a length on a date between 09:00 and 17:00.",
        {"date": _DATE, "duration_minutes": _DURATION},
        ["date", "duration_minutes"],
    )
    def find_free_slot(self, date: str, duration_minutes: int) -> JSON:
        busy = sorted(
            (_minutes(e["start"]), _minutes(e["start"]) + e["duration"])
            for e in self.state["events"].values() if e["date"] == date
        )  # fmt: skip
        start = 9 * 60
        for begin, end in busy:
            if begin - start >= duration_minutes:
                break
            start = max(start, end)
        if start + duration_minutes > 17 * 60:
            raise ToolError(f"no free {duration_minutes}-minute slot on {date}")
        return {"date": date, "start": _clock(start)}
