"""The paper's claims: the manifest of printed numbers, the one judging rule, and the paper's consistency.

- :mod:`selfconf.claims.judging`      the manifest loader and how a recomputed number is judged against its print
- :mod:`selfconf.claims.consistency`  the paper's printed numbers checked against each other

Analysis code never imports this layer for targets; only the reconstruction and the audit do.
"""
