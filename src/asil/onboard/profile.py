"""Interface profiles: YAML (or JSON) files validated against the committed JSON Schema.

The schema is ``profile.schema.json`` beside this module; docs/onboarding.md explains every field.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from asil.protocol import AsilError

SCHEMA_PATH = Path(__file__).with_name("profile.schema.json")
PROFILES = Path(__file__).with_name("profiles")


class ProfileError(AsilError):
    code = "bad_profile"


@cache
def profile_schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return data


def schema_errors(profile: Any) -> list[str]:
    """Every place the profile breaks the schema, one sentence each (empty when it is valid)."""
    validator = jsonschema.Draft202012Validator(profile_schema())
    errors = sorted(validator.iter_errors(profile), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'.'.join(map(str, e.absolute_path)) or 'the profile'}: {e.message}" for e in errors]


def read_profile(path: Path) -> dict[str, Any]:
    """The profile at ``path``, validated; ProfileError names the first thing wrong and what is valid."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"The profile {str(path)!r} cannot be read ({exc.strerror}).",
                           hint="Give the path of a YAML interface profile.") from None
    except yaml.YAMLError as exc:
        raise ProfileError(f"The profile {str(path)!r} is not valid YAML ({str(exc).splitlines()[0]}).") from None
    errors = schema_errors(data)
    if errors:
        raise ProfileError(f"The profile {path.name!r} does not follow the interface-profile schema: {errors[0]}.",
                           hint=f"{len(errors)} problem(s); the schema is {SCHEMA_PATH.name}, explained in docs/onboarding.md.")
    assert isinstance(data, dict)
    return data


def profile_digest(profile: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(profile, sort_keys=True).encode()).hexdigest()


def builtin_profile(app: str) -> Path:
    return PROFILES / f"{app}.yaml"
