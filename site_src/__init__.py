"""The leaderboard site generator (Jinja templates, Plotly figures, MkDocs hook)."""
