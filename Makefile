# The two commands a newcomer needs: `make run` (the league on the embedded default) and `make test`; and
# `make serve`, the production topology on one machine (PostgreSQL, Redis, several web processes).
.PHONY: setup run serve test lint format bench

setup:
	bin/setup

run: setup
	bin/run-league

serve: setup
	bin/serve

test: setup
	bin/test

lint:
	.venv/bin/ruff check .

format:
	.venv/bin/ruff format .

bench: setup
	bin/bench
