"""`python -m subword` runs the command line."""

import sys

from subword.cli import main

sys.exit(main())
