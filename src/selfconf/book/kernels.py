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
import tempfile
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import default

__all__ = ["IPCKernelManager", "run_papermill"]

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


def _died_while_starting(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) and "Kernel died before replying to kernel_info" in str(exc)


def run_papermill(
    src: str | Path, dst: str | Path, parameters: dict | None = None, cwd: str | Path | None = None
) -> None:
    """Execute ``src`` into ``dst`` with papermill on an IPC kernel.

    A kernel that dies before answering ``kernel_info`` has run no cell, so starting it again
    cannot change a result; that case alone is retried (``START_RETRIES`` times).  Any error raised
    by a cell propagates unchanged as ``papermill.PapermillExecutionError``.
    """
    import papermill as pm

    for attempt in range(START_RETRIES + 1):
        try:
            pm.execute_notebook(
                str(src),
                str(dst),
                parameters=parameters or {},
                kernel_name="python3",
                cwd=None if cwd is None else str(cwd),
                progress_bar=False,
                log_output=False,
                kernel_manager_class=IPCKernelManager,
                # one write at the end: the caller renames a finished file into place,
                # so per-cell saves (~30 ms each with chart outputs) buy nothing
                request_save_on_cell_execute=False,
            )
            return
        except RuntimeError as e:
            if not _died_while_starting(e) or attempt == START_RETRIES:
                raise
            time.sleep(0.5 * (attempt + 1))
