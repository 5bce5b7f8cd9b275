import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Panel } from "@grafana/schema";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type ComposeService, loadCompose } from "./support/compose.js";
import {
  allPanels,
  DASHBOARD_PROVIDERS_PATH,
  expandGrafanaSql,
  loadDashboard,
  loadDatasources,
  panelQueries,
  promqlMetricNames,
  substitutePromqlVariables,
} from "./support/grafana.js";
import { INFRA, ROOT } from "./support/paths.js";
import { typecheckDashboard } from "./support/typecheck-dashboard.js";

// The dashboard as Grafana would load it from infra/grafana: its shape against the types
// Grafana publishes (@grafana/schema), then what those types cannot say.

const dashboard = loadDashboard();
const datasources = loadDatasources();
const compose = loadCompose();
const grafana = compose.services.grafana as ComposeService;

describe("infra/grafana/dashboards/assay.json", () => {
  it("type-checks against @grafana/schema's Dashboard and each panel plugin's options", () => {
    expect(typecheckDashboard(dashboard)).toEqual([]);
  });

  it("would be refused with a misspelled field or a value outside an enum (the check is not vacuous)", () => {
    const misspelled = structuredClone(dashboard);
    ((misspelled.panels ?? [])[1] as unknown as Record<string, unknown>).gridpos = {
      h: 1,
      w: 1,
      x: 0,
      y: 0,
    };
    expect(typecheckDashboard(misspelled).join("\n")).toMatch(/'"gridpos"' does not exist/);
    const badEnum = structuredClone(dashboard);
    const queueDepth = (badEnum.panels ?? [])[1] as Panel;
    const legend = (queueDepth.options as { legend: { displayMode: string } }).legend;
    legend.displayMode = "lists";
    expect(typecheckDashboard(badEnum).join("\n")).toMatch(/"lists"/);
  });

  it("gives every panel an id of its own and a place inside the 24 columns, overlapping none", () => {
    const panels = allPanels(dashboard);
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size, `ids ${ids.join(",")}`).toBe(ids.length);
    const cells = new Map<string, string>();
    for (const panel of panels) {
      const grid = panel.gridPos;
      expect(grid, panel.title).toBeDefined();
      const { x, y, w, h } = grid as { x: number; y: number; w: number; h: number };
      expect(
        Number.isInteger(x) && x >= 0 && w >= 1 && x + w <= 24,
        `${panel.title} x=${x} w=${w}`,
      ).toBe(true);
      for (let row = y; row < y + h; row++) {
        for (let column = x; column < x + w; column++) {
          const other = cells.get(`${row},${column}`);
          expect(other, `${panel.title} overlaps ${other}`).toBeUndefined();
          cells.set(`${row},${column}`, panel.title ?? "");
        }
      }
    }
  });

  it("queries only data sources the provisioning declares, each of the type it declares", () => {
    const byUid = new Map(datasources.map((source) => [source.uid, source]));
    const queries = panelQueries(dashboard);
    expect(queries.length).toBeGreaterThanOrEqual(10);
    for (const panel of allPanels(dashboard)) {
      const ref = panel.datasource;
      if (ref === undefined) continue;
      expect(byUid.get(ref.uid as string)?.type, `${panel.title} ${ref.uid}`).toBe(ref.type);
    }
    for (const query of queries) {
      expect(
        byUid.has(query.datasource),
        `${query.panel} ${query.refId}: ${query.datasource}`,
      ).toBe(true);
    }
    // Both kinds of panel are there: operators' metrics and analysts' SQL.
    expect(new Set(queries.map((query) => byUid.get(query.datasource)?.type))).toEqual(
      new Set(["prometheus", "grafana-postgresql-datasource"]),
    );
  });

  it("writes every PromQL query in Prometheus's grammar, selecting at least one metric", () => {
    const prometheus = queriesOfType("prometheus");
    expect(prometheus.length).toBeGreaterThanOrEqual(7);
    for (const query of prometheus) {
      const names = promqlMetricNames(substitutePromqlVariables(query.text));
      expect(names.length, `${query.panel}: ${query.text}`).toBeGreaterThan(0);
    }
    expect(() => promqlMetricNames("sum(rate(assay_jobs_processed_total[1m])")).toThrow(
      /PromQL syntax error/,
    );
    expect(() => substitutePromqlVariables("rate(x[$window])")).toThrow(/\$window/);
  });

  it("expands every SQL query's macros as Grafana does, leaving no variable behind", () => {
    const sql = queriesOfType("grafana-postgresql-datasource");
    expect(sql.length).toBeGreaterThanOrEqual(3);
    const from = new Date("2026-11-01T00:00:00Z");
    const to = new Date("2026-12-01T06:30:00.250Z");
    for (const query of sql) expect(query.text, query.panel).toMatch(/\$__timeFilter\(/);
    expect(expandGrafanaSql("WHERE $__timeFilter(r.started_at)", from, to)).toBe(
      "WHERE r.started_at BETWEEN '2026-11-01T00:00:00Z' AND '2026-12-01T06:30:00.250Z'",
    );
    expect(() => expandGrafanaSql("SELECT $__timeGroup(t, '1h')", from, to)).toThrow(/timeGroup/);
  });
});

describe("infra/grafana/provisioning", () => {
  it("loads the dashboards from the folder compose mounts infra/grafana/dashboards on", () => {
    const providers = (
      parse(readFileSync(DASHBOARD_PROVIDERS_PATH, "utf8")) as {
        providers: { options: { path: string } }[];
      }
    ).providers;
    const mounts = (grafana.volumes ?? []).map((volume) => volume.split(":"));
    for (const provider of providers) {
      const mount = mounts.find(([, target]) => target === provider.options.path);
      expect(mount, provider.options.path).toBeDefined();
      expect(existsSync(join(INFRA, mount?.[0] as string, "assay.json"))).toBe(true);
    }
    const provisioning = mounts.find(([, target]) => target === "/etc/grafana/provisioning");
    expect(provisioning?.[0]).toBe("./grafana/provisioning");
  });

  it("points each data source at a compose service, Postgres as assay_analyst with a password from Grafana's environment", () => {
    const prometheus = datasources.find((source) => source.type === "prometheus");
    expect(prometheus?.url).toBe("http://prometheus:9090");
    expect(compose.services.prometheus?.healthcheck?.test?.join(" ")).toContain("127.0.0.1:9090");
    const postgres = datasources.find((source) => source.type === "grafana-postgresql-datasource");
    expect(postgres?.url).toBe("postgres:5432");
    expect(postgres?.user).toBe("assay_analyst");
    expect(postgres?.jsonData?.database).toBe("assay");
    // Grafana expands $NAME in provisioning files from its environment; compose sets it.
    expect(postgres?.secureJsonData?.password).toBe("$ASSAY_ANALYST_PASSWORD");
    expect(Object.keys(grafana.environment ?? {})).toContain("ASSAY_ANALYST_PASSWORD");
  });

  it("runs the Grafana release whose schema the dashboard is checked against", () => {
    const schema = JSON.parse(
      readFileSync(join(ROOT, "node_modules", "@grafana", "schema", "package.json"), "utf8"),
    ) as { version: string };
    expect(grafana.image).toBe(`grafana/grafana:${schema.version}`);
    expect(dashboard.schemaVersion).toBe(42);
  });
});

function queriesOfType(type: string) {
  const uids = new Set(datasources.filter((source) => source.type === type).map((s) => s.uid));
  return panelQueries(dashboard).filter((query) => uids.has(query.datasource));
}
