"""Episode runner, traces and benchmark runs."""
