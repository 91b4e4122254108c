"""``python -m selfconf.course student|publish``."""

from . import main

raise SystemExit(main())
