"""Stage 2, snapshot: what a measurement is, read and written without torch.

`schema` holds the dataclasses, their validation (one line naming the file and field) and the
atomic writes; `config` and `variants` say what was measured; `kineto` reads a trace; `stamp`,
`stages` and `uncertainty` are the small value objects every stage shares (provenance, build
stage timings, intervals). This stage imports no other stage.
"""
