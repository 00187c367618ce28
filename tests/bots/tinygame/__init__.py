"""A throwaway game for the bot-runtime tests: players take 1-3 counters from a pile; whoever takes the last wins."""
