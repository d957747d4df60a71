"""Stage 4, claims: the prose's statements checked against a measurement, and drift against a baseline.

`check` loads `claims.d/<page>.yml` and decides each claim with its uncertainty; `plausible`
says what a timed metric (a ratio, a ranking) could be, given its interval; `report` puts verdicts and drift into HTML for the
pages; `lint` keeps hand-typed numbers out of the pages.
It imports the snapshot and render stages, never the measuring one.
"""
