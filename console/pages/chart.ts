/**
 * A bar chart as inline SVG, drawn on the server: no script, and no inline style (the CSP has
 * no 'unsafe-inline'), so colours are classes in console.css and geometry is attributes. It
 * has a title and a description for screen readers, and the table beside it holds every number.
 */
import { html, type SafeHtml } from '../../web/html.js';

/** One series: its label in the legend and its class (its colour in console.css). */
export interface Series {
  label: string;
  className: string;
}

/** One group of bars: its label under the axis and one value per series (kobo or a count). */
export interface BarGroup {
  label: string;
  values: readonly number[];
}

/** The drawing's size in its own units; the stylesheet scales it to the page's width. */
const WIDTH = 720;
const HEIGHT = 240;
const MARGIN_BOTTOM = 40;
const MARGIN_TOP = 10;
const MARGIN_LEFT = 10;
/** One period alone would make bars as wide as the chart; they stay bars. */
const MAX_BAR_WIDTH = 48;
/** More periods than this and the labels under the axis would overlap: every nth is shown. */
const MAX_AXIS_LABELS = 12;

export function barChart(
  id: string,
  title: string,
  description: string,
  series: readonly Series[],
  groups: readonly BarGroup[],
): SafeHtml {
  const values = groups.flatMap((g) => g.values);
  const top = Math.max(0, ...values);
  const bottom = Math.min(0, ...values);
  const span = top - bottom || 1;
  const plotHeight = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
  const y = (value: number) => MARGIN_TOP + ((top - value) / span) * plotHeight;
  const slot = (WIDTH - MARGIN_LEFT) / Math.max(groups.length, 1);
  const barWidth = Math.min(MAX_BAR_WIDTH, Math.max(1, (slot * 0.8) / Math.max(series.length, 1)));
  const every = Math.max(1, Math.ceil(groups.length / MAX_AXIS_LABELS));
  const round = (n: number) => Math.round(n * 10) / 10;
  const bars = groups.map((group, i) => {
    const x0 = MARGIN_LEFT + i * slot + slot * 0.1;
    return html`${group.values.map((value, s) => {
      const yTop = y(Math.max(value, 0));
      const height = Math.max(Math.abs(y(value) - y(0)), value === 0 ? 0 : 1);
      return html`<rect class="${series[s]?.className ?? ''}" x="${round(x0 + s * barWidth)}" y="${round(yTop)}" \
width="${round(barWidth)}" height="${round(height)}"></rect>`;
    })}${
      i % every === 0
        ? html`<text class="axis" x="${round(x0)}" y="${HEIGHT - MARGIN_BOTTOM + 16}">${group.label}</text>`
        : ''
    }`;
  });
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc">
<title id="${id}-title">${title}</title>
<desc id="${id}-desc">${description}</desc>
${bars}
<line class="zero" x1="${MARGIN_LEFT}" x2="${WIDTH}" y1="${round(y(0))}" y2="${round(y(0))}"></line>
</svg>
<figcaption>${series.map((s) => html`<span class="key ${s.className}">${s.label}</span> `)}</figcaption>
</figure>`;
}
