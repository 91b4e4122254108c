"""``python -m selfconf.datasets pack|names``."""

from selfconf.datasets import main

raise SystemExit(main())
