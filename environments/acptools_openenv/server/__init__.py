"""The acptools environment's server: the environment, the backend its sessions share, the app."""

from .acptools_environment import AcptoolsEnvironment

__all__ = ["AcptoolsEnvironment"]
