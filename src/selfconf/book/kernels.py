"""Start notebook kernels that cannot collide on TCP ports.

jupyter_client picks a kernel's five TCP ports by binding port 0, reading the number and closing the
socket; the kernel binds them again a moment later.  When several kernels start at once (the build
runs a phase in parallel, and a shared CI machine runs other jobs), two of them can be handed the
same free port and one dies with ``ZMQError: Address already in use`` ("Kernel died before replying
to kernel_info").  Kernels started here talk over Unix-domain sockets (``transport="ipc"``) whose
paths are unique per kernel, so there is no shared namespace to race in.  (jupyter_client's own
default socket path for ``ipc`` is ``kernel-ipc`` in the working directory whenever the connection
file is not named yet, which would make parallel kernels share sockets; hence the explicit path.)

Shutting down: jupyter_client's ``shutdown_kernel`` sends the kernel SIGINT before its shutdown
request, so that a busy kernel stops its cell first.  An idle kernel (every notebook the build
finishes) answers that signal by logging ``[IPKernelApp] ERROR | KeyboardInterrupt caught in
kernel.`` to the build's console, which reads as a failure.  The managers here skip the interrupt
while shutting down: the shutdown request still goes over the control channel, and a kernel that
does not exit in time still gets SIGTERM and then SIGKILL (``finish_shutdown``).  An interrupt asked
for at any other time (nbclient's ``interrupt_on_timeout``) is sent as before.

Reference: jupyter_client ``ConnectionFileMixin`` (``transport``, ``ip``) and its port-allocation
note in ``jupyter_client.connect.write_connection_file``; ``KernelManager._async_shutdown_kernel``.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import default

__all__ = ["IPCKernelManager", "PRELOADABLE", "preload_modules", "start_kernel", "stop_kernel", "run_papermill"]

#: How often a kernel that died while starting (before any cell ran) is started again.
START_RETRIES = 2


class IPCKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` whose kernel listens on Unix-domain sockets instead of TCP ports."""

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    @default("ip")
    def _default_ip(self) -> str:
        # socket files are <ip>-<port> and a Unix socket path may hold at most 107 bytes: a long
        # TMPDIR (some CI runners nest it deeply) falls back to /tmp
        base = tempfile.gettempdir()
        if len(base) > 60 and os.path.isdir("/tmp"):
            base = "/tmp"
        return os.path.join(base, f"selfconf-kernel-{uuid.uuid4().hex[:16]}")

    async def _async_interrupt_kernel(self) -> None:
        """Interrupt the kernel, except as the first step of a shutdown (see the module docstring).

        Example: ``IPCKernelManager().shutting_down = True`` makes this a no-op."""
        if self.shutting_down:
            return
        await super()._async_interrupt_kernel()

    interrupt_kernel = _async_interrupt_kernel

    async def _async_wait(self, pollinterval: float = 0.01) -> None:
        """Wait for the kernel process to exit, looking every 10 ms (jupyter_client: every 100 ms,
        which made each stop cost at least 0.1 s)."""
        await super()._async_wait(pollinterval=pollinterval)


#: The argument nbclient adds when it starts a kernel itself: the kernel keeps no history file.
NO_HISTORY = "--HistoryManager.hist_file=:memory:"


#: Third-party modules slow to import (about a second together) that a kernel may import while it boots.
PRELOADABLE = ("numpy", "pandas", "altair")
_IMPORT = re.compile(r"^(?:import|from)\s+([A-Za-z_][\w]*)", re.MULTILINE)


def preload_modules(source: str) -> tuple[str, ...]:
    r"""The :data:`PRELOADABLE` modules a notebook's source imports at the start of a line, in that order.

    Definition: a module counts when a line of ``source`` begins with ``import <module>`` or
    ``from <module>`` (its top-level package name); others are never preloaded.

    Example:

    >>> preload_modules("import altair as alt\nimport numpy as np\nfrom selfconf import glue\n")
    ('numpy', 'altair')
    """
    found = set(_IMPORT.findall(source))
    return tuple(m for m in PRELOADABLE if m in found)


def start_kernel(cwd: str | Path | None = None, preload: tuple[str, ...] = ()) -> IPCKernelManager:
    """Start a ``python3`` kernel now, for :func:`run_papermill` (``kernel=``) to run a notebook on.

    A kernel takes about half a second to boot; a caller that starts it first can prepare the
    notebook (jupytext, papermill's import) meanwhile.  The kernel inherits this process's
    environment and ``cwd`` as they are at this call, exactly as one papermill starts would; it is
    started with the argument nbclient gives its own kernels (:data:`NO_HISTORY`).

    ``preload`` (module names, see :func:`preload_modules`) are imported while the kernel boots, so the
    notebook's own import cell finds them in ``sys.modules`` instead of loading them after the caller's
    preparation; the names are deleted again (``IPKernelApp.exec_lines``, run without history), so the
    notebook's namespace and execution counts are as without it, and nothing it computes can differ.

    Example: ``km = start_kernel("book", preload=("numpy",)); run_papermill(src, dst, cwd="book", kernel=km)``.
    """
    from jupyter_core.utils import run_sync

    args = [NO_HISTORY]
    mods = [m for m in preload if m in PRELOADABLE]  # only known names reach the kernel's command line
    if mods:
        args += [
            f"--IPKernelApp.exec_lines=import {', '.join(mods)}",
            f"--IPKernelApp.exec_lines=del {', '.join(mods)}",
        ]
    km = IPCKernelManager(kernel_name="python3")
    run_sync(km.start_kernel)(extra_arguments=args, cwd=None if cwd is None else str(cwd))
    return km


def _adopting(km: IPCKernelManager) -> type[IPCKernelManager]:
    """A kernel-manager class for nbclient whose construction returns ``km`` (already started), so
    nbclient skips starting a kernel, uses this one and stops it when the notebook is done."""

    class Adopt(IPCKernelManager):
        def __new__(cls, *args: object, **kwargs: object) -> IPCKernelManager:  # type: ignore[misc]
            return km  # not an Adopt instance, so __init__ is not run again

    return Adopt


def stop_kernel(km: IPCKernelManager) -> None:
    """Stop ``km``'s kernel now if it is still running (nbclient stops the kernels it used; then this does nothing).

    Example: ``stop_kernel(start_kernel())``.
    """
    from jupyter_core.utils import run_sync

    if km.has_kernel:
        run_sync(km.shutdown_kernel)(now=True)


def _died_while_starting(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) and "Kernel died before replying to kernel_info" in str(exc)


def run_papermill(
    src: str | Path,
    dst: str | Path,
    parameters: dict | None = None,
    cwd: str | Path | None = None,
    kernel: IPCKernelManager | None = None,
) -> None:
    """Execute ``src`` into ``dst`` with papermill on an IPC kernel.

    ``kernel``, from :func:`start_kernel` (same ``cwd``), is used instead of starting one; it is
    stopped when this returns or raises.  A kernel that dies before answering ``kernel_info`` has
    run no cell, so starting it again cannot change a result; that case alone is retried
    (``START_RETRIES`` times, each on a kernel papermill starts).  Any error raised by a cell
    propagates unchanged as ``papermill.PapermillExecutionError``.
    """
    try:
        _run_papermill(src, dst, parameters, cwd, kernel)
    finally:
        if kernel is not None:
            stop_kernel(kernel)


def _run_papermill(
    src: str | Path,
    dst: str | Path,
    parameters: dict | None,
    cwd: str | Path | None,
    kernel: IPCKernelManager | None,
) -> None:
    import papermill as pm

    for attempt in range(START_RETRIES + 1):
        manager = IPCKernelManager if kernel is None or attempt else _adopting(kernel)
        try:
            pm.execute_notebook(
                str(src),
                str(dst),
                parameters=parameters or {},
                kernel_name="python3",
                cwd=None if cwd is None else str(cwd),
                progress_bar=False,
                log_output=False,
                kernel_manager_class=manager,
                # one write at the end: the caller renames a finished file into place,
                # so per-cell saves (~30 ms each with chart outputs) buy nothing
                request_save_on_cell_execute=False,
                # every cell has answered (its outputs are in the notebook) when the kernel is
                # stopped, so a kill loses nothing; the graceful path waits ~0.2 s for the exit
                shutdown_kernel="immediate",
            )
            return
        except RuntimeError as e:
            if not _died_while_starting(e) or attempt == START_RETRIES:
                raise
            time.sleep(0.5 * (attempt + 1))
