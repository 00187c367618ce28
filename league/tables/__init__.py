"""People's tables: a person's game against the league's bots (docs/tables.md), who may sit, the pages."""
