"""Packaging beyond pyproject.toml (which holds everything else): the MCP server's folder `server/`
installs as the package `acptools_server`, a name no other distribution uses; a top-level `server`
package would collide with any other package of that name in a user's environment."""

from setuptools import find_packages, setup

SERVER = ["acptools_server"] + [f"acptools_server.{name}" for name in find_packages("server")]

setup(packages=find_packages(include=["acptools", "acptools.*"]) + SERVER,
      package_dir={"acptools_server": "server"})
