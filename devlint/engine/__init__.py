"""The engine: one source text checked. The rules that the prefilter and the screen leave run in one
LibCST pass (cst_stage.py); `# noqa`, the layout of fixes, and the settings they all read.

Below the sources, above the rules. Kept empty: the LibCST stage is imported only for a file that
reaches it (tests/test_startup.py)."""
