"""``selfconf compare``: two arms (two files, two models of one file, or two runs in a ``--by`` column) compared
on the items both answered: paired differences of AUROC, ECE, Brier, accuracy and AURC with item-clustered
paired bootstrap intervals and p-values, Holm's adjustment over the metrics, and DeLong's test for the AUROC
difference beside the bootstrap.

Definitions
-----------
* An arm's rows are read and validated as ``selfconf report`` reads them (:func:`selfconf.report.core.load_rows`);
  rows the report excludes (no confidence, ungraded) are excluded here too and counted.  The *shared items*
  are the item ids with a used row in both arms; items of one arm only are dropped and counted.
* Every statistic is the report's (:func:`selfconf.metrics.counts_statistics` on the shared items, with the
  report's ECE options); a difference is arm A minus arm B.
* Bootstrap: :func:`selfconf.stats.paired.paired_item_counts` draws the shared items with replacement, one set
  of multiplicities for both arms (paired, clustered on items), from ``stream(seed, "compare", pair)``.  The
  interval is the percentile interval of the differences; the p-value is min(1, 2 min(share of draws <= 0,
  share >= 0)) (draws equal to 0 count on both sides), as :func:`selfconf.bootstrap.paired_auroc_contrast`;
  Holm's step-down adjustment (:func:`selfconf.bootstrap.holm`) runs over the metrics of one pair.
* DeLong: :func:`selfconf.stats.paired.delong_paired` (z test of the AUROC difference).

Nothing depends on row order: the shared items are taken in sorted order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from selfconf import bootstrap, metrics
from selfconf.claims.judging import fmt_p
from selfconf.report import core
from selfconf.report.core import EXCLUSION_REASONS, Rows
from selfconf.stats.paired import delong_paired, paired_item_counts
from selfconf.stats.streams import stream

__all__ = [
    "COMPARE_METRICS",
    "COMPARE_OPTIONS",
    "compare",
    "compare_html",
    "compare_rows",
    "format_compare",
    "pairs_of",
]

#: Metrics compared, in output order (JSON key, terminal label, printed in percent?).
COMPARE_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("auroc", "AUROC", False),
    ("ece", "ECE", False),
    ("brier", "Brier", False),
    ("accuracy", "accuracy", True),
    ("aurc", "AURC", False),
)


def _arm(rows: Rows, mask: np.ndarray) -> dict[str, Any]:
    """Item ids, confidences and correctness of an arm's used rows, with its exclusions per reason."""
    reasons = rows.reasons()
    used = mask & (reasons == -1)
    assert rows.items is not None, "read the rows with keep_items=True"
    excluded = {k: int(np.sum(mask & (reasons == i))) for i, k in enumerate(EXCLUSION_REASONS)}
    return {
        "items": rows.items[used].astype(str),
        "confidence": rows.confidence[used],
        "correct": rows.correct[used],
        "excluded": excluded,
    }


def pairs_of(
    rows_a: Rows, rows_b: Rows | None = None, *, models: Sequence[str] | None = None, by: str | None = None
) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """The arms to compare as ``(label A, label B, arm A, arm B)``.

    Rules: ``models=(X, Y)``: model X (of ``rows_a``) against model Y (of ``rows_b``, else of ``rows_a``).
    ``by``: within every model of ``rows_a``, the first value of the ``by`` column against the second (the column
    must hold exactly two values).  Otherwise two inputs: every model present in both, A against B; two inputs of
    one model each (different names): those two.  Anything else is a ``ValueError`` saying what to pass.

    Example: ``pairs_of(rows, models=["gpt", "claude"])`` -> ``[("gpt", "claude", {...}, {...})]``.
    """
    if models is not None:
        if len(models) != 2:
            raise ValueError(f"--models: give two model names, X,Y; got {len(models)}")
        src_b = rows_b if rows_b is not None else rows_a
        arms = []
        for name, rows in ((models[0], rows_a), (models[1], src_b)):
            hit = np.flatnonzero(rows.models == name)
            if not hit.size:
                raise ValueError(
                    f"--models: no model {name!r} in {', '.join(rows.inputs)} (has: {_names(rows.models)})"
                )
            arms.append(_arm(rows, rows.model == hit[0]))
        return [(str(models[0]), str(models[1]), arms[0], arms[1])]
    if by is not None:
        if rows_b is not None:
            raise ValueError("--by compares two runs inside one input; pass one file (or leave out --by)")
        assert rows_a.groups is not None and rows_a.group is not None
        if rows_a.groups.size != 2:
            raise ValueError(
                f"--by {by}: compare needs exactly two values, found {rows_a.groups.size} ({_names(rows_a.groups)})"
            )
        g0, g1 = (str(g) for g in rows_a.groups)
        out = []
        for k, m in enumerate(rows_a.models):
            mine = rows_a.model == k
            out.append(
                (
                    f"{m} {by}={g0}",
                    f"{m} {by}={g1}",
                    _arm(rows_a, mine & (rows_a.group == 0)),
                    _arm(rows_a, mine & (rows_a.group == 1)),
                )
            )
        return out
    if rows_b is None:
        if rows_a.models.size == 2:
            m0, m1 = (str(m) for m in rows_a.models)
            return [(m0, m1, _arm(rows_a, rows_a.model == 0), _arm(rows_a, rows_a.model == 1))]
        raise ValueError(
            f"one input with {rows_a.models.size} model(s) ({_names(rows_a.models)}): pass a second file, "
            "--models X,Y or --by RUN"
        )
    shared = sorted(set(rows_a.models.tolist()) & set(rows_b.models.tolist()))
    if shared:
        out = []
        for m in shared:
            ka = int(np.flatnonzero(rows_a.models == m)[0])
            kb = int(np.flatnonzero(rows_b.models == m)[0])
            out.append((f"{m} (A)", f"{m} (B)", _arm(rows_a, rows_a.model == ka), _arm(rows_b, rows_b.model == kb)))
        return out
    if rows_a.models.size == 1 and rows_b.models.size == 1:
        a, b = str(rows_a.models[0]), str(rows_b.models[0])
        return [(a, b, _arm(rows_a, rows_a.model == 0), _arm(rows_b, rows_b.model == 0))]
    raise ValueError(
        f"the two inputs share no model (A: {_names(rows_a.models)}; B: {_names(rows_b.models)}); "
        "pass --models X,Y to say which two to compare"
    )


def _names(a: np.ndarray, k: int = 6) -> str:
    vals = [str(v) for v in a.tolist()]
    return ", ".join(vals[:k]) + (f", ... ({len(vals)} in all)" if len(vals) > k else "")


def _compare_pair(
    label_a: str,
    label_b: str,
    arm_a: dict[str, Any],
    arm_b: dict[str, Any],
    *,
    seed: int,
    n_boot: int,
    level: float,
    options: dict[str, Any],
) -> dict[str, Any]:
    shared, ia, ib = np.intersect1d(arm_a["items"], arm_b["items"], assume_unique=True, return_indices=True)
    n = int(shared.size)
    rec: dict[str, Any] = {
        "a": label_a,
        "b": label_b,
        "n_items_shared": n,
        "n_items_only_a": int(arm_a["items"].size - n),
        "n_items_only_b": int(arm_b["items"].size - n),
        "excluded_a": arm_a["excluded"],
        "excluded_b": arm_b["excluded"],
    }
    if n == 0:
        raise ValueError(f"{label_a} and {label_b} share no item with a usable row; nothing to compare")
    ca, ya = arm_a["confidence"][ia], arm_a["correct"][ia]
    cb, yb = arm_b["confidence"][ib], arm_b["correct"][ib]
    keys = [k for k, _, _ in COMPARE_METRICS]
    stats = {"ece", "auroc", "aurc"}
    est_a = metrics.counts_statistics(*metrics.level_counts(ca, ya), statistics=stats, **options)
    est_b = metrics.counts_statistics(*metrics.level_counts(cb, yb), statistics=stats, **options)
    (la, pa, qa), (lb, pb, qb), _ = paired_item_counts(
        ca, ya, cb, yb, n_boot=n_boot, rng=stream(seed, "compare", label_a, label_b)
    )
    draws_a = metrics.counts_statistics(la, pa, qa, statistics=stats, **options)
    draws_b = metrics.counts_statistics(lb, pb, qb, statistics=stats, **options)
    out = {}
    pvals = []
    for k in keys:
        a, b = float(est_a[k][0]), float(est_b[k][0])
        d = draws_a[k] - draws_b[k]
        lo, hi, n_bad = bootstrap.interval_or_nan(d, level)
        ok = d[np.isfinite(d)]
        p = float(min(1.0, 2.0 * min(np.mean(ok <= 0.0), np.mean(ok >= 0.0)))) if ok.size else math.nan
        pvals.append(p)
        diff = a - b
        out[k] = {
            "a": a,
            "b": b,
            "difference": diff,
            "ci_low": lo,
            "ci_high": hi,
            "p_value": p,
            "n_invalid_draws": n_bad,
            "interval_flag": ""
            if math.isnan(lo)
            else (core.interval_flag(diff, lo, hi, rows=n, n_boot=n_boot - n_bad, unit="items") or ""),  # defined draws
        }
    valid = [i for i, p in enumerate(pvals) if not math.isnan(p)]
    adj = bootstrap.holm([pvals[i] for i in valid]) if valid else np.array([])
    for k in keys:
        out[k]["p_holm"] = math.nan
    for i, v in zip(valid, adj, strict=True):
        out[keys[i]]["p_holm"] = float(v)
    rec["metrics"] = out
    try:
        rec["delong"] = delong_paired(ca, ya, cb, yb)
    except ValueError as exc:
        rec["delong"] = {"unavailable": str(exc)}
    return rec


#: The options ``selfconf compare`` reads (its ECE is on equal-width bins; the others are the report's alone).
COMPARE_OPTIONS = ("seed", "n_boot", "level", "ece_bins", "ece_edge", "ece_snap")


def _compare_options(options: core.ReportOptions | None, keywords: dict[str, Any]) -> core.ReportOptions:
    """The options of a comparison (:class:`selfconf.report.core.ReportOptions`), from ``options=`` or the keywords
    of :data:`COMPARE_OPTIONS`; another keyword, or equal-mass bins, is an error (compare would ignore it)."""
    other = sorted(set(keywords) - set(COMPARE_OPTIONS))
    if other:
        raise TypeError(f"compare: unexpected keyword argument(s) {', '.join(map(repr, other))}")
    opts = core.ReportOptions.resolve(options, keywords)
    if opts.ece.binning != "equal_width":
        raise ValueError(f"--ece-binning must be equal_width for compare, got {opts.ece.binning!r}")
    return opts


def compare_rows(
    rows_a: Rows,
    rows_b: Rows | None = None,
    *,
    models: Sequence[str] | None = None,
    by: str | None = None,
    options: core.ReportOptions | None = None,
    **keywords: Any,
) -> dict[str, Any]:
    """The comparison of validated rows (read with ``keep_items=True``) as a JSON-ready dict.

    Definition: see the module docstring; arms from :func:`pairs_of`.  Options: ``options=``
    (:class:`selfconf.report.core.ReportOptions`) or the keywords ``seed``, ``n_boot``, ``level``, ``ece_bins``,
    ``ece_edge``, ``ece_snap`` (validated in one place).  Reference: DeLong et al. (1988); Efron &
    Tibshirani (1993), Ch. 16; Holm (1979).

    Example: ``compare_rows(load_rows(["a.csv"], keep_items=True), load_rows(["b.csv"], keep_items=True))``.
    """
    opts = _compare_options(options, keywords)
    seed, n_boot, level = opts.seed, opts.n_boot, opts.level
    ece_bins, ece_edge, ece_snap = opts.ece.n_bins, opts.ece.edge, opts.ece.snap
    ece = {"n_bins": ece_bins, "edge": ece_edge, "snap": ece_snap}
    pairs = [
        _compare_pair(a, b, arm_a, arm_b, seed=seed, n_boot=n_boot, level=level, options=ece)
        for a, b, arm_a, arm_b in pairs_of(rows_a, rows_b, models=models, by=by)
    ]
    return {
        "settings": {
            "seed": seed,
            "n_boot": n_boot,
            "level": level,
            "ece_bins": ece_bins,
            "ece_edge": ece_edge,
            "ece_snap": ece_snap,
            "confidence_scale_a": rows_a.scale,
            "confidence_scale_b": (rows_b or rows_a).scale,
            "inputs_a": list(rows_a.inputs),
            "inputs_b": list((rows_b or rows_a).inputs),
        },
        "conventions": _conventions(n_boot, level, seed, ece_bins, ece_edge, ece_snap),
        "pairs": pairs,
    }


def compare(
    df_a: Any,
    df_b: Any = None,
    *,
    models: Sequence[str] | None = None,
    by: str | None = None,
    confidence_scale: str = "auto",
    options: core.ReportOptions | None = None,
    **keywords: Any,
) -> dict[str, Any]:
    """Compare two arms given as DataFrames with the report's columns (``model``, ``item_id``, ``confidence``,
    ``correct``; ``by`` for two runs in one frame): :func:`compare_rows` on
    :func:`selfconf.report.core.rows_from_frame`.

    Definition: paired differences (A minus B) on shared items with item-clustered paired bootstrap intervals,
    p-values and Holm's adjustment, and DeLong's test of the AUROC difference (module docstring).

    References: DeLong, DeLong & Clarke-Pearson (1988); Holm (1979); Efron & Tibshirani (1993).

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"model": "a", "item_id": range(40), "confidence": [0.9, 0.6, 0.7, 0.4] * 10,
    ...                   "correct": [1, 0, 1, 0] * 10})
    >>> b = a.assign(model="b", confidence=[0.6, 0.9, 0.7, 0.4] * 10)
    >>> r = compare(a, b, n_boot=200)
    >>> p = r["pairs"][0]
    >>> p["n_items_shared"], round(p["metrics"]["auroc"]["difference"], 3)
    (40, 0.5)
    """
    opts = _compare_options(options, keywords)
    scale = confidence_scale
    rows_a = core.rows_from_frame(
        df_a, by=by, source="frame A", runs=by is not None, confidence_scale=scale, keep_items=True
    )
    rows_b = (
        None if df_b is None else core.rows_from_frame(df_b, source="frame B", confidence_scale=scale, keep_items=True)
    )
    return compare_rows(rows_a, rows_b, models=models, by=by, options=opts)


def _conventions(n_boot: int, level: float, seed: int, bins: int, edge: str, snap: bool) -> list[str]:
    ece = (
        f"ECE: {bins} equal-width bins, edge rule {edge!r}"
        + ("" if snap else ", no snapping")
        + (
            " (scikit-learn's calibration_curve bins)"
            if edge == "lower" and not snap
            else "; scikit-learn's convention: --ece-sklearn (= --ece-edge lower --no-ece-snap)"
        )
    )
    return [
        ece,
        "differences are A minus B on the items both arms answered (rows without a confidence or ungraded are "
        "excluded first, as in selfconf report)",
        f"intervals: {100 * level:g}% percentile item-clustered paired bootstrap (the same items drawn for both "
        f"arms), {n_boot} draws, seed {seed}; p: min(1, 2 min(P(d* <= 0), P(d* >= 0))); Holm over the "
        f"{len(COMPARE_METRICS)} metrics of each pair",
        "DeLong: z test of the AUROC difference, variance from the placement values (DeLong et al. 1988; Sun & Xu "
        "2014); when the arms' right/wrong labels differ, the covariance is the sum over shared items of the two "
        "arms' standardised placement terms",
    ]


def _fmt(x: float, pct: bool) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{100 * x:.1f}" if pct else f"{x:.3f}"


def _p(x: float) -> str:
    return fmt_p(x, missing="-")


def format_compare(result: dict[str, Any]) -> str:
    """Plain-text comparison for the terminal (fits 100 columns): conventions first, then one block per pair.

    Example: ``print(format_compare(compare(a, b)))``.
    """
    out = list(result["conventions"])
    for rec in result["pairs"]:
        out += [
            "",
            f"A = {rec['a']}   B = {rec['b']}",
            f"items shared {rec['n_items_shared']}, dropped {rec['n_items_only_a']} (A only) and "
            f"{rec['n_items_only_b']} (B only); excluded rows A {sum(rec['excluded_a'].values())}, "
            f"B {sum(rec['excluded_b'].values())}",
        ]
        head = ["metric", "A", "B", "A - B", "95% interval", "p", "p (Holm)"]
        body = []
        for k, label, pct in COMPARE_METRICS:
            m = rec["metrics"][k]
            lab = label + (" (%)" if pct else "")
            mark = " *" if m["interval_flag"] else ""
            body.append(
                [
                    lab,
                    _fmt(m["a"], pct),
                    _fmt(m["b"], pct),
                    _fmt(m["difference"], pct),
                    f"[{_fmt(m['ci_low'], pct)}, {_fmt(m['ci_high'], pct)}]{mark}",
                    _p(m["p_value"]),
                    _p(m["p_holm"]),
                ]
            )
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
        for cells in [head, ["-" * w for w in widths], *body]:
            out.append(
                "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
                )
            )
        for k, label, _ in COMPARE_METRICS:
            if rec["metrics"][k]["interval_flag"]:
                out.append(f"  * {label}: {rec['metrics'][k]['interval_flag']}")
        d = rec["delong"]
        if "unavailable" in d:
            out.append(f"DeLong: not computed ({d['unavailable']})")
        else:
            out.append(
                f"DeLong: AUROC difference {d['difference']:.4f}, SE {d['se']:.4f}, z {d['z']:.2f}, "
                f"p {_p(d['p_two_sided'])}" + ("" if d["same_labels"] else " (arms' right/wrong labels differ)")
            )
    return "\n".join(out)


def compare_html(result: dict[str, Any]) -> str:
    """A self-contained offline HTML page of the comparison, in the report page's style (no script at all).

    Example: ``Path("cmp.html").write_text(compare_html(compare(a, b)))``.
    """
    import html as _html

    from selfconf.report.html import PAGE_CSS

    esc = _html.escape
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>selfconf compare</title>\n<style>\n{PAGE_CSS}</style>\n</head>\n<body>\n"
        "<h1>Paired comparison</h1>\n",
        '<ul class="note">' + "".join(f"<li>{esc(c)}</li>" for c in result["conventions"]) + "</ul>\n",
    ]
    for rec in result["pairs"]:
        parts.append(f"<h2>A = {esc(rec['a'])}, B = {esc(rec['b'])}</h2>\n")
        parts.append(
            f'<p class="note">items shared {rec["n_items_shared"]}, dropped {rec["n_items_only_a"]} (A only) and '
            f"{rec['n_items_only_b']} (B only); excluded rows A {sum(rec['excluded_a'].values())}, "
            f"B {sum(rec['excluded_b'].values())}</p>\n"
        )
        head = ["metric", "A", "B", "A - B", "95% interval", "p", "p (Holm)"]
        rows = []
        for k, label, pct in COMPARE_METRICS:
            m = rec["metrics"][k]
            flag = m["interval_flag"]
            ci = f"[{_fmt(m['ci_low'], pct)}, {_fmt(m['ci_high'], pct)}]"
            ci_td = (
                f'<td class="flag" data-interval-flag="{esc(flag)}" title="{esc(flag)}">{esc(ci)} *</td>'
                if flag
                else f"<td>{esc(ci)}</td>"
            )
            cells = [label + (" (%)" if pct else ""), _fmt(m["a"], pct), _fmt(m["b"], pct), _fmt(m["difference"], pct)]
            rows.append(
                f'<tr data-metric="{k}">'
                + "".join(f"<td>{esc(c)}</td>" for c in cells)
                + ci_td
                + f"<td>{esc(_p(m['p_value']))}</td><td>{esc(_p(m['p_holm']))}</td></tr>"
            )
        parts.append(
            '<div class="table-box"><table><thead><tr>'
            + "".join(f"<th>{esc(h)}</th>" for h in head)
            + "</tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table></div>\n"
        )
        d = rec["delong"]
        text = (
            f"DeLong: not computed ({d['unavailable']})"
            if "unavailable" in d
            else f"DeLong: AUROC difference {d['difference']:.4f}, SE {d['se']:.4f}, z {d['z']:.2f}, "
            f"p {_p(d['p_two_sided'])}"
        )
        parts.append(f'<p class="note">{esc(text)}</p>\n')
    parts.append("</body>\n</html>\n")
    return "".join(parts)
