"""Where batch work runs: in this process, in local worker processes, or on a Ray cluster.

Batch commands (score, rollout, generate) cut their work into independent units, largest first,
and hand them to `run_units`, which yields each unit's result as it finishes. The results are the
same whichever backend runs them; only the wall time differs.

    --backend local --jobs N        N worker processes on this machine (fork), or this process for N=1
    --backend ray [--address ADDR]  Ray tasks: a local Ray instance with N CPUs, or the cluster at ADDR
                                    (`ray start --head` on one machine, `ray start --address=...` on
                                    the others; pip install 'acptools[ray]' everywhere)
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid

from .errors import AcpError, RunStopped
from .proofs import store

BACKENDS = ("local", "ray")
# a Ray task whose worker dies (killed, out of memory, its node lost) runs again up to this many times
# ($ACPTOOLS_RAY_RETRIES overrides it); the results do not depend on which attempt gave them
RAY_RETRIES = 3
WORKER_DEATHS = ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError")
# Ray's own processes failing under the run (the raylet, its agents, the object store): no retry helps
SYSTEM_FAILURES = (
    "LocalRayletDiedError",
    "RaySystemError",
    "ObjectLostError",
    "ObjectFetchTimedOutError",
    "OwnerDiedError",
    "ObjectReconstructionFailedError",
    "RpcError",
    "GetTimeoutError",
)


def ray_retries() -> int:
    """The max_retries of Ray episode tasks: ACPTOOLS_RAY_RETRIES (at least 0), else RAY_RETRIES;
    AcpError when it is not a whole number."""
    try:
        return max(0, int(os.environ.get("ACPTOOLS_RAY_RETRIES", RAY_RETRIES)))
    except ValueError:
        raise AcpError(
            f"ACPTOOLS_RAY_RETRIES must be a whole number, got {os.environ['ACPTOOLS_RAY_RETRIES']!r}", "environment"
        ) from None


def check_backend(backend: str) -> None:
    """AcpError for a backend name other than those in BACKENDS."""
    if backend not in BACKENDS:
        raise AcpError(f"unknown backend {backend!r}", "--backend", f"use one of {', '.join(BACKENDS)}")


def run_units(fn, payloads: list, jobs: int = 1, backend: str = "local", address: str | None = None):
    """Yield fn(payload) for every payload, as each finishes (order not kept: results carry their
    own index). `fn` must be a module-level function and payloads picklable."""
    check_backend(backend)
    if backend == "ray":
        yield from _ray_units(fn, payloads, jobs, address)
        return
    if jobs <= 1 or len(payloads) <= 1:
        for p in payloads:
            yield fn(p)
        return
    import multiprocessing as mp

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with ctx.Pool(jobs, initializer=_ignore_sigint) as pool:
        yield from pool.imap_unordered(fn, payloads, chunksize=1)


def _ignore_sigint() -> None:
    """Ctrl-C is the driver's to handle: it stops the pool (a worker's traceback would only be noise)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_sharing_proofs(
    fn, payloads: list, tasks: list, jobs: int = 1, backend: str = "local", address: str | None = None
):
    """`run_units`, with the proof store shared by the workers. Local workers share its file; a
    Ray task receives what the driver's store knows about its unit's tasks (`tasks[i]`: the task
    keys payload i works on) and returns what it knows after, which the driver merges: workers on
    other machines share the driver's proof store this way."""
    shared = store.active() if backend == "ray" else None
    if shared is None:
        yield from run_units(fn, payloads, jobs, backend, address)
        return
    run = uuid.uuid4().hex
    work = [(fn, p, keys, [shared.export(k) for k in keys], run) for p, keys in zip(payloads, tasks)]
    for result, back in run_units(_with_proofs, work, jobs, backend, address):
        for exported in back:
            shared.merge(exported)
        yield result


_worker_run = None  # the run whose truths this worker process holds in memory


def _with_proofs(args):
    """fn(payload) proving into a store of its own, seeded with the shipped facts: a fresh private
    folder (mode 0700) holding a store keyed with a random key, removed when the unit is done. What
    this process proved for an earlier unit of the same run came back with that unit; truths of
    another run are dropped first, so everything this unit uses is proven into its store."""
    global _worker_run
    fn, payload, keys, shipped, run = args
    if run != _worker_run:
        from .truth import clear_caches

        clear_caches()
        _worker_run = run
    folder = tempfile.mkdtemp(prefix="acptools-worker-")
    previous = store.active()
    try:
        own = store.use(os.path.join(folder, "proofs.sqlite"), key=os.urandom(32))
        for exported in shipped:
            own.merge(exported)
        result = fn(payload)
        back = [own.export(k) for k in keys]
        own.close()
        return result, back
    finally:
        store._active = previous
        shutil.rmtree(folder, ignore_errors=True)


def _ray_units(fn, payloads: list, jobs: int, address: str | None):
    try:
        import ray
    except ImportError:
        raise AcpError("Ray is not installed", "--backend ray", "pip install 'acptools[ray]'") from None
    if not ray.is_initialized():
        kwargs = {"address": address} if address else {"num_cpus": max(1, jobs)}
        # workers import acptools from where this process does (a checkout, or the installed package)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        ray.init(
            ignore_reinit_error=True,
            include_dashboard=False,
            log_to_driver=False,
            logging_level="ERROR",
            runtime_env={"env_vars": {"PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}},
            **kwargs,
        )
    retries = ray_retries()
    remote = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(fn)
    deaths, failures = _ray_errors(ray, WORKER_DEATHS), _ray_errors(ray, SYSTEM_FAILURES)
    pending = []
    try:
        pending = [remote.remote(p) for p in payloads]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    except deaths as e:
        raise RunStopped(
            f"a Ray worker died {retries + 1} time(s) running one unit of work ({type(e).__name__})",
            "--backend ray",
            "what finished is in --out: run the same command with --resume",
        ) from None
    except failures as e:
        raise RunStopped(
            f"Ray stopped working ({type(e).__name__}: {_first_line(e)})",
            "--backend ray",
            "what finished is in --out: run the same command with --resume",
        ) from None
    finally:  # the caller stopped early (an error, a fatal policy): the rest is not wanted
        for ref in pending:
            try:
                ray.cancel(ref)
            except Exception:  # noqa: BLE001 -- Ray itself is gone: there is nothing left to cancel
                break


def _ray_errors(ray, names: tuple[str, ...]) -> tuple[type, ...]:
    """The exception classes of `names` that this Ray version has."""
    return tuple(getattr(ray.exceptions, n) for n in names if isinstance(getattr(ray.exceptions, n, None), type))


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else "no message"
