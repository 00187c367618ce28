# django-ratelimit ships no type hints: the one function the league calls (league/account_limits.py).
