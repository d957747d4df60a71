"""Stage 4, claims: the prose's statements checked against a measurement, and drift against a baseline.

`check` loads `claims.d/<page>.yml` and decides each claim with its uncertainty; `plausible`
bounds what a measurement may say at all; `lint` keeps hand-typed numbers out of the pages.
It imports the snapshot and render stages, never the measuring one.
"""
