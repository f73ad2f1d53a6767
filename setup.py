"""Packaging beyond pyproject.toml (which holds everything else): the MCP server's folder `server/`
installs as the package `acptools_server`, a name no other distribution uses; a top-level `server`
package would collide with any other package of that name in a user's environment. The verifiers
environments in `environments/` install as top-level packages `acptools_qa`, `acptools_policy` and
`acptools_tools`, because verifiers imports an environment by its id (`acptools-qa` -> `acptools_qa`). The
OpenEnv environment in `environments/acptools_openenv` (OpenEnv's layout: models, client, server/)
installs as the package `acptools_openenv` with its subpackage `acptools_openenv.server`."""

from setuptools import find_packages, setup

SERVER = ["acptools_server"] + [f"acptools_server.{name}" for name in find_packages("server")]
ENVIRONMENTS = ("acptools_qa", "acptools_policy", "acptools_tools", "acptools_openenv")
SUBPACKAGES = {"acptools_openenv.server": "environments/acptools_openenv/server"}

setup(
    packages=find_packages(include=["acptools", "acptools.*"]) + SERVER + list(ENVIRONMENTS) + list(SUBPACKAGES),
    package_dir={"acptools_server": "server", **{name: f"environments/{name}" for name in ENVIRONMENTS}, **SUBPACKAGES},
)
