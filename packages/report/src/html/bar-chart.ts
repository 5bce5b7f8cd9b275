import { escapeHtml } from "./escape-html.js";
import { PALETTE } from "./run-colors.js";

export interface Interval {
  low: number;
  high: number;
}

export interface BarSeries {
  name: string;
  /** One value per category; null draws a hatched "n/a" marker instead of a bar. */
  values: (number | null)[];
  /** The series' colour (the run's, where a series is a run). Default: by position. */
  color?: string;
  /** One colour per bar, where the categories are runs; overrides `color`. */
  colors?: string[];
  /** Text above each bar; default `format(value)`. */
  labels?: string[];
  /** A whisker from low to high on each bar, drawn to the axis' scale. */
  intervals?: (Interval | null)[];
}

export interface BarChartSpec {
  /** Stable id for tests and links (`data-chart`). */
  id: string;
  title: string;
  categories: string[];
  series: BarSeries[];
  /** Label printed above each bar. */
  format(value: number): string;
  /** Top of the y axis. Default: the largest value (at least a tiny positive number). */
  max?: number;
  /** A sentence under the title that says how to read the chart. */
  note?: string;
}

const WIDTH = 560;
const HEIGHT = 220;
// Room above the tallest bar for a label of two lines.
const PAD = { top: 34, right: 8, bottom: 44, left: 8 };

/**
 * An inline SVG bar chart (grouped when there are several series). Every bar carries
 * `data-series`, `data-category` and `data-value`, so a test can read the numbers back.
 */
export function barChart(spec: BarChartSpec): string {
  const values = spec.series.flatMap((s) => [
    ...s.values.filter((v): v is number => v !== null),
    ...(s.intervals ?? []).flatMap((i) => (i === null ? [] : [i.high])),
  ]);
  const max = spec.max ?? Math.max(Number.EPSILON, ...values);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const groupW = plotW / Math.max(1, spec.categories.length);
  const barW = Math.min(48, (groupW * 0.8) / spec.series.length);
  const bars = spec.categories.flatMap((category, c) =>
    spec.series.map((series, s) => {
      const x = PAD.left + c * groupW + (groupW - barW * spec.series.length) / 2 + s * barW;
      const bar: Bar = {
        category,
        value: series.values[c] ?? null,
        label: series.labels?.[c],
        interval: series.intervals?.[c] ?? null,
        color: series.colors?.[c] ?? seriesColor(series, s),
      };
      return barOf(series, bar, x, barW, max, plotH, spec.format);
    }),
  );
  const labels = spec.categories.map((category, c) => {
    const x = PAD.left + c * groupW + groupW / 2;
    return `<text class="category" x="${x.toFixed(1)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(category)}</text>`;
  });
  const legend = spec.series.length > 1 ? legendOf(spec.series) : "";
  return `<figure class="chart" data-chart="${escapeHtml(spec.id)}">
<figcaption>${escapeHtml(spec.title)}${spec.note === undefined ? "" : `<small>${escapeHtml(spec.note)}</small>`}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(spec.title)}">
<line class="axis" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}"/>
${bars.join("\n")}
${labels.join("\n")}
</svg>${legend}
</figure>`;
}

/**
 * A chart that does not apply, or has nothing to draw: its title and one line saying why,
 * in place of empty axes.
 */
export function chartMessage(id: string, title: string, message: string): string {
  return `<figure class="chart empty" data-chart="${escapeHtml(id)}" data-empty="true">
<figcaption>${escapeHtml(title)}</figcaption>
<p class="chart-message">${escapeHtml(message)}</p>
</figure>`;
}

interface Bar {
  category: string;
  value: number | null;
  label: string | undefined;
  interval: Interval | null;
  color: string;
}

function barOf(
  series: BarSeries,
  bar: Bar,
  x: number,
  width: number,
  max: number,
  plotH: number,
  format: (value: number) => string,
): string {
  const attrs = `data-series="${escapeHtml(series.name)}" data-category="${escapeHtml(bar.category)}"`;
  const base = PAD.top + plotH;
  const cx = (x + width / 2).toFixed(1);
  if (bar.value === null) {
    return `<g class="bar missing" ${attrs} data-value=""><rect x="${x.toFixed(1)}" y="${base - 14}" width="${(width - 2).toFixed(1)}" height="14" fill="url(#hatch)" stroke="#999"/><text class="value" x="${cx}" y="${base - 18}" text-anchor="middle">n/a</text></g>`;
  }
  const y = (v: number) => base - (max <= 0 ? 0 : (Math.min(v, max) / max) * plotH);
  const top = y(bar.value);
  const label = bar.label ?? format(bar.value);
  const whisker = bar.interval === null ? "" : whiskerOf(bar.interval, cx, y);
  // The label sits above the whisker when there is one, so the two never overlap.
  const labelY = Math.min(top, bar.interval === null ? top : y(bar.interval.high)) - 4;
  const range =
    bar.interval === null
      ? ""
      : ` data-interval-low="${bar.interval.low}" data-interval-high="${bar.interval.high}"`;
  return `<g class="bar" ${attrs} data-value="${bar.value}" data-label="${escapeHtml(label)}"${range}><rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(width - 2).toFixed(1)}" height="${(base - top).toFixed(1)}" fill="${bar.color}"><title>${escapeHtml(`${series.name} · ${bar.category}: ${label}`)}</title></rect>${whisker}${labelText(label, cx, labelY)}</g>`;
}

/**
 * The label above a bar. "50.0% (5/10)" goes on two lines, the counts under the figure,
 * so it stays as narrow as a bar of a grouped chart.
 */
function labelText(label: string, cx: string, y: number): string {
  const at = label.indexOf(" (");
  if (at < 0) {
    return `<text class="value" x="${cx}" y="${y.toFixed(1)}" text-anchor="middle">${escapeHtml(label)}</text>`;
  }
  const figure = escapeHtml(label.slice(0, at));
  const counts = escapeHtml(label.slice(at + 1));
  return `<text class="value" x="${cx}" y="${(y - 12).toFixed(1)}" text-anchor="middle">${figure}<tspan class="counts" x="${cx}" dy="12">${counts}</tspan></text>`;
}

function whiskerOf(interval: Interval, cx: string, y: (v: number) => number): string {
  const low = y(interval.low).toFixed(1);
  const high = y(interval.high).toFixed(1);
  return `<line class="whisker" x1="${cx}" x2="${cx}" y1="${low}" y2="${high}"/>`;
}

function seriesColor(series: BarSeries, index: number): string {
  return series.color ?? (PALETTE[index % PALETTE.length] as string);
}

/** Under the chart in HTML, so a legend of many runs wraps instead of running off the chart. */
function legendOf(series: readonly BarSeries[]): string {
  const items = series.map(
    (s, i) =>
      `<span class="key" data-series="${escapeHtml(s.name)}" data-color="${seriesColor(s, i)}"><i style="background:${seriesColor(s, i)}"></i>${escapeHtml(s.name)}</span>`,
  );
  return `\n<div class="legend">${items.join("")}</div>`;
}

/** The hatch pattern "n/a" bars use; defined once per page. */
export const SVG_DEFS = `<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#bbb" stroke-width="2"/></pattern></defs></svg>`;
