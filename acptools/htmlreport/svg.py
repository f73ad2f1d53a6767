"""Inline SVG bar charts for the page: every bar carries its count, and an empty bar is drawn as a
thin line with a '0' so that zero reads as zero, not as a missing bar."""

from __future__ import annotations

from html import escape


def bar_chart(labels: list[str], counts: list[int], title: str, width: int = 360, height: int = 170) -> str:
    """A vertical bar chart of `counts` (one bar per label), n in the title, values on the bars."""
    n = sum(counts)
    top = max(counts) if counts and max(counts) > 0 else 1
    left, bottom, head = 8, 34, 34
    plot_h = height - bottom - head
    slot = (width - 2 * left) / max(1, len(counts))
    parts = [f'<svg class="chart" role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)} (n={n})</title>',
             f'<text x="{width / 2:.0f}" y="14" text-anchor="middle" class="ct">{escape(title)} (n={n})</text>']
    base = head + plot_h
    for i, (label, c) in enumerate(zip(labels, counts)):
        x = left + i * slot + slot * 0.1
        w = slot * 0.8
        h = plot_h * c / top
        if c > 0:
            parts.append(f'<rect class="bar" data-count="{c}" x="{x:.1f}" y="{base - h:.1f}" width="{w:.1f}" '
                         f'height="{h:.1f}"/>')
        else:
            parts.append(f'<rect class="bar zero" data-count="0" x="{x:.1f}" y="{base - 1.5:.1f}" '
                         f'width="{w:.1f}" height="1.5"/>')
        parts.append(f'<text x="{x + w / 2:.1f}" y="{base - h - 3:.1f}" text-anchor="middle" class="cv">{c}</text>')
        parts.append(f'<text x="{x + w / 2:.1f}" y="{base + 13:.1f}" text-anchor="middle" class="cl">'
                     f'{escape(label)}</text>')
    parts.append(f'<line x1="{left}" y1="{base}" x2="{width - left}" y2="{base}" class="axis"/></svg>')
    return "".join(parts)


def histogram(values: list[float], unit_interval: bool) -> tuple[list[str], list[int]]:
    """Bins of `values`: for shares in [0, 1], ten of width 0.1 ([0, .1), ..., [.9, 1)) and one for
    exactly 1 (a perfect answer apart from a near miss); else one bin per integer from the least value
    up to 10 more, the last holding everything at or above it."""
    if unit_interval:
        counts = [0] * 11
        for v in values:
            counts[10 if v >= 1 else max(0, int(v * 10))] += 1
        return [f".{k}" if k else "0" for k in range(10)] + ["1"], counts
    lo = int(min(values))
    hi = min(int(max(values)), lo + 10)
    counts = [0] * (hi - lo + 1)
    for v in values:
        counts[min(hi, int(v)) - lo] += 1
    labels = [str(k) for k in range(lo, hi + 1)]
    if int(max(values)) > hi:
        labels[-1] = f"≥{hi}"
    return labels, counts
