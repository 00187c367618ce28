# Each game's observation and action types, generated from its declaration (bots/authoring/stubs.py): for type
# checkers only.
