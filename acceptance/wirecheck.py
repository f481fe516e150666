"""Checks the requests albedo sends against OpenAI's published request schemas.

    python3 acceptance/wirecheck.py < requests.jsonl

The schemas are ``../shared/wire/openai-openapi-requests.json`` beside the
repository (the schemas reachable from ``CreateResponse`` and
``CreateChatCompletionRequest`` in openai/openai-openapi). The acceptance
harness checks every request its fake provider receives; the Go conformance
test of ``adapters/openai`` pipes its requests through this script, one JSON
object ``{"protocol": "responses"|"chat_completions", "request": {...}}`` a
line, and reads back one JSON list of problems a line (empty: valid).

The checker implements the part of JSON Schema / OpenAPI 3.1 the file uses:
``$ref``, ``type`` (and OpenAPI's ``nullable``), ``enum``, ``properties``,
``required``, ``additionalProperties``, ``items``, ``minItems``/``maxItems``,
``minLength``/``maxLength``, ``pattern``, ``minimum``/``maximum``,
``maxProperties``, ``allOf`` and ``anyOf``. Annotations (``description``,
``default``, ``format``, ``discriminator``, ``x-*``) are not assertions.

Written exceptions: where albedo knowingly sends what the schema does not
describe, the request is adjusted before it is checked, and EXCEPTIONS says
why. Nothing else is ever excused.
"""

from __future__ import annotations

import json
from pathlib import Path
import re
import sys

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO.parent / "shared" / "wire" / "openai-openapi-requests.json"

ROOTS = {
    "responses": "CreateResponse",
    "chat_completions": "CreateChatCompletionRequest",
}

EXCEPTIONS = {
    "oneOf checked as anyOf": (
        "The published oneOf branches overlap: a user message is both an "
        "EasyInputMessage and an InputMessage, an assistant message with text "
        "content both a string and a content-part match for some parts. No "
        "request could match exactly one branch, so a value must match at "
        "least one."
    ),
    "unstored items carry no id": (
        "Responses requests are sent with store: false, and the API looks up "
        "any item id it is sent and refuses the request when it stored none "
        "(\"Item with id ... not found\"). albedo therefore strips the ids of "
        "the output items it sends back, while the schema requires id on "
        "output messages (OutputMessage) and reasoning items (ReasoningItem). "
        "A placeholder id is set on such input items that lack one before "
        "checking."
    ),
}


class Checker:
    """Validates request bodies against the schemas in ``path``."""

    def __init__(self, path: Path = SCHEMAS):
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        self.schemas = document["schemas"]
        self.checked = 0

    def check(self, protocol: str, request) -> list[str]:
        """Returns the problems of one request body: empty when it is valid."""
        root = ROOTS.get(protocol)
        if root is None:
            return [f"unknown protocol {protocol!r}"]
        self.checked += 1
        request = _excused(protocol, request)
        return self._validate({"$ref": f"#/components/schemas/{root}"}, request, "$")

    # -- validation -------------------------------------------------------

    def _resolve(self, ref: str):
        prefix = "#/components/schemas/"
        if not ref.startswith(prefix) or ref[len(prefix):] not in self.schemas:
            raise KeyError(f"unresolvable $ref {ref}")
        return self.schemas[ref[len(prefix):]]

    def _validate(self, schema, value, path: str) -> list[str]:
        if schema is True or schema == {}:
            return []
        if schema is False:
            return [f"{path}: no value is allowed here"]
        errors: list[str] = []
        if "$ref" in schema:
            errors += self._validate(self._resolve(schema["$ref"]), value, path)
        if "$recursiveRef" in schema:
            return errors  # only reached by file-search filters, never sent
        if value is None and schema.get("nullable"):
            return errors
        kind = schema.get("type")
        if kind is not None and not _is_type(value, kind):
            return errors + [f"{path}: {_describe(value)} is not {kind}"]
        if "enum" in schema and value not in schema["enum"]:
            errors.append(f"{path}: {json.dumps(value)[:80]} is not one of {schema['enum']}")
        if "const" in schema and value != schema["const"]:
            errors.append(f"{path}: {json.dumps(value)[:80]} is not {schema['const']!r}")
        if isinstance(value, dict):
            errors += self._object(schema, value, path)
        if isinstance(value, list):
            errors += self._array(schema, value, path)
        if isinstance(value, str):
            errors += _string(schema, value, path)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                errors.append(f"{path}: {value} is below {schema['minimum']}")
            if "maximum" in schema and value > schema["maximum"]:
                errors.append(f"{path}: {value} is above {schema['maximum']}")
        for sub in schema.get("allOf", ()):
            errors += self._validate(sub, value, path)
        for key in ("anyOf", "oneOf"):  # oneOf as anyOf: see EXCEPTIONS
            if key in schema:
                errors += self._any(schema[key], value, path)
        return errors

    def _object(self, schema, value: dict, path: str) -> list[str]:
        errors = []
        properties = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in value:
                errors.append(f"{path}: missing required {name!r}")
        extra = schema.get("additionalProperties", True)
        for name, member in value.items():
            if name in properties:
                errors += self._validate(properties[name], member, f"{path}.{name}")
            elif extra is False:
                errors.append(f"{path}: {name!r} is not a known field")
            elif isinstance(extra, dict):
                errors += self._validate(extra, member, f"{path}.{name}")
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            errors.append(f"{path}: more than {schema['maxProperties']} members")
        if "propertyNames" in schema:
            for name in value:
                errors += self._validate(schema["propertyNames"], name, f"{path} key {name!r}")
        return errors

    def _array(self, schema, value: list, path: str) -> list[str]:
        errors = []
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                errors += self._validate(schema["items"], item, f"{path}[{i}]")
        return errors

    def _any(self, branches, value, path: str) -> list[str]:
        best = None
        for branch in branches:
            errors = self._validate(branch, value, path)
            if not errors:
                return []
            # The branch whose "type" or "role" fits explains best, then the
            # one with the fewest problems.
            misfit = any(e.startswith((f"{path}.type:", f"{path}.role:")) or e.startswith(f"{path}: {_describe(value)} is not") for e in errors)
            rank = (misfit, len(errors))
            if best is None or rank < best[0]:
                best = (rank, errors)
        return [f"{path}: matches none of {len(branches)} choices; closest: " + "; ".join(best[1][:3])]


def _is_type(value, kind) -> bool:
    if isinstance(kind, list):
        return any(_is_type(value, k) for k in kind)
    return {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)
        or isinstance(v, float) and v.is_integer(),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "null": lambda v: v is None,
    }[kind](value)


def _string(schema, value: str, path: str) -> list[str]:
    errors = []
    if "minLength" in schema and len(value) < schema["minLength"]:
        errors.append(f"{path}: shorter than {schema['minLength']}")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(f"{path}: longer than {schema['maxLength']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value[:40]!r} does not match {schema['pattern']}")
    return errors


def _describe(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _excused(protocol: str, request):
    """Applies the written exceptions to a copy of ``request``."""
    if protocol != "responses" or not isinstance(request, dict):
        return request
    request = json.loads(json.dumps(request))
    if request.get("store") is False and isinstance(request.get("input"), list):
        for item in request["input"]:
            if (
                isinstance(item, dict)
                and "id" not in item
                and (item.get("type") == "message" and item.get("role") == "assistant" or item.get("type") == "reasoning")
            ):
                item["id"] = "placeholder"  # see EXCEPTIONS: unstored items carry no id
    return request


def main() -> int:
    checker = Checker()
    for line in sys.stdin:
        if not line.strip():
            continue
        entry = json.loads(line)
        print(json.dumps(checker.check(entry["protocol"], entry["request"])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
