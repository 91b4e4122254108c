"""``python -m selfconf.course student|publish``."""

from selfconf.course import main

raise SystemExit(main())
