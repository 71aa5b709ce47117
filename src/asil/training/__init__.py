"""Training under the ASIL modality: task generation, the overlap audit, and SFT data export."""
