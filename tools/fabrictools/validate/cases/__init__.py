"""One module per validation case; each exposes CASE_ID, TITLE and run(ctx) -> CaseResult."""
