"""``python -m bayesnb``: the ``bayesnb`` command (:mod:`bayesnb.cli`)."""

import sys

from bayesnb.cli import main

if __name__ == "__main__":
    sys.exit(main())
