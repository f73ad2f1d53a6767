"""PDDL reading: text -> lifted model."""

from .model import ActionSchema, Domain, Predicate, Problem
from .parser import parse_domain, parse_problem

__all__ = ["ActionSchema", "Domain", "Predicate", "Problem", "parse_domain", "parse_problem"]
