"""Where the repository is, for tools whose defaults live in it (build/, examples/, results/)."""

import os

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ROOT = os.path.dirname(TOOLS_DIR)
BUILD_DIR = os.path.join(ROOT, "build")


def fabric_run(build_dir: str = BUILD_DIR) -> str:
    """The simulator binary of a build directory."""
    return os.path.join(build_dir, "fabric-run")
