"""Ratings: the online Elo (pure), the fitted Elo (pure fitting, stored fits and their statistics), which matches are
rated, recomputing ratings, the leaderboards' read models and collusion checks."""
