"""The site glue: MkDocs hooks, the page API, the command line, the caches (may call any stage).

`build` is what the pages call (one measurement per build, rendered per language); `*_hooks`
are loaded by path from mkdocs.yml; `cli` is `attn-examples`; `sites` builds one site per
committed snapshot; `pages` checks the page sources; `live_cache` and `notebook` keep what a
build measured or ran. The measuring stage is only ever imported inside a function, when a
build measures live.
"""
