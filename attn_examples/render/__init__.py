"""Stage 3, render: a snapshot into words, tables and figures (no torch).

`metrics` names every number the prose may use; `hardware`, `occupancy` and `arch` derive what
the counters and the device say; `blocks` writes the HTML blocks, `figures` (through `svgplot`)
the drawings, `timeline` the interactive trace view; `i18n` and `prose` hold the two languages.
It imports only the snapshot stage.
"""
