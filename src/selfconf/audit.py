"""``python -m selfconf.audit``: the command's name, kept where the project's issues give it; the code is
:mod:`selfconf.book.audit`.
"""

import sys

from selfconf.book.audit import main

if __name__ == "__main__":
    sys.exit(main())
