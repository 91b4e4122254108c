"""``python -m selfconf.build``: the command's name, kept where the project's issues give it; the code is
:mod:`selfconf.book.build`.
"""

import sys

from selfconf.book.build import main

if __name__ == "__main__":
    sys.exit(main())
