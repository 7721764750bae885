"""``python -m fluidworld``: the same command line as the ``fluidworld`` entry point."""

import sys

from .cli import main

sys.exit(main())
