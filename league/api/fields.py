"""Serializer fields for ids: the one bound of league.core.ids in every request body (docs/security.md)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from league.core.ids import ID_MESSAGE, MAX_ID, parse_id


class IdField(serializers.IntegerField):
    """An object's id in a request body: 1 to 2^63-1, an int or a digit string; not a float, boolean or sign."""

    default_error_messages = {"invalid": ID_MESSAGE}

    def __init__(self, **kwargs: Any) -> None:
        # min/max are for the schema (clients and the fuzz see the bound); parse_id enforces it.
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def to_internal_value(self, data: Any) -> int:
        number = parse_id(data)
        if number is None:
            self.fail("invalid")
        return number


def id_list(**kwargs: Any) -> serializers.ListField:
    """A list of ids (at most ``max_length``, 1000 unless told)."""
    kwargs.setdefault("max_length", 1000)
    return serializers.ListField(child=IdField(), **kwargs)
