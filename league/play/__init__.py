"""Play: matches and series created and claimed by workers, results recorded, worker time per owner, replays and
what of them may be shown, the invariants of the records."""
