"""ASILization: onboarding an application from a reviewed interface profile.

qualify (``profile``: the YAML is valid against the committed JSON Schema) -> compile (``compile``:
a bundle of data and declared mappings) -> audit (``audit``: static, before anything runs) -> probe
(``probe``: round trips against the real program, only with ``--allow-actions``) -> readiness
(``readiness``: fail-closed gates over every adapter, hand-written or generated). ``pipeline`` walks
them in order for ``asil onboard``; ``draft`` is the model-assisted path for prose evidence.
"""
