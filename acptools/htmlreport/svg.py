"""Inline SVG bar charts for the page: several series (models) side by side in each bin on one axis,
every bar carrying its count, and an empty bar drawn as a thin line with a '0' so that zero reads as
zero, not as a missing bar."""

from __future__ import annotations

from html import escape

# one colour per series, told apart in print and by colour-blind readers (Okabe & Ito's palette)
COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000")
MAX_SERIES = len(COLOURS)


def grouped_bar_chart(labels: list[str], series: dict[str, list[int]], title: str, height: int = 190) -> str:
    """A vertical bar chart with one bin per label and, in each bin, one bar per series (a model) in
    its colour, all on one y axis; a legend names each series with its n. At most MAX_SERIES series
    (the first ones): more would not be told apart."""
    names = list(series)[:MAX_SERIES]
    top = max([max(series[m], default=0) for m in names] + [1])
    slot_w = max(30, 9 * len(names) + 8)
    left, bottom, head = 8, 34, 34 + 14 * len(names)
    width = max(360, 2 * left + slot_w * len(labels))
    plot_h = height - bottom - 34
    height += 14 * len(names)
    base = head + plot_h
    bar_w = (slot_w - 6) / max(1, len(names))
    parts = [
        f'<svg class="chart" role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
        f'<text x="{width / 2:.0f}" y="14" text-anchor="middle" class="ct">{escape(title)}</text>',
    ]
    for k, m in enumerate(names):
        y = 28 + 14 * k
        parts.append(
            f'<rect x="{left}" y="{y - 9}" width="10" height="10" fill="{COLOURS[k]}"/>'
            f'<text x="{left + 14}" y="{y}" class="cl" data-legend="{escape(m, quote=True)}">'
            f"{escape(m)} (n={sum(series[m])})</text>"
        )
    for i, label in enumerate(labels):
        x0 = left + i * slot_w + 3
        for k, m in enumerate(names):
            parts.append(_bar(x0 + k * bar_w, bar_w, base, plot_h, series[m][i], top, COLOURS[k], m))
        parts.append(
            f'<text x="{x0 + (slot_w - 6) / 2:.1f}" y="{base + 13:.1f}" text-anchor="middle" class="cl">'
            f"{escape(label)}</text>"
        )
    parts.append(f'<line x1="{left}" y1="{base}" x2="{width - left}" y2="{base}" class="axis"/></svg>')
    return "".join(parts)


def _bar(x: float, w: float, base: float, plot_h: float, count: int, top: int, colour: str, name: str) -> str:
    """One bar with its count above it (a zero is a thin line, so it reads as zero)."""
    h = plot_h * count / top if count > 0 else 1.5
    value = (
        f'<text x="{x + w / 2:.1f}" y="{base - h - 3:.1f}" text-anchor="middle" class="cv">{count}</text>'
        if count or w >= 8
        else ""
    )
    return (
        f'<rect class="bar{"" if count else " zero"}" data-model="{escape(name, quote=True)}" data-count="{count}" '
        f'x="{x:.1f}" y="{base - h:.1f}" width="{max(1.0, w - 1):.1f}" height="{h:.1f}" fill="{colour}"/>{value}'
    )


def histogram(values: dict[str, list[float]], unit_interval: bool) -> tuple[list[str], dict[str, list[int]]]:
    """Bins shared by every series of `values` and each series' counts in them: for shares in [0, 1],
    ten of width 0.1 ([0, .1), ..., [.9, 1)) and one for exactly 1 (a perfect answer apart from a near
    miss); else one bin per integer from the least value up to 10 more, the last holding everything
    at or above it."""
    if unit_interval:
        labels = [f".{k}" if k else "0" for k in range(10)] + ["1"]
        return labels, {m: _counts(vs, lambda v: 10 if v >= 1 else max(0, int(v * 10)), 11) for m, vs in values.items()}
    every = [v for vs in values.values() for v in vs]
    lo = int(min(every))
    hi = min(int(max(every)), lo + 10)
    labels = [str(k) for k in range(lo, hi + 1)]
    if int(max(every)) > hi:
        labels[-1] = f"≥{hi}"
    return labels, {m: _counts(vs, lambda v: min(hi, int(v)) - lo, hi - lo + 1) for m, vs in values.items()}


def _counts(values: list[float], bin_of, n: int) -> list[int]:
    counts = [0] * n
    for v in values:
        counts[bin_of(v)] += 1
    return counts
