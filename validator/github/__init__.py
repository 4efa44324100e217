"""GitHub: the only package that talks to GitHub (client, PR changes, PR report, results guard)."""
