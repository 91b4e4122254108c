"""``python -m selfconf.course.kernel BYTES -f CONNECTION_FILE``: an IPython kernel with a memory limit.

Definition: sets the process's ``RLIMIT_DATA`` (the bytes of private writable memory it may map: the heap,
numpy's arrays, Python's objects) to ``BYTES`` (0: no limit), then starts ``ipykernel_launcher`` with the
remaining arguments.  The limit is set in the kernel's own process before any of its code runs, so it binds
everything the notebook does; an allocation past it raises ``MemoryError`` in the cell (or, inside a C library
that does not check, ends the kernel).  ``RLIMIT_DATA`` rather than ``RLIMIT_AS``: the address space also counts
reservations that use no memory (thread stacks, the JavaScript engine that draws the charts), which would stop
an honest notebook long before it used the memory.

Reference: getrlimit(2), Linux man-pages (``RLIMIT_DATA`` counts private writable mappings since Linux 4.7);
``ipykernel_launcher`` (ipykernel documentation).

Example: the grader's kernel spec, ``[sys.executable, "-m", "selfconf.course.kernel", "1610612736", "-f",
"{connection_file}"]``.
"""

from __future__ import annotations

import resource
import runpy
import sys

__all__ = ["limit_memory", "main"]


def limit_memory(nbytes: int) -> None:
    """Limit this process's private writable memory to ``nbytes`` (``RLIMIT_DATA``); 0 leaves it unlimited.

    >>> limit_memory(0)
    """
    if nbytes > 0:
        resource.setrlimit(resource.RLIMIT_DATA, (nbytes, nbytes))


def main(argv: list[str] | None = None) -> None:
    """Set the limit of ``argv[0]`` bytes, then run ``ipykernel_launcher`` with the other arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or not args[0].isdigit():
        raise SystemExit("usage: python -m selfconf.course.kernel BYTES [ipykernel arguments]")
    limit_memory(int(args[0]))
    sys.argv = [sys.argv[0], *args[1:]]
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
