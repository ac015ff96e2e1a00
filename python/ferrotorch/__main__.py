"""``python -m ferrotorch``: prints the version, the build's features and the environment."""

from ferrotorch.utils.collect_env import main

main()
