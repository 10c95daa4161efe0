"""What a build reports: predictions from each stage's table, the report and its sections, plots, model
cards, provenance, the seed study's spread, the papers' tables and the docs check."""
