"""Proofs kept across runs."""
