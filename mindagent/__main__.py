"""`python -m mindagent`: the same command line as the `mindagent` script.

For environments where the script is not on PATH (a virtualenv not activated, a container that
runs modules), and so the CLI can be run from a source tree without installing it.
"""

from mindagent.cli import build_app

if __name__ == "__main__":
    build_app()(prog_name="mindagent")
