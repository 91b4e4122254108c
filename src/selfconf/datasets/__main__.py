"""``python -m selfconf.datasets pack|names``."""

from . import main

raise SystemExit(main())
