"""Tools for bot authors, behind ``python -m bots``: play (``cli``), round robins and comparisons (``arena``, with the
statistics in ``sprt``), the local replay viewer (``viewer``), starter kits (``starter``) and the sandbox's costs
(``bench``). They use the runner and the sandbox; nothing in the runner or the sandbox uses them."""
