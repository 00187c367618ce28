# The two commands a newcomer needs: `make run` (the league on the embedded default) and `make test`.
.PHONY: setup run test lint format bench

setup:
	bin/setup

run: setup
	bin/run-league

test: setup
	bin/test

lint:
	.venv/bin/ruff check .

format:
	.venv/bin/ruff format .

bench: setup
	bin/bench
