"""The Tool contract: a name, a description, a pydantic input model and `run`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from stateact.kernel.images import media_type
from stateact.kernel.messages import ImageBlock, TextBlock, ToolSpec, ToolUseBlock
from stateact.kernel.tools.schema import compact_schema


@dataclass(frozen=True)
class LoopEnding:
    """The typed account a terminal tool ends its loop with, read by the role that ran the loop: a
    subagent's claim, the gate's verdict, the finish tool's claim. Each kind is a frozen dataclass
    deriving from this one; readers take it with `LoopOutcome.ending_as(kind)`."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns. `terminal` asks the loop to stop after this result, with `ending` (if any) as
    the loop's typed ending; `setback` says the call found the work unfinished (a claim its check
    refuted), so a call later in the same turn that reports success is not run before the model has
    read this."""

    text: str = ""
    images: tuple[bytes, ...] = ()
    is_error: bool = False
    terminal: bool = False
    ending: LoopEnding | None = None
    setback: bool = False

    @classmethod
    def error(cls, text: str) -> ToolResult:
        return cls(text=text, is_error=True)

    def blocks(self) -> list[TextBlock | ImageBlock]:
        out: list[TextBlock | ImageBlock] = [TextBlock(text=self.text or "(no output)")]
        out.extend(ImageBlock.from_bytes(img, media_type(img)) for img in self.images)
        return out


InputT = TypeVar("InputT", bound=BaseModel)


class Tool(ABC, Generic[InputT]):
    """Base class of every tool. Subclasses set `name`, `description`, `Input` and implement `run`."""

    name: ClassVar[str]
    description: ClassVar[str]
    Input: ClassVar[type[BaseModel]]
    reports_success: ClassVar[bool] = False
    """Whether the tool ends the loop saying the work is done (`finish`, a subagent's `done`): the loop
    does not run it after a call of the same turn that failed or met a setback."""

    def spec(self) -> ToolSpec:
        schema = compact_schema(self.Input.model_json_schema())
        return ToolSpec(name=self.name, description=self.description, input_schema=schema)

    def invoke(self, call: ToolUseBlock) -> ToolResult:
        """Validate the call's arguments and run; bad arguments become an error result."""
        if call.raw_arguments is not None:
            return ToolResult.error(
                f"The arguments of `{self.name}` were not valid JSON: {call.raw_arguments[:500]!r}. "
                "Send a JSON object matching the tool's schema."
            )
        try:
            params = self.Input.model_validate(call.input)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(input)'}: {e['msg']}" for e in exc.errors()
            )
            return ToolResult.error(f"Invalid arguments for `{self.name}`: {problems}")
        return self.run(params)  # type: ignore[arg-type]

    @abstractmethod
    def run(self, params: InputT) -> ToolResult: ...

    def close(self) -> None:
        """Release resources; called once when the run ends."""
