"""Tournaments: the formats (pure), their rounds run by the services, their read models, pages and admin."""
