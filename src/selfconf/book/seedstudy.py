"""The Monte-Carlo seed study: every bootstrap claim's spread over K seeds of the section function that computes it.

A bootstrap number (an interval end point, a bootstrap p-value, and what is derived from them) moves with the
seed.  The audit's tolerance rests on its Monte-Carlo error, which :mod:`selfconf.claims.judging` takes from the
quantity's own definition.  This module measures it: each computing section's ``compute`` (the function its
page calls, :func:`section_compute`) is run with the page's rows and draws at :data:`K_SEEDS` other seeds, drawn
from the book's one seed stream (:func:`selfconf.stats.streams.stream` ``(page seed, "seed-study")``).  For every
canonical bootstrap claim the study records

* ``values``: the K values; ``mean``, ``sd`` (sample SD, ``ddof=1``) of them;
* ``mc_error``: the Monte-Carlo SE of one page's estimate **from the definition**, evaluated on these rows:

  - a two-sided bootstrap p-value: ``sqrt(p (2 - p) / B)`` at the seeds' mean p
    (:func:`selfconf.claims.judging.p_value_se`);
  - a percentile end point (the ``q`` quantile of B draws): ``sqrt(q (1 - q) / B) / f(x_q)``, with the
    bootstrap density ``f`` at the pooled quantile measured from the K x B pooled draws behind the end point
    (recorded by :func:`selfconf.bootstrap.recording_intervals`) as the difference quotient
    ``2h / (Q(q + h) - Q(q - h))`` of their empirical quantile function, h = :data:`DENSITY_H`;
  - a derived claim: first-order propagation from its inputs' errors
    (:func:`selfconf.claims.judging.monte_carlo_se`: a Holm p is its multiplier x the error of the raw p that
    sets it);

* ``z`` = (page value - mean) / sd and ``quantile`` = the share of seeds at or below the page value: where the
  page's draw sits in its own seed distribution.

The measured SD checks the definition (``tests/test_seedstudy.py`` asserts agreement within 20 % for every
bootstrap claim); the definition, not the SD, is what the tolerance uses.  The page's own seed is run too, and
its values must equal the ones the page glued (otherwise the study would not measure the page's function).

Each section's result is cached in ``_build/seedstudy/`` under a key that digests the section, its page seed and
draws, K, the study's seeds, the package code the section's notebook uses (:func:`selfconf.book.build.code_digest`)
and the data files it reads, so a warm build pays nothing.  The study of the shipped reconstruction at the pages'
default parameters is also shipped (:data:`STORE_DIR`, written by ``python -m selfconf.book.seedstudy --ship``),
so a cold build of a fresh clone pays nothing either: an entry is read only under its own key, so a change of
code, data, seed or draws finds no entry and the study is computed (its sections in parallel, one process each,
up to the machine's cores).  ``tests/test_seedstudy.py`` fails when the shipped entries do not match the code.

References: Koehler, Brown & Haneuse (2009), "On the assessment of Monte Carlo error in simulation-based
statistical analyses", The American Statistician 63, 155-162; Hall (1986); Serfling (1980), section 2.3 (the
asymptotic variance of a sample quantile).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from selfconf.claims import judging
from selfconf.data.paths import project_root, resolve

__all__ = [
    "K_SEEDS",
    "DENSITY_H",
    "COMPUTING",
    "STUDY_JSON",
    "STORE_DIR",
    "study_seeds",
    "section_runner",
    "section_compute",
    "default_parameters",
    "page_parameters",
    "endpoint_se",
    "Spread",
    "SeedStudy",
    "run_section",
    "seed_study",
    "load_study",
    "shipped_names",
    "ship",
    "measured_errors",
    "main",
]

#: Seeds per section: the relative SE of a sample SD over K normal values is about 1/sqrt(2(K-1)) (5 % at 200),
#: so a 20 % disagreement between the definition and the seeds is four of its SEs.
K_SEEDS = 200
#: Half-width (in probability) of the difference quotient that measures the bootstrap density at an end point.
DENSITY_H = 0.005
#: Which executed notebook (in ``book/``) carries each paper section.
SECTION_PAGES = {
    "abstract": "00_abstract",
    "introduction": "01_introduction",
    "related-work": "02_related_work",
    "design": "03_design",
    "result1": "04_result1",
    "result2": "05_result2",
    "result3": "06_result3",
    "implications": "07_implications",
    "limitations": "08_limitations",
    "conclusion": "09_conclusion",
    "diagnostic-appendix": "10_diagnostic",
    "reproducibility": "11_reproducibility",
}
#: The sections whose pages compute bootstrap claims from rows (keys of :data:`selfconf.book.audit.SECTION_PAGES`).
COMPUTING = ("design", "result1", "result2", "result3", "limitations")
#: Where the build writes the study it used.
STUDY_JSON = "_build/seed_study.json"
CACHE_DIR = "_build/seedstudy"
#: The shipped study of the reconstruction at the pages' default parameters (read-only during a build).
STORE_DIR = "data/seedstudy"
#: Bumped when the study's computation changes (part of every cache key).
VERSION = 1


def study_seeds(page_seed: int, k: int = K_SEEDS) -> list[int]:
    """The study's K seeds: distinct, none equal to the page's, drawn from ``stream(page_seed, "seed-study")``.

    >>> s = study_seeds(20261130, 5)
    >>> len(set(s)), 20261130 in s, s == study_seeds(20261130, 5)
    (5, False, True)
    """
    from selfconf.stats.streams import stream

    rng = stream(int(page_seed), "seed-study")
    out: list[int] = []
    while len(out) < k:
        for v in rng.integers(0, 2**32, size=k):
            v = int(v)
            if v != int(page_seed) and v not in out and len(out) < k:
                out.append(v)
    return out


def section_runner(section: str, data_dir: str | Path = "data/reconstructed"):
    """``run(seed, n_boot)``: ``section``'s ``compute()`` on the rows in ``data_dir``, called as its notebook calls it.

    The families the notebook reads are loaded once (:func:`selfconf.data.sources.resolve_families`: each from
    ``data_dir`` when it holds it, else the reconstruction), with the quoted parameters it takes; each call returns
    the section's :class:`selfconf.sections.computed.Computed` for one seed.
    """
    from selfconf import data
    from selfconf.book.glue import quoted_value
    from selfconf.data import families
    from selfconf.data.sources import SECTION_FAMILIES, resolve_families
    from selfconf.sections import design, ladder, limitations, result1, result2, result3

    if section not in COMPUTING:
        raise KeyError(f"not a computing section: {section!r}; known: {', '.join(COMPUTING)}")
    src = resolve_families(data_dir, list(SECTION_FAMILIES[section]))
    q = quoted_value
    level = q("ci_level_pct") / 100
    if section == "design":
        rows, excl = data.load_collection(src.path("collection"))
        bench = data.load_benchmark_age(src.path("benchmark_age"))
        return lambda seed, n_boot: design.compute(rows, excl, bench, seed=seed, n_boot=n_boot, level=level)
    if section == "result1":
        rows, excl = data.load_collection(src.path("collection"))
        kw = {
            "threshold_points": q("r1_highconf_threshold"),
            "chance": q("r1_chance_auroc"),
            "auroc_cut": q("r1_auroc_threshold"),
            "n_bins": q("t1_ece_n_bins"),
            "level": level,
            "coverages_pct": [q(f"t2_coverage_{c}") for c in (100, 80, 60, 40, 20)],
        }
        return lambda seed, n_boot: result1.compute(rows, excl, seed=seed, n_boot=n_boot, **kw)
    bound = q("ladder_degeneracy_bound")
    frames, profiles, _ = families.load_ladder(src.path("ladder"))
    if section == "result2":
        return lambda seed, n_boot: result2.compute(
            frames, profiles, bound=bound, n_rungs=len(frames), seed=seed, n_boot=n_boot
        )
    if section == "result3":
        probes, _ = families.load_probes(src.path("probes"))
        return lambda seed, n_boot: result3.compute(
            frames, probes, bound=bound, seed=seed, n_boot=n_boot, frontier_subject=ladder.FRONTIER_RUNG
        )
    twostage, _ = families.load_twostage(src.path("twostage"))
    regrade, _ = families.load_regrade(src.path("regrade"))
    rows, _ = data.load_collection(src.path("collection"))
    return lambda seed, n_boot: limitations.compute(
        rows, twostage, frames, regrade, bound=bound, seed=seed, n_boot=n_boot
    )


def section_compute(section: str, data_dir: str | Path = "data/reconstructed", seed: int = 0, n_boot: int = 2000):
    """``section``'s ``compute()`` at one seed (:func:`section_runner`); the tests call sections through it too."""
    return section_runner(section, data_dir)(seed, n_boot)


def default_parameters(section: str) -> dict[str, Any]:
    """The literal ``seed``, ``n_boot`` and ``data_dir`` of ``section``'s notebook's ``parameters`` cell.

    >>> default_parameters("result1")["n_boot"]
    2000
    """
    import ast

    import jupytext

    nb = jupytext.read(project_root() / "notebooks" / f"{SECTION_PAGES[section]}.py")
    cell = next(c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", []))
    out: dict[str, Any] = {}
    for node in ast.parse(cell.source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


def page_parameters(book_dir: str | Path, section: str) -> dict[str, Any] | None:
    """The parameters (``seed``, ``n_boot``, ``data_dir``) the executed page of ``section`` ran with, or ``None``."""
    from selfconf.book.glue import page_parameters as params_of

    nb = resolve(book_dir) / f"{SECTION_PAGES[section]}.ipynb"
    return params_of(nb) if nb.is_file() else None


def endpoint_se(draws: np.ndarray, q: float, n_boot: int, h: float = DENSITY_H) -> tuple[float, float, float]:
    """``(SE, density, pooled quantile)`` of the ``q`` percentile end point of ``n_boot`` bootstrap draws.

    Definition: ``SE = sqrt(q (1 - q) / B) / f(x_q)`` (the asymptotic SD of a sample quantile), with ``x_q`` the
    ``q`` quantile of the pooled ``draws`` and ``f(x_q) = 2h / (Q(q + h) - Q(q - h))`` their empirical quantile
    function's difference quotient.  Reference: Serfling (1980), section 2.3.3; Hall (1986).

    >>> rng = np.random.default_rng(0)
    >>> se, f, x = endpoint_se(rng.normal(size=400_000), 0.025, 2000)
    >>> round(float(se / (math.sqrt(0.025 * 0.975 / 2000) / 0.0584)), 1)
    1.0
    """
    d = np.asarray(draws, dtype=float)
    d = d[np.isfinite(d)]
    lo_q, hi_q = max(q - h, 0.0), min(q + h, 1.0)
    a, x, b = np.quantile(d, [lo_q, q, hi_q])
    if b <= a:
        return float("nan"), float("inf"), float(x)
    f = (hi_q - lo_q) / (b - a)
    return math.sqrt(q * (1 - q) / n_boot) / f, float(f), float(x)


@dataclass
class Spread:
    """One canonical bootstrap claim's seed distribution and its Monte-Carlo error from the definition."""

    id: str
    section: str
    rule: str
    page_value: float
    k: int
    mean: float
    sd: float
    mc_error: float | None
    z: float | None
    quantile: float
    n_boot: int
    values: list[float] = field(default_factory=list)
    density: float | None = None
    pooled_draws: int | None = None
    ratio: float | None = None  # mc_error / sd


@dataclass
class SeedStudy:
    """The study of every computing section of one build: ``spreads`` by canonical claim id."""

    k: int
    seeds: dict[str, dict[str, Any]]
    spreads: dict[str, Spread]

    def as_json(self) -> dict:
        return {
            "k": self.k,
            "plausible_z": judging.PLAUSIBLE_Z,
            "sections": self.seeds,
            "claims": {cid: asdict(s) for cid, s in sorted(self.spreads.items())},
        }


def _section_claims(m: judging.Manifest, values: dict[str, Any]) -> list[str]:
    """The canonical bootstrap(-derived) claims a section's compute returns."""
    return sorted(
        c["id"]
        for c in m.claims
        if not c.get("same_as")
        and m.effective[c["id"]] == "bootstrap"
        and c["id"] in values
        and isinstance(values[c["id"]], (int, float))
        and not isinstance(values[c["id"]], bool)
    )


def _endpoint_draws(cid: str, v: float, recorded: list) -> tuple[float, np.ndarray] | None:
    """The recorded interval whose end point is this claim's value: ``(q, draws)``."""
    for level, draws, lo, hi in recorded:
        a = (1 - level) / 2
        if cid.endswith("_ci_lo") and lo == v:
            return a, draws
        if cid.endswith("_ci_hi") and hi == v:
            return 1 - a, draws
    return None


def _digest_files(files: list[tuple[str, Path, Path]]) -> str:
    """Digest of ``(family, family folder, file)``: each file's content and its path inside its family's folder
    (never the checkout's own location, so a shipped key holds in every clone)."""
    h = hashlib.sha256()
    for fam, base, p in sorted(set(files)):
        h.update(f"{fam}/{p.relative_to(base).as_posix()}".encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _cache_key(section: str, data_dir: Path, seed: int, n_boot: int, seeds: list[int]) -> str:
    from selfconf.book.build import code_digest
    from selfconf.data.sources import SECTION_FAMILIES, resolve_families

    src = resolve_families(data_dir, list(SECTION_FAMILIES[section]))
    files = [  # the rows the section reads: not the generators' notes (fidelity files) nor the data cards
        (f, base, p)
        for f in SECTION_FAMILIES[section]
        for base in [Path(src.path(f))]
        for p in (base.rglob("*") if base.is_dir() else [base])
        if p.is_file() and not p.name.startswith("fidelity") and p.suffix != ".md"
    ]
    key = {
        "version": VERSION,
        "section": section,
        "seed": seed,
        "n_boot": n_boot,
        "seeds": hashlib.sha256(json.dumps(seeds).encode()).hexdigest(),
        # the code the section function runs (not the book layer: editing the audit does not redo the study)
        "code": code_digest(
            SECTION_PAGES[section],
            project_root(),
            {f"selfconf.sections.{section}", "selfconf.book.glue", "selfconf.data.families", "selfconf.data.sources"},
        ),
        "data": _digest_files(files),
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


def run_section(
    section: str, data_dir: str | Path, seed: int, n_boot: int, seeds: list[int], m: judging.Manifest | None = None
) -> dict[str, Any]:
    """Run ``section``'s compute at the page ``seed`` and at every study seed: the raw study of one section.

    Returns ``{"seed", "n_boot", "page": {id: value}, "values": {id: [K values]}, "rule": {id: rule},
    "mc_error": {id: SE}, "density": {id: f}, "pooled": {id: number of pooled draws}}`` for the section's
    canonical bootstrap and bootstrap-derived claims.
    """
    from selfconf.bootstrap import recording_intervals

    m = m or judging.load_manifest()
    compute = section_runner(section, data_dir)
    page = compute(seed, n_boot).values
    ids = _section_claims(m, page)
    vals: dict[str, list[float]] = {c: [] for c in ids}
    pooled: dict[str, list[np.ndarray]] = {}
    qs: dict[str, float] = {}
    for s in seeds:
        with recording_intervals() as rec:
            got = compute(s, n_boot).values
        for cid in ids:
            v = float(got[cid])
            vals[cid].append(v)
            if m.effective[cid] == "bootstrap" and judging.judge_kind(m.by_id[cid], m.effective) == "bootstrap":
                hit = _endpoint_draws(cid, v, rec)
                if hit is not None:
                    qs[cid] = hit[0]
                    pooled.setdefault(cid, []).append(hit[1])
    rule: dict[str, str] = {}
    err: dict[str, float | None] = {}
    density: dict[str, float] = {}
    n_pooled: dict[str, int] = {}
    for cid in ids:
        c = m.by_id[cid]
        kind = judging.judge_kind(c, m.effective)
        if kind == "bootstrap" and (c.get("unit") == "p_value" or cid.endswith("_p_raw")):
            rule[cid] = "two-sided p: sqrt(p(2-p)/B) at the seeds' mean p"
            err[cid] = judging.p_value_se(float(np.mean(vals[cid])), n_boot)
        elif kind == "bootstrap" and cid in pooled and len(pooled[cid]) == len(seeds):
            d = np.concatenate(pooled[cid])
            se, f, _ = endpoint_se(d, qs[cid], n_boot)
            rule[cid] = f"quantile q = {qs[cid]:.3f}: sqrt(q(1-q)/B)/f(x_q), f from {d.size:,} pooled draws"
            err[cid], density[cid], n_pooled[cid] = se, f, int(d.size)
        elif kind == "bootstrap":
            rule[cid] = "no draws recorded for this end point"
            err[cid] = None
    for cid in ids:  # derived claims: propagated from the inputs' errors (computed above, same section)
        c = m.by_id[cid]
        if judging.judge_kind(c, m.effective) == "bootstrap-derived":
            means = {d: float(np.mean(vals[d])) for d in (c.get("depends_on") or []) if d in vals}
            known = {k: v for k, v in err.items() if v is not None}
            err[cid] = judging.monte_carlo_se(m, cid, means, judging.N_BOOT_PAPER, known)
            rule[cid] = f"derived ({c.get('derivation')}): propagated from its inputs' errors"
    return {
        "seed": seed,
        "n_boot": n_boot,
        "k": len(seeds),
        "page": {c: float(page[c]) for c in ids},
        "values": vals,
        "rule": rule,
        "mc_error": err,
        "density": density,
        "pooled": n_pooled,
    }


def _with_derived(raw: dict, m: judging.Manifest) -> dict:
    """Add the derived bootstrap claims a section's compute does not return (the page derives them, e.g. the power
    figures read off an interval) from their inputs' values at each seed, by their declared derivation."""
    raw = {**raw, "values": dict(raw["values"]), "page": dict(raw["page"]), "rule": dict(raw["rule"])}
    raw["mc_error"] = dict(raw["mc_error"])
    for c in m.claims:
        cid, deps = c["id"], list(c.get("depends_on") or [])
        if c.get("same_as") or cid in raw["values"] or judging.judge_kind(c, m.effective) != "bootstrap-derived":
            continue
        if c.get("derivation") not in judging.DERIVATIONS or not deps or not all(d in raw["values"] for d in deps):
            continue
        n = len(raw["values"][deps[0]])
        raw["values"][cid] = [judging.derive(m, cid, {d: raw["values"][d][i] for d in deps}) for i in range(n)]
        raw["page"][cid] = judging.derive(m, cid, {d: raw["page"][d] for d in deps})
        means = {d: float(np.mean(raw["values"][d])) for d in deps}
        known = {k: v for k, v in raw["mc_error"].items() if v is not None}
        raw["mc_error"][cid] = judging.monte_carlo_se(m, cid, means, judging.N_BOOT_PAPER, known)
        raw["rule"][cid] = f"derived ({c.get('derivation')}) from the page's inputs: propagated from their errors"
    return raw


def _spreads(section: str, raw: dict) -> dict[str, Spread]:
    out = {}
    for cid, vs in raw["values"].items():
        v = np.asarray(vs, dtype=float)
        page = float(raw["page"][cid])
        sd = float(v.std(ddof=1)) if v.size > 1 else float("nan")
        z = None if not sd > 0 else (page - float(v.mean())) / sd
        err = raw["mc_error"].get(cid)
        out[cid] = Spread(
            id=cid,
            section=section,
            rule=raw["rule"].get(cid, ""),
            page_value=page,
            k=int(v.size),
            mean=float(v.mean()),
            sd=sd,
            mc_error=err,
            z=z,
            quantile=float(np.mean(v <= page)),
            n_boot=int(raw["n_boot"]),
            values=[float(x) for x in v],
            density=raw["density"].get(cid),
            pooled_draws=raw["pooled"].get(cid),
            ratio=None if err is None or not sd > 0 else err / sd,
        )
    return out


def seed_study(
    book_dir: str | Path = "book",
    data_dir: str | Path | None = None,
    k: int = K_SEEDS,
    *,
    run: bool = True,
    sections: tuple[str, ...] = COMPUTING,
    log=None,
) -> SeedStudy | None:
    """The seed study of the executed book in ``book_dir`` (each section at its page's seed, draws and rows).

    A section's result is read from the cache when its key matches; otherwise it is computed (``run``) or the
    study is ``None`` (``run=False``: the audit's readers that must not compute).  Raises ``ValueError`` when a
    page's glued bootstrap values differ from the study's run at the page seed.
    """
    from selfconf.book.glue import glued_values

    m = judging.load_manifest()
    root = project_root()
    glued = glued_values(resolve(book_dir))
    spreads: dict[str, Spread] = {}
    info: dict[str, dict[str, Any]] = {}
    plan: dict[str, tuple[int, int, Path, list[int], str]] = {}
    for section in sections:
        params = page_parameters(book_dir, section)
        if params is None:
            continue
        seed, n_boot = int(params.get("seed", 0)), int(params.get("n_boot", judging.N_BOOT_PAPER))
        ddir = resolve(data_dir if data_dir is not None else params.get("data_dir", "data/reconstructed"))
        seeds = study_seeds(seed, k)
        plan[section] = (seed, n_boot, ddir, seeds, f"{section}-{_cache_key(section, ddir, seed, n_boot, seeds)}.json")
    raws = {s: _read_entry(root, name) for s, (*_, name) in plan.items()}
    missing = [s for s, raw in raws.items() if raw is None]
    if missing and not run:
        return None
    if missing:
        if log:
            log(f"seed study: {', '.join(missing)} at {k} seeds ...")
        for section, fresh in zip(missing, _run_parallel([(s, *plan[s][:4]) for s in missing]), strict=True):
            cache = root / CACHE_DIR / plan[section][4]
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            tmp.write_text(json.dumps(fresh), encoding="utf-8")
            tmp.replace(cache)
            raws[section] = fresh
    for section, (seed, n_boot, _, seeds, name) in plan.items():
        raw = raws[section]
        assert raw is not None
        for cid, v in raw["page"].items():
            g = glued.get(cid)
            if g is not None and Path(g["notebook"]).stem == SECTION_PAGES[section] and g["value"] != v:
                raise ValueError(
                    f"seed study of {section}: {cid} is {v!r} at the page seed {seed}, but the page glued "
                    f"{g['value']!r}: the study would not measure the page's function"
                )
        info[section] = {"seed": seed, "n_boot": n_boot, "k": k, "first_seeds": seeds[:5], "cache": name}
        spreads.update(_spreads(section, _with_derived(raw, m)))
    return SeedStudy(k, info, spreads)


def _read_entry(root: Path, name: str) -> dict | None:
    """A section's study under its key: the build's cache, then the shipped store; ``None`` when neither has it."""
    for folder in (CACHE_DIR, STORE_DIR):
        p = root / folder / name
        if p.is_file():
            return json.loads(p.read_text(encoding="utf-8"))
    return None


def _run_one(job: tuple[str, int, int, Path, list[int]]) -> dict[str, Any]:
    section, seed, n_boot, ddir, seeds = job
    return run_section(section, ddir, seed, n_boot, seeds)


def _run_parallel(jobs: list[tuple[str, int, int, Path, list[int]]]) -> list[dict[str, Any]]:
    """:func:`run_section` for each job, one process per section, at most one per core; results in job order.

    Each section's numbers depend only on its own seeds, so running them side by side changes no value."""
    import os
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    workers = min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        return [_run_one(j) for j in jobs]
    # spawn: a fresh interpreter per worker (the caller may be a kernel with threads, where fork is unsafe);
    # the slowest sections first, so that the pool ends together
    order = sorted(range(len(jobs)), key=lambda i: _COST.get(jobs[i][0], 0), reverse=True)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        done = dict(zip(order, pool.map(_run_one, [jobs[i] for i in order]), strict=True))
    return [done[i] for i in range(len(jobs))]


#: Relative cost of a section's study (measured once: result1 is about half of the whole), for scheduling only.
_COST = {"result1": 5, "result3": 2, "result2": 2, "design": 1, "limitations": 1}


def shipped_names() -> dict[str, str]:
    """``{section: file name}`` of each section's study at its notebook's default parameters on the shipped
    reconstruction: the entries :data:`STORE_DIR` must hold for a fresh clone's cold build to pay nothing."""
    out = {}
    for section in COMPUTING:
        p = default_parameters(section)
        seed, n_boot = int(p["seed"]), int(p["n_boot"])
        ddir = resolve(p.get("data_dir", "data/reconstructed"))
        out[section] = f"{section}-{_cache_key(section, ddir, seed, n_boot, study_seeds(seed))}.json"
    return out


def ship(log=print) -> list[Path]:
    """Write the shipped store: each section's study at its default parameters (from the build's cache, or
    computed), and remove the store's entries that no key names any more."""
    root = project_root()
    names = shipped_names()
    store = root / STORE_DIR
    store.mkdir(parents=True, exist_ok=True)
    todo = [s for s, n in names.items() if _read_entry(root, n) is None]
    if todo:
        jobs = []
        for s in todo:
            p = default_parameters(s)
            seed = int(p["seed"])
            jobs.append(
                (s, seed, int(p["n_boot"]), resolve(p.get("data_dir", "data/reconstructed")), study_seeds(seed))
            )
        log(f"seed study: {', '.join(todo)} at {K_SEEDS} seeds ...")
        for s, fresh in zip(todo, _run_parallel(jobs), strict=True):
            (root / CACHE_DIR).mkdir(parents=True, exist_ok=True)
            (root / CACHE_DIR / names[s]).write_text(json.dumps(fresh), encoding="utf-8")
    out = []
    for n in names.values():
        raw = _read_entry(root, n)
        assert raw is not None
        dst = store / n
        dst.write_text(json.dumps(raw, sort_keys=True), encoding="utf-8")
        out.append(dst)
    for old in store.glob("*.json"):
        if old.name not in names.values():
            old.unlink()
    return out


def load_study(book_dir: str | Path = "book", data_dir: str | Path | None = None) -> SeedStudy | None:
    """The cached study of this build, without computing (``None`` when a section's cache is missing)."""
    try:
        return seed_study(book_dir, data_dir, run=False)
    except (FileNotFoundError, KeyError, ValueError):
        return None


def measured_errors(study: SeedStudy | None) -> dict[str, float] | None:
    """``{canonical id: Monte-Carlo SE at the page's draws}`` for :func:`selfconf.claims.judging.monte_carlo_se`."""
    if study is None:
        return None
    return {cid: s.mc_error for cid, s in study.spreads.items() if s.mc_error is not None and s.n_boot}


def write_study(study: SeedStudy, out: str | Path = STUDY_JSON) -> Path:
    """Write the study as JSON (``k``, ``plausible_z``, ``sections``, ``claims``)."""
    p = resolve(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(study.as_json(), indent=1), encoding="utf-8")
    return p


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m selfconf.book.seedstudy", description=__doc__.split("\n")[0])
    ap.add_argument("--book-dir", default="book")
    ap.add_argument("--k", type=int, default=K_SEEDS)
    ap.add_argument("--out", default=STUDY_JSON)
    ap.add_argument(
        "--ship",
        action="store_true",
        help=f"write the shipped study ({STORE_DIR}) at the notebooks' default parameters",
    )
    a = ap.parse_args(argv)
    if a.ship:
        for p in ship():
            print(p)
        return 0
    st = seed_study(a.book_dir, k=a.k, log=print)
    if st is None:
        print("no executed computing page")
        return 1
    print(write_study(st, a.out))
    for cid, s in sorted(st.spreads.items()):
        r = "" if s.ratio is None else f"{s.ratio:.2f}"
        z = "" if s.z is None else f"{s.z:+.1f}"
        print(
            f"{cid:45s} sd {s.sd:.5f} mc {s.mc_error if s.mc_error is None else round(s.mc_error, 5)} ratio {r} z {z}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
