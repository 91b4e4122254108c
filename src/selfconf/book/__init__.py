"""Book machinery: executing the notebooks, gluing and marking their numbers, the audit, the HTML and the PDF.

- :mod:`selfconf.book.pages`        page furniture: banners, captioned tables, markdown (re-exported here)
- :mod:`selfconf.book.glue`         gluing values into executed notebooks, with a claim id or an origin
- :mod:`selfconf.book.audit`        every glued value against the paper's print (``python -m selfconf.audit``)
- :mod:`selfconf.book.build`        papermill execution, cached per notebook, and the Sphinx build
- :mod:`selfconf.book.rerun`        one section rerun with another seed, diffed against the book
- :mod:`selfconf.book.kernels`      notebook kernels that cannot collide on ports
- :mod:`selfconf.book.provenance`   Sphinx extension: every pasted number says what it is
- :mod:`selfconf.book.publication`  Sphinx extension: the paper's numbering, numbered charts, the PDF link
- :mod:`selfconf.book.vega`         Sphinx extension and renderer: altair charts drawn offline
- :mod:`selfconf.book.pdf`          the whole book as one PDF
"""

from selfconf.book import pages as _pages
from selfconf.book.pages import *  # noqa: F403 (pages.__all__ is the one list of the page furniture)

#: What the notebooks use of :mod:`selfconf.book.pages`: all of it but the build's own helpers.
_BUILD_ONLY = ("table_folder", "fill_printed_csv")
__all__ = [name for name in _pages.__all__ if name not in _BUILD_ONLY]
