"""The page's work: every request's library call a job on a pool of threads, none waiting
behind another's.

A job runs on a thread of a pool of ``workers`` threads (default four per CPU, at least 8). JAX
releases Python's global lock while its compiled programs run, so a cached answer (NumPy on a
loaded table, a few milliseconds) is computed beside a solve that runs for minutes on the same
process; ``benchmarks/bench_web.py`` measures it. Three things order jobs, and only they do:

- ``same``: a request's identity (its kind and its body). While a job with it is unfinished,
  the same request gets that job: two tabs asking one question share one answer.
- ``key``: what a solve would produce (a game, its rules, the dtype). Until one job with a key
  has finished well (its table is then in this process's memory or the solution cache), jobs
  with that key run one after the other: the first solves, the others find its table. A job
  waiting so is *joined* to the running one and shows that job's progress.
- ``serial``: jobs with one serial run one after the other (the moves of one game in play).

A job waiting for its turn holds no thread: it starts when the job before it ends. A running
job hears the progress bars of ``jaxsolve.core.progress`` opened on its thread (quiet or not,
``progress.listening``) and keeps the latest figures: how far (a solve's layers done of its
layers), what is being done (the layer), and the time left at the rate so far.

A job nobody asks about is cancelled: where ``abandon`` seconds pass without a request for it (its
submission, a poll of its id, the same request again, or a poll of a job joined to it), a job
waiting for its turn is cancelled and a running one is stopped (``Abandoned`` raised in its
thread at its next Python step: a solve between two layers, a distribution between two steps).
Jobs submitted with ``keep`` (the tables warmed at start), and the jobs whose solve one of them
waits for, are never cancelled so.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import itertools
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

KEEP = 200  # finished jobs kept for polling (the oldest finished one goes first)


ABANDON = 180.0
"""Seconds without a request for a job after which it is cancelled (``Jobs``): a page polls its
jobs every second or so, and a hidden tab, whose timers a browser slows to one a minute, at
least every minute."""


class Stopping(Exception):
    """A job submitted after ``Jobs.close``."""


class Abandoned(Exception):
    """A job cancelled because nobody asked for it for ``Jobs.abandon`` seconds."""


@dataclass
class Job:
    """One request's work: what it does, since when, the solution store's notes, its progress."""

    id: str
    what: str
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)
    started: float = field(default_factory=time.monotonic)
    ran: float | None = None  # when its work began (after any wait for its turn)
    finished: float | None = None
    notes: list[str] = field(default_factory=list)
    label: str | None = None
    work_done: int = 0
    work_total: int = 0
    joined: Job | None = None  # the job whose solve this one waits for
    about: str | None = None  # the table its key names, in words (game, rules)
    same: Hashable = None
    key: Hashable = None
    serial: Hashable = None
    fn: Callable[[], Any] | None = None
    after: list[Job] = field(default_factory=list)  # jobs waiting for this one to end
    keep: bool = False  # never cancelled for want of polls
    asked: float = field(default_factory=time.monotonic)  # when a request last asked for it
    thread: int | None = None  # the thread running its work, while it runs
    stopping: bool = False  # ``Abandoned`` has been raised in its thread
    _base: tuple[float, int] | None = None  # (time, work done) where the current rate is measured from

    def touch(self) -> None:
        """A request asked for this job (and so for the job whose solve it waits for)."""
        now = time.monotonic()
        self.asked = now
        if self.joined is not None:
            self.joined.asked = max(self.joined.asked, now)

    def heard(self, label: str, done: int, total: int) -> None:
        """A progress bar's update (``progress.listening``): keep the latest figures."""
        now = time.monotonic()
        if self._base is None or total != self.work_total or done < self.work_done:
            self._base = (self.ran or self.started, 0) if self._base is None else (now, done)
        self.label, self.work_done, self.work_total = label, int(done), int(total)

    def eta(self) -> float | None:
        """Seconds left at the rate since the first report (None before there is a rate)."""
        if self._base is None or self.work_total <= 0:
            return None
        t0, d0 = self._base
        if self.work_done <= d0:
            return None
        rate = (self.work_done - d0) / max(time.monotonic() - t0, 1e-9)
        return round(max(self.work_total - self.work_done, 0) / rate, 1)

    def progress(self) -> dict | None:
        """``{done, total, label, eta_seconds}`` of this job, or of the job it waits for."""
        if self.joined is not None and not self.future.done():
            return self.joined.progress()
        if self.label is None:
            return None
        return {"done": self.work_done, "total": self.work_total, "label": self.label, "eta_seconds": self.eta()}

    def info(self) -> dict:
        end = self.finished if self.finished is not None else time.monotonic()
        return {
            "job": self.id,
            "what": self.what,
            "done": self.future.done(),
            "seconds": round(end - self.started, 2),
            "notes": list(self.notes[-5:]),
            "progress": self.progress(),
            "joined": None if self.joined is None or self.future.done() else self.joined.id,
            "about": self.about,
        }


class Jobs:
    """The pool and its jobs (see the module's doc); ``current()`` is the job running on this thread."""

    def __init__(self, workers: int | None = None, abandon: float | None = ABANDON):
        self.workers = workers or max(8, 4 * (os.cpu_count() or 1))
        self.abandon = abandon
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="jaxsolve-web")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._running: dict[tuple[str, Hashable], Job] = {}  # ("key" | "serial", value) -> the job holding it
        self._warm: set[Hashable] = set()  # keys a job has finished well
        self._local = threading.local()
        self._closed = False
        self._stop_lock = threading.Lock()  # orders raising ``Abandoned`` in a job's thread with the job's end
        if abandon is not None:
            threading.Thread(target=self._reaper, name="jaxsolve-web-reaper", daemon=True).start()

    def current(self) -> Job | None:
        return getattr(self._local, "job", None)

    def submit(
        self, what: str, fn: Callable[[], Any], *, same: Hashable = None, key: Hashable = None, serial: Hashable = None, about: str | None = None,
        keep: bool = False,
    ) -> Job:
        """Run ``fn`` as a job (or return the unfinished job of the same request ``same``);
        ``about`` says in words what ``key`` names; ``keep``: never cancelled for want of polls."""
        with self._lock:
            if self._closed:
                raise Stopping("the server is stopping")
            if same is not None:
                for job in reversed(self._jobs.values()):
                    if job.same == same and not job.future.done():
                        job.touch()
                        return job
            job = Job(f"j{next(self._ids)}", what, same=same, key=key, serial=serial, fn=fn, about=about, keep=keep)
            self._jobs[job.id] = job
            while len(self._jobs) > KEEP:
                oldest = next((j for j in self._jobs.values() if j.future.done()), None)
                if oldest is None:
                    break
                del self._jobs[oldest.id]
            go = self._claim(job)
        if go:
            self._pool.submit(self._run, job)
        return job

    def get(self, jid: str) -> Job | None:
        """The job ``jid`` (a request asks for it: it is not abandoned), None if unknown."""
        job = self._jobs.get(jid)
        if job is not None:
            job.touch()
        return job

    def _reaper(self) -> None:
        """Cancel, now and then, the unfinished jobs nobody asked for in ``abandon`` seconds."""
        assert self.abandon is not None
        while not self._closed:
            time.sleep(min(max(self.abandon / 4, 0.05), 5.0))
            self.reap()

    def reap(self) -> list[Job]:
        """Cancel the unfinished jobs (but ``keep`` ones) nobody asked for in ``abandon`` seconds:
        a waiting one at once, a running one by ``Abandoned`` raised in its thread; return them."""
        if self.abandon is None:
            return []
        now = time.monotonic()
        with self._lock:
            unfinished = [j for j in self._jobs.values() if not j.future.done()]
            kept = {id(j.joined) for j in unfinished if j.keep and j.joined is not None}  # a kept job waits for their solve
            idle = [j for j in unfinished if not j.keep and id(j) not in kept and now - j.asked > self.abandon]
        out = []
        for job in idle:
            if job.future.cancel():  # still waiting for its turn: it ends when it would have started
                out.append(job)
                continue
            with self._stop_lock:
                if job.thread is not None and not job.stopping:
                    job.stopping = True
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(job.thread), ctypes.py_object(Abandoned))
                    out.append(job)
        return out

    def _holds(self, job: Job) -> list[tuple[str, Hashable]]:
        holds = []
        if job.serial is not None:
            holds.append(("serial", job.serial))
        if job.key is not None and job.key not in self._warm:
            holds.append(("key", job.key))
        return holds

    def _claim(self, job: Job) -> bool:
        """(Under the lock.) Take what ``job`` holds while it runs and say True; or queue it after
        the job that holds one of them and say False."""
        holds = self._holds(job)
        for hold in holds:
            other = self._running.get(hold)
            if other is not None:
                other.after.append(job)
                if hold[0] == "key":
                    job.joined = other
                return False
        for hold in holds:
            self._running[hold] = job
        job.joined = None
        return True

    def _run(self, job: Job) -> None:
        from jaxsolve.core import progress

        if not job.future.set_running_or_notify_cancel():
            self._end(job, ok=False)
            return
        self._local.job = job
        job.ran = time.monotonic()
        try:
            try:
                with self._stop_lock:
                    job.thread = threading.get_ident()
                with progress.listening(job.heard):
                    result = job.fn()  # type: ignore[misc]
            finally:
                self._stopped(job)
        except BaseException as exc:  # noqa: BLE001  the job's answer (the server turns it into one message)
            job.finished = time.monotonic()
            job.future.set_exception(exc)
            self._end(job, ok=False)
        else:
            job.finished = time.monotonic()
            job.future.set_result(result)
            self._end(job, ok=True)
        finally:
            self._local.job = None
            job.fn = None

    def _stopped(self, job: Job) -> None:
        """The job's work is over: no ``Abandoned`` is raised in its thread from now on, and one
        raised but not yet delivered is withdrawn (it is the job's answer only if it arrived)."""
        with self._stop_lock:
            thread, job.thread = job.thread, None
            if job.stopping and thread is not None:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), None)

    def _end(self, job: Job, ok: bool) -> None:
        """Let go of what ``job`` held and start the jobs that waited for it."""
        with self._lock:
            if ok and job.key is not None:
                self._warm.add(job.key)
            for hold, holder in list(self._running.items()):
                if holder is job:
                    del self._running[hold]
            waiting, job.after = job.after, []
            start = [w for w in waiting if not self._closed and self._claim(w)]
        for w in start:
            self._pool.submit(self._run, w)

    def close(self) -> int:
        """Stop: waiting jobs are cancelled, running ones go on; return how many run."""
        with self._lock:
            self._closed = True
            running = 0
            for job in self._jobs.values():
                if job.future.running():
                    running += 1
                else:
                    job.future.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
        return running
