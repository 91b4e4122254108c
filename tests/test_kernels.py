"""Kernels for notebook execution: IPC transport (no TCP port race) and the start-up retry."""

import json

import pytest

from selfconf.book import kernels


@pytest.mark.slow
def test_ipc_kernel_runs_a_notebook_over_unix_sockets(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("print(6 * 7)"))
    client = NotebookClient(nb, kernel_name="python3", timeout=60, kernel_manager_class=kernels.IPCKernelManager)
    seen = {}

    async def keep_connection_info(**kw):  # read the connection file while the kernel is alive
        seen.update(json.loads(open(client.km.connection_file).read()))

    client.on_notebook_start = keep_connection_info
    client.execute()
    assert seen["transport"] == "ipc"
    assert nb.cells[0].outputs[0]["text"].strip() == "42"


def test_run_papermill_retries_only_a_kernel_that_died_while_starting(monkeypatch, tmp_path):
    import papermill as pm

    calls = []

    def flaky(*a, **kw):
        calls.append(kw["kernel_manager_class"])
        if len(calls) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")

    monkeypatch.setattr(pm, "execute_notebook", flaky)
    monkeypatch.setattr(kernels.time, "sleep", lambda s: None)
    kernels.run_papermill(tmp_path / "a.ipynb", tmp_path / "b.ipynb")
    assert calls == [kernels.IPCKernelManager] * 2

    def cell_error(*a, **kw):
        calls.append(1)
        raise pm.PapermillExecutionError(0, 1, "boom", "ValueError", "boom", [])

    calls.clear()
    monkeypatch.setattr(pm, "execute_notebook", cell_error)
    with pytest.raises(pm.PapermillExecutionError):
        kernels.run_papermill(tmp_path / "a.ipynb", tmp_path / "b.ipynb")
    assert len(calls) == 1  # a failing cell is never re-run


def test_run_papermill_gives_up_after_the_stated_retries(monkeypatch, tmp_path):
    import papermill as pm

    calls = []

    def always_dies(*a, **kw):
        calls.append(1)
        raise RuntimeError("Kernel died before replying to kernel_info")

    monkeypatch.setattr(pm, "execute_notebook", always_dies)
    monkeypatch.setattr(kernels.time, "sleep", lambda s: None)
    with pytest.raises(RuntimeError, match="Kernel died"):
        kernels.run_papermill(tmp_path / "a.ipynb", tmp_path / "b.ipynb")
    assert len(calls) == kernels.START_RETRIES + 1


def test_every_ipc_kernel_gets_its_own_socket_path():
    a, b = kernels.IPCKernelManager(), kernels.IPCKernelManager()
    assert a.transport == b.transport == "ipc"
    assert a.ip != b.ip and len(f"{a.ip}-65535") < 100


def test_a_long_tmpdir_does_not_break_the_socket_path_limit(monkeypatch):
    monkeypatch.setattr(kernels.tempfile, "gettempdir", lambda: "/tmp/" + "x" * 90)
    assert len(f"{kernels.IPCKernelManager().ip}-65535") < 100


def test_shutdown_sends_no_interrupt_but_a_timeout_interrupt_still_works(monkeypatch):
    """The pre-shutdown SIGINT is what makes an idle ipykernel log ``ERROR | KeyboardInterrupt``."""
    import asyncio
    import signal

    km = kernels.IPCKernelManager(kernel_name="python3")
    sent = []

    async def record(sig):
        sent.append(sig)

    monkeypatch.setattr(km, "_async_signal_kernel", record)
    monkeypatch.setattr(type(km), "has_kernel", property(lambda self: True))
    km.shutting_down = True
    asyncio.run(km._async_interrupt_kernel())
    assert sent == []
    km.shutting_down = False
    asyncio.run(km.interrupt_kernel())
    assert sent == [signal.SIGINT]


@pytest.mark.slow
def test_executing_a_notebook_logs_no_error_line(tmp_path, capfd):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("x = 6 * 7"))
    src = tmp_path / "a.ipynb"
    nbformat.write(nb, src)
    for _ in range(3):  # the race between SIGINT and the shutdown request did not fire every time
        kernels.run_papermill(src, tmp_path / "b.ipynb")
    err = capfd.readouterr()
    assert "ERROR" not in err.err + err.out


def _glued_notebook(path, key, value):
    """A minimal executed notebook holding one glued value (the scrapbook output glue writes)."""
    out = {"output_type": "display_data", "metadata": {"scrapbook": {"name": key}}, "data": {"text/plain": repr(value)}}
    cell = {"cell_type": "code", "metadata": {}, "source": "", "execution_count": 1, "outputs": [out]}
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_a_phase_key_reads_only_earlier_phases(tmp_path):
    """A phase-2 notebook's upstream digest covers the phase-1 values alone: whether phase 2 (or 3) has been
    executed before must not change it, or a warm build after a cold one re-executes every phase-2 page."""
    from selfconf.book import build

    _glued_notebook(tmp_path / "04_result1.ipynb", "x", 1)
    before = build._glued_digest(tmp_path, before_phase=2)
    _glued_notebook(tmp_path / "00_abstract.ipynb", "y", 2)  # phase 2
    _glued_notebook(tmp_path / "14_audit.ipynb", "z", 3)  # phase 3
    assert build._glued_digest(tmp_path, before_phase=2) == before
    assert build._glued_digest(tmp_path, before_phase=3) != before  # phase 3 reads phase 2
    _glued_notebook(tmp_path / "04_result1.ipynb", "x", 5)  # an earlier phase's value changes the key
    assert build._glued_digest(tmp_path, before_phase=2) != before


def _notebook(path, *sources):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, path)
    return path


@pytest.mark.slow
def test_a_kernel_started_ahead_runs_the_notebook_and_is_stopped(tmp_path, monkeypatch):
    """start_kernel boots a kernel with this process's environment at that moment; run_papermill runs the
    notebook on it (not on a second kernel) and stops it, on success and on a failing cell alike."""
    import nbformat
    import papermill as pm

    monkeypatch.setenv("SELFCONF_PROBE", "ahead")
    km = kernels.start_kernel(tmp_path)
    pid = km.provisioner.process.pid
    monkeypatch.delenv("SELFCONF_PROBE")
    src = _notebook(tmp_path / "a.ipynb", "import os; print(os.getpid(), os.environ.get('SELFCONF_PROBE'))")
    kernels.run_papermill(src, tmp_path / "b.ipynb", cwd=tmp_path, kernel=km)
    out = nbformat.read(tmp_path / "b.ipynb", as_version=4).cells[0].outputs[0]["text"].split()
    assert out == [str(pid), "ahead"]
    assert not km.has_kernel

    km = kernels.start_kernel(tmp_path)
    bad = _notebook(tmp_path / "c.ipynb", "raise ValueError('boom')")
    with pytest.raises(pm.PapermillExecutionError):
        kernels.run_papermill(bad, tmp_path / "d.ipynb", cwd=tmp_path, kernel=km)
    assert not km.has_kernel


@pytest.mark.slow
def test_execute_one_stops_its_kernel_when_the_notebook_cannot_be_read(tmp_path, monkeypatch):
    from selfconf.book import build

    started = []
    real = kernels.start_kernel

    def keep(cwd=None):
        started.append(real(cwd))
        return started[-1]

    monkeypatch.setattr(kernels, "start_kernel", keep)
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    with pytest.raises(FileNotFoundError):
        build.execute_one("99_missing", {}, tmp_path / "out", tmp_path)
    assert len(started) == 1 and not started[0].has_kernel


def test_a_preloaded_kernel_has_the_modules_but_not_the_names(tmp_path):
    """start_kernel(preload=...) imports the modules while booting: they are in sys.modules, yet the notebook's
    namespace and its first execution count are those of a kernel started without them; an unknown name is
    never passed to the kernel."""
    import nbformat

    assert kernels.preload_modules("import pandas as pd\nfrom altair import Chart\nimport os\n  import numpy\n") == (
        "pandas",
        "altair",
    )
    code = "import sys; print('pandas' in sys.modules, 'pandas' in dir(), 'os' in sys.modules)"
    outs = []
    for preload in (("pandas", "os; import shutil"), ()):
        km = kernels.start_kernel(tmp_path, preload=preload)
        src = _notebook(tmp_path / "a.ipynb", code)
        kernels.run_papermill(src, tmp_path / "b.ipynb", cwd=tmp_path, kernel=km)
        cell = nbformat.read(tmp_path / "b.ipynb", as_version=4).cells[0]
        outs.append((cell.outputs[0]["text"].split(), cell.execution_count))
    assert outs[0] == (["True", "False", "True"], 1)
    assert outs[1][1] == 1 and outs[1][0][1] == "False"
