"""Reusable pieces for judging tool-calling agents.

- :mod:`~assay.verifiers.agent.trajectory`: OpenAI-format messages to turns and calls.
- :mod:`~assay.verifiers.agent.calltext`: calls as text (BFCL Python calls, JSON, Hermes).
- :mod:`~assay.verifiers.agent.grounding`: figures and ids of an answer against evidence.
- :mod:`~assay.verifiers.agent.schema`: tool schemas and strict argument checking.
- :mod:`~assay.verifiers.agent.matching`: BFCL-style expected calls, parallel in any order.
- :mod:`~assay.verifiers.agent.canonical`: canonical form and hash of a state.
- :mod:`~assay.verifiers.agent.state`: copy-on-write states and their digests.
- :mod:`~assay.verifiers.agent.facts`: required facts as numbers and words.
- :mod:`~assay.verifiers.agent.environment`: environment base class, ``@tool``, registry.
"""

from assay.verifiers.agent.canonical import Canonicalizer, state_hash
from assay.verifiers.agent.environment import (
    ENV_ENTRY_POINT_GROUP,
    Environment,
    EnvRegistry,
    ToolError,
    UnknownEnvironmentError,
    tool,
)
from assay.verifiers.agent.facts import Fact, check_facts, numbers_in, parse_facts
from assay.verifiers.agent.matching import (
    ExpectedCall,
    Matching,
    match_calls,
    normalise_string,
    parse_expected,
)
from assay.verifiers.agent.schema import ToolSpec, check_arguments, parse_tools
from assay.verifiers.agent.state import CowCollection, StateBase, state_digest
from assay.verifiers.agent.trajectory import (
    ToolCall,
    Trajectory,
    TrajectoryError,
    Turn,
    parse_trajectory,
)

__all__ = [
    "ENV_ENTRY_POINT_GROUP",
    "Canonicalizer",
    "CowCollection",
    "EnvRegistry",
    "Environment",
    "ExpectedCall",
    "Fact",
    "Matching",
    "StateBase",
    "ToolCall",
    "ToolError",
    "ToolSpec",
    "Trajectory",
    "TrajectoryError",
    "Turn",
    "UnknownEnvironmentError",
    "check_arguments",
    "check_facts",
    "match_calls",
    "normalise_string",
    "numbers_in",
    "parse_expected",
    "parse_facts",
    "parse_tools",
    "parse_trajectory",
    "state_digest",
    "state_hash",
    "tool",
]
