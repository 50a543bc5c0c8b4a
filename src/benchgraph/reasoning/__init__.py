"""Inference: OWL-RL per record, and the project's rules across records."""
