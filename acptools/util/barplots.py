"""Readable bars for the --plots charts: every bar carries its value and n, and a bar of value 0 is
drawn as a thin marker at the axis so that 0% reads as 0%, not as a missing bar."""

from __future__ import annotations


def labelled_bars(ax, xs, values, width, ns=None, fmt="{:.0f}%", top=100.0, **kw):
    """ax.bar(xs, values) plus a label 'value' (and 'n=..') above each bar and a marker on each 0 bar;
    returns the bars (one Rectangle per value, zeros included)."""
    bars = ax.bar(xs, values, width, **kw)
    color = bars.patches[0].get_facecolor() if bars.patches else None
    for k, (x, v) in enumerate(zip(xs, values)):
        if v == 0:  # a thin marker of the bar's colour, 1.5% of the axis high
            ax.bar([x], [top * 0.015], width, color=color, hatch="///", edgecolor="black", linewidth=0.4, label="_zero")
        text = fmt.format(v) + (f"\nn={ns[k]}" if ns is not None else "")
        ax.annotate(
            text,
            (x, max(v, top * 0.015)),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize="x-small",
        )
    return bars
