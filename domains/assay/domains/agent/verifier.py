"""The agent verifier: tool-calling trajectories judged on calls, outcome and steps."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from assay.domains.agent.bfcl_multi_turn import is_multi_turn_reference, verify_multi_turn
from assay.domains.agent.replay import replay
from assay.domains.agent.scoring import judge
from assay.domains.agent.task import parse_task
from assay.verifiers.agent.trajectory import (
    TrajectoryError,
    parse_trajectory,
    prompt_texts,
    response_turn,
)
from assay.verifiers.reading import prepare

from assay.blame import response_owned
from assay.types import Check, Record, Verdict
from assay.verifier import Verifier

PROJECT_ROOT = Path(__file__).resolve().parents[4]


class AgentVerifier(Verifier):
    """Scores an OpenAI-format tool-calling trajectory (``steps``) against an agent task.

    The reference holds the tools (or an environment that provides them) and one or more
    outcomes: expected calls (BFCL style, parallel calls in any order), a goal state reached by
    replaying the calls on a fresh environment, required facts in the final answer (the
    ``response``, else the last assistant text), and a gold step count. A BFCL multi-turn task
    (``involved_classes``, ``initial_config``, per-turn ``ground_truth``) is replayed on BFCL's
    own environments and judged turn by turn as BFCL does
    (:mod:`assay.domains.agent.bfcl_multi_turn`). See docs/agent.md.

    Calls come as OpenAI ``tool_calls``, Hermes/Qwen ``<tool_call>`` text, or (a response
    without assistant turns, e.g. a BFCL row's ``result``) Python-call text or a JSON list of
    calls. Verdicts: ``unparsable`` for an unreadable trajectory (unknown role, missing tool
    result, a tool call without a name, call text no form reads...), ``incorrect`` (score 0)
    when the goal state is missed, a tool is called though none fits, an exact call set is
    missed (the default without an environment), the final answer states a figure or id no
    tool result supports, or no outcome is achieved; otherwise ``outcome x efficiency x loops
    x recovery`` (1 is ``correct``, below is ``partial``). One step result per assistant turn
    carries ``valid_call``, ``useful_call`` and ``error_recovered``.

    Example:
        >>> record = Record("1", "agent", "Cancelled; refund $50.", {
        ...     "env": "retail", "facts": [50],
        ...     "goal": {"calls": [{"name": "cancel_order", "arguments":
        ...              {"order_id": "W1001", "reason": "no longer needed"}}]}},
        ...     steps=({"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
        ...             "type": "function", "function": {"name": "cancel_order", "arguments":
        ...             '{"order_id": "W1001", "reason": "no longer needed"}'}}]},
        ...            {"role": "tool", "tool_call_id": "c1", "content": "ok"}))
        >>> verdict = AgentVerifier().verify(record)
        >>> verdict.status, verdict.score, [s.evidence["useful_call"] for s in verdict.steps]
        (<Status.CORRECT: 'correct'>, 1.0, [True])
    """

    name: ClassVar[str] = "agent"
    version: ClassVar[str] = "2.6.0"
    aliases: ClassVar[tuple[str, ...]] = ("tool_calling", "bfcl", "function_calling", "tool_use")
    reads_transcript_calls: ClassVar[bool] = True
    data_sources: ClassVar[tuple[str, ...]] = ("bfcl*", "gorilla*", "tau_bench*", "tau-bench*")
    default_timeout_s: ClassVar[float] = 10.0
    fixtures: ClassVar[Path | None] = PROJECT_ROOT / "fixtures" / "agent" / "cases.jsonl"

    def verify(self, record: Record) -> Verdict:
        """Score one trajectory; raises :class:`MalformedTaskError` for an unusable reference.

        Reading the task is the verifier's work; everything after it (reading, replaying and
        judging the trajectory) is the response's (:class:`assay.blame.response_owned`): a
        trajectory that overruns the item's budget, fills memory, or carries values too large
        to compare is ``incorrect`` with a failed ``too_costly`` check, never a masked
        ``timeout`` or ``error``.
        """
        if is_multi_turn_reference(record.reference):
            return verify_multi_turn(record)
        task = parse_task(record.reference)
        with response_owned("replaying the trajectory"):
            try:
                trajectory = parse_trajectory(list(record.steps))
                if not trajectory.turns and record.response.strip():
                    # no assistant turn: the response is the turn (calls or text)
                    trajectory = response_turn(record.response, trajectory.context)
                    answer = trajectory.final_text
                else:
                    answer = record.response if record.response.strip() else trajectory.final_text
            except TrajectoryError as exc:
                check = Check("trajectory", False, 0.0, str(exc), {"kind": exc.kind})
                return Verdict.unparsable(str(exc), (check,))
            if not trajectory.turns and not answer.strip():
                return Verdict.unparsable("no assistant turn and no response")
            context = prompt_texts(record.prompt)
            answer = prepare(
                answer
            )  # special tokens removed, the thinking before the answer dropped
            return judge(task, trajectory, replay(task, trajectory), answer, context)
