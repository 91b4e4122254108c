"""``python -m selfconf.cli``: the ``selfconf`` console script."""

import sys

from selfconf.cli.commands import main

sys.exit(main())
