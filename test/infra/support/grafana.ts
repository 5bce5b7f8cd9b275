import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Dashboard, Panel, RowPanel } from "@grafana/schema";
import { parser } from "@prometheus-io/lezer-promql";
import { parse } from "yaml";
import { INFRA } from "./paths.js";

export const GRAFANA = join(INFRA, "grafana");
export const DASHBOARD_PATH = join(GRAFANA, "dashboards", "assay.json");
export const DATASOURCES_PATH = join(GRAFANA, "provisioning", "datasources", "assay.yaml");
export const DASHBOARD_PROVIDERS_PATH = join(GRAFANA, "provisioning", "dashboards", "assay.yaml");

export function loadDashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_PATH, "utf8")) as Dashboard;
}

export interface ProvisionedDatasource {
  name: string;
  uid: string;
  type: string;
  url?: string;
  user?: string;
  jsonData?: Record<string, unknown>;
  secureJsonData?: Record<string, string>;
}

export function loadDatasources(): ProvisionedDatasource[] {
  return (parse(readFileSync(DATASOURCES_PATH, "utf8")) as { datasources: ProvisionedDatasource[] })
    .datasources;
}

/** The dashboard's template variables (`templating.list`). */
export function dashboardVariables(dashboard: Dashboard) {
  return (dashboard.templating?.list ?? []) as {
    name: string;
    type: string;
    query?: string;
    datasource?: { uid?: string; type?: string };
    multi?: boolean;
    includeAll?: boolean;
  }[];
}

/** Every panel, those inside rows included, rows themselves too. */
export function allPanels(dashboard: Dashboard): (Panel | RowPanel)[] {
  return (dashboard.panels ?? []).flatMap((panel) =>
    panel.type === "row" ? [panel, ...((panel as RowPanel).panels ?? [])] : [panel],
  );
}

export interface PanelQuery {
  panel: string;
  refId: string;
  datasource: string;
  text: string;
}

/** Each query of each panel, with the uid of the data source it goes to. */
export function panelQueries(dashboard: Dashboard): PanelQuery[] {
  return allPanels(dashboard).flatMap((panel) =>
    ((panel as Panel).targets ?? []).map((target) => {
      const own = target.datasource as { uid?: string } | undefined;
      const text = (target.expr ?? target.rawSql) as string | undefined;
      if (text === undefined) throw new Error(`${panel.title} ${target.refId}: no query`);
      return {
        panel: panel.title ?? `panel ${panel.id}`,
        refId: String(target.refId),
        datasource: own?.uid ?? (panel.datasource?.uid as string),
        text,
      };
    }),
  );
}

/**
 * Grafana's Prometheus variables as its data source replaces them before the query leaves
 * (durations Grafana derives from the panel's width and the scrape interval). Any other
 * `$name` throws: a test cannot pass over a variable it does not substitute.
 */
export function substitutePromqlVariables(expr: string): string {
  const durations: Record<string, string> = {
    __rate_interval: "1m",
    __interval: "15s",
    __range: "6h",
  };
  return expr.replace(/\$\{?(\w+)\}?/g, (match, name: string) => {
    const value = durations[name];
    if (value === undefined) throw new Error(`Unknown Grafana variable ${match} in ${expr}`);
    return value;
  });
}

/**
 * The metric names a PromQL expression selects, read with Prometheus's own grammar
 * (lezer-promql); throws with the position of any syntax error.
 */
export function promqlMetricNames(expr: string): string[] {
  const names: string[] = [];
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.type.isError) {
      throw new Error(
        `PromQL syntax error at ${cursor.from}: ${expr.slice(cursor.from, cursor.from + 20)}… in ${expr}`,
      );
    }
    if (cursor.name === "Identifier" && cursor.node.parent?.name === "VectorSelector") {
      names.push(expr.slice(cursor.from, cursor.to));
    }
  } while (cursor.next());
  return names;
}

/** Grafana's SQL literal for an instant: RFC 3339 in UTC. */
function sqlTime(date: Date): string {
  return `'${date.toISOString().replace(/\.000Z$/, "Z")}'`;
}

/**
 * The Postgres data source's macros as Grafana expands them before sending the query
 * (pkg/tsdb/grafana-postgresql-datasource/macros.go), for the time range `from`..`to`, after
 * the dashboard's variables (`$name`, `${name}`): a variable with one value and neither
 * multi nor "All" is written as it is (grafana-sql's interpolateVariable). A macro this
 * function does not know, or any other `$` variable, throws.
 */
export function expandGrafanaSql(
  sql: string,
  from: Date,
  to: Date,
  variables: Record<string, string> = {},
): string {
  const interpolated = sql.replace(/\$\{(\w+)\}|\$(?!__)(\w+)/g, (match, braced, bare) => {
    const value = variables[(braced ?? bare) as string];
    if (value === undefined) throw new Error(`Unexpanded variable ${match} in ${sql}`);
    return value;
  });
  const expanded = interpolated.replace(
    /\$__(\w+)\(([^)]*)\)/g,
    (match, macro: string, args: string) => {
      const column = args.trim();
      switch (macro) {
        case "timeFilter":
          return `${column} BETWEEN ${sqlTime(from)} AND ${sqlTime(to)}`;
        case "timeFrom":
          return sqlTime(from);
        case "timeTo":
          return sqlTime(to);
        case "time":
          return `${column} AS "time"`;
        case "timeEpoch":
          return `extract(epoch from ${column}) as "time"`;
        case "unixEpochFilter":
          return `${column} >= ${Math.floor(from.getTime() / 1000)} AND ${column} <= ${Math.floor(to.getTime() / 1000)}`;
        default:
          throw new Error(`Grafana macro ${match} is not expanded by this test; add it`);
      }
    },
  );
  const left = /\$\w+/.exec(expanded);
  if (left !== null) throw new Error(`Unexpanded variable ${left[0]} in ${sql}`);
  return expanded;
}
