import { escapeHtml } from "./escape-html.js";

export interface BarSeries {
  name: string;
  /** One value per category; null draws a hatched "n/a" marker instead of a bar. */
  values: (number | null)[];
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
const PAD = { top: 24, right: 8, bottom: 44, left: 8 };
const COLORS = ["#2f6fdf", "#e08a1e", "#2a9d5c", "#a347ba"];

/**
 * An inline SVG bar chart (grouped when there are several series). Every bar carries
 * `data-series`, `data-category` and `data-value`, so a test can read the numbers back.
 */
export function barChart(spec: BarChartSpec): string {
  const values = spec.series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const max = spec.max ?? Math.max(Number.EPSILON, ...values);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const groupW = plotW / Math.max(1, spec.categories.length);
  const barW = Math.min(48, (groupW * 0.8) / spec.series.length);
  const bars = spec.categories.flatMap((category, c) =>
    spec.series.map((series, s) => {
      const x = PAD.left + c * groupW + (groupW - barW * spec.series.length) / 2 + s * barW;
      return barOf(series, s, category, series.values[c] ?? null, x, barW, max, plotH, spec.format);
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
${legend}
</svg>
</figure>`;
}

function barOf(
  series: BarSeries,
  seriesIndex: number,
  category: string,
  value: number | null,
  x: number,
  width: number,
  max: number,
  plotH: number,
  format: (value: number) => string,
): string {
  const attrs = `data-series="${escapeHtml(series.name)}" data-category="${escapeHtml(category)}"`;
  const base = PAD.top + plotH;
  const cx = (x + width / 2).toFixed(1);
  if (value === null) {
    return `<g class="bar missing" ${attrs} data-value=""><rect x="${x.toFixed(1)}" y="${base - 14}" width="${(width - 2).toFixed(1)}" height="14" fill="url(#hatch)" stroke="#999"/><text class="value" x="${cx}" y="${base - 18}" text-anchor="middle">n/a</text></g>`;
  }
  const h = max <= 0 ? 0 : (Math.min(value, max) / max) * plotH;
  const color = COLORS[seriesIndex % COLORS.length];
  return `<g class="bar" ${attrs} data-value="${value}"><rect x="${x.toFixed(1)}" y="${(base - h).toFixed(1)}" width="${(width - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"><title>${escapeHtml(`${series.name} · ${category}: ${format(value)}`)}</title></rect><text class="value" x="${cx}" y="${(base - h - 4).toFixed(1)}" text-anchor="middle">${escapeHtml(format(value))}</text></g>`;
}

function legendOf(series: readonly BarSeries[]): string {
  const items = series.map((s, i) => {
    const x = PAD.left + i * 140;
    return `<g class="legend"><rect x="${x}" y="${HEIGHT - 16}" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/><text x="${x + 14}" y="${HEIGHT - 7}">${escapeHtml(s.name)}</text></g>`;
  });
  return items.join("\n");
}

/** The hatch pattern "n/a" bars use; defined once per page. */
export const SVG_DEFS = `<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#bbb" stroke-width="2"/></pattern></defs></svg>`;
