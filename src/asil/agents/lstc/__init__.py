"""LocalLSTC: Long Short-Term Control for agents on small local models."""
