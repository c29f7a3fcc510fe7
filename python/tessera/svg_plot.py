"""Line plots written as SVG text, with no plotting library: benchmark sweeps
(`tessera.compat.triton.testing.perf_report`) are saved as pictures on
machines that have neither matplotlib nor a display."""

import math
from html import escape

WIDTH, HEIGHT = 720, 440
LEFT, RIGHT, TOP, BOTTOM = 80, 40, 40, 60
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f"]
# matplotlib's line styles as SVG dash patterns.
DASHES = {"-": "", "solid": "", "--": "6,4", "dashed": "6,4", ":": "2,3", "dotted": "2,3",
          "-.": "6,3,2,3", "dashdot": "6,3,2,3"}


class Series:
    """One line: its label, points (x, y), and optionally the band
    (x, low, high) drawn around it, a CSS colour and a matplotlib line style."""

    def __init__(self, label, points, band=None, color=None, style="-"):
        self.label, self.points, self.band = label, points, band or []
        self.color, self.style = color, style


class _Axis:
    """Maps data values to pixels along one axis, linearly or in log10."""

    def __init__(self, values, log, start, end):
        self.log = log
        usable = [v for v in values if v is not None and (v > 0 or not log)]
        if not usable:
            usable = [1.0]
        low, high = min(usable), max(usable)
        if not log:
            low = min(low, 0.0)
        if log:
            low, high = math.log10(low), math.log10(high)
        if high == low:
            high = low + 1
        self.low, self.high, self.start, self.end = low, high, start, end

    def pixel(self, value):
        v = math.log10(value) if self.log else value
        return self.start + (v - self.low) / (self.high - self.low) * (self.end - self.start)

    def ticks(self):
        if self.log:
            decades = [10.0 ** e for e in range(math.ceil(self.low), math.floor(self.high) + 1)]
            if len(decades) >= 3:
                return decades
            # Less than three decades: powers of two, as sweeps over sizes use.
            first, last = math.ceil(self.low / math.log10(2)), math.floor(self.high / math.log10(2))
            step = max(1, math.ceil((last - first + 1) / 8))
            return [2.0 ** e for e in range(first, last + 1, step)]
        step = _nice_step((self.high - self.low) / 5)
        first = math.ceil(self.low / step) * step
        count = int(math.floor((self.high - first) / step + 1e-9)) + 1
        return [first + i * step for i in range(count)]


def _nice_step(raw):
    """1, 2 or 5 times a power of ten, at least `raw`."""
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _label(value):
    return f"{value:g}"


def line_plot(series, title="", x_label="", y_label="", x_log=False, y_log=False):
    """The SVG document of `series` (a list of Series) on shared axes."""
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points] + [v for s in series for _, lo, hi in s.band
                                                      for v in (lo, hi)]
    x_axis = _Axis(xs, x_log, LEFT, WIDTH - RIGHT)
    y_axis = _Axis(ys, y_log, HEIGHT - BOTTOM, TOP)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="15">'
           f'{escape(title)}</text>']
    for tick in x_axis.ticks():
        px = x_axis.pixel(tick)
        out.append(f'<line x1="{px:.1f}" y1="{TOP}" x2="{px:.1f}" y2="{HEIGHT - BOTTOM}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{px:.1f}" y="{HEIGHT - BOTTOM + 16}" '
                   f'text-anchor="middle">{_label(tick)}</text>')
    for tick in y_axis.ticks():
        py = y_axis.pixel(tick)
        out.append(f'<line x1="{LEFT}" y1="{py:.1f}" x2="{WIDTH - RIGHT}" y2="{py:.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">{_label(tick)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" '
               f'height="{HEIGHT - TOP - BOTTOM}" fill="none" stroke="black"/>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 18}" '
               f'text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text x="18" y="{(TOP + HEIGHT - BOTTOM) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 18 {(TOP + HEIGHT - BOTTOM) / 2})">{escape(y_label)}</text>')

    def plotted(x, y):
        return x is not None and y is not None and (x > 0 or not x_log) and (y > 0 or not y_log)

    for i, s in enumerate(series):
        color = escape(s.color or PALETTE[i % len(PALETTE)])
        band = [(x, lo, hi) for x, lo, hi in s.band if plotted(x, lo) and plotted(x, hi)]
        if band:
            edge = [(x_axis.pixel(x), y_axis.pixel(hi)) for x, _, hi in band] + \
                   [(x_axis.pixel(x), y_axis.pixel(lo)) for x, lo, _ in reversed(band)]
            out.append(f'<polygon points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in edge)}" '
                       f'fill="{color}" fill-opacity="0.15" stroke="none"/>')
        points = [(x_axis.pixel(x), y_axis.pixel(y)) for x, y in s.points if plotted(x, y)]
        dash = DASHES.get(s.style or "-", "")
        stroke = f'stroke="{color}" stroke-width="2"'
        if dash:
            stroke += f' stroke-dasharray="{dash}"'
        out.append(f'<polyline points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in points)}" '
                   f'fill="none" {stroke}/>')
        ly = TOP + 16 + 18 * i
        out.append(f'<line x1="{LEFT + 10}" y1="{ly - 4}" x2="{LEFT + 34}" y2="{ly - 4}" '
                   f'{stroke}/>')
        out.append(f'<text x="{LEFT + 40}" y="{ly}">{escape(s.label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
