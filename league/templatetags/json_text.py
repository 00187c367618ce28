"""``{{ value|as_json }}``: a protocol value (an action, an option) shown as the JSON the bot sent or will send,
not as Python's repr (``{"card": 1}``, not ``{'card': 1}``). The template's autoescape still applies."""

from __future__ import annotations

import json
from typing import Any

from django import template

register = template.Library()


@register.filter
def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
