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

from selfconf.book.pages import (
    BOOK_ENV,
    PAGE_KINDS,
    RECONSTRUCTION_NOTICE,
    as_text,
    banner,
    banner_text,
    claim_role,
    data_source,
    in_book,
    is_numeric_text,
    page_banner,
    printed_role,
    provenance,
    show_markdown,
    table,
    table_label,
    table_markdown,
)

__all__ = [
    "in_book",
    "BOOK_ENV",
    "data_source",
    "provenance",
    "banner",
    "banner_text",
    "RECONSTRUCTION_NOTICE",
    "page_banner",
    "PAGE_KINDS",
    "table",
    "table_markdown",
    "table_label",
    "is_numeric_text",
    "claim_role",
    "printed_role",
    "show_markdown",
    "as_text",
]
