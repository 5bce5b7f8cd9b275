import type { Dashboard, Panel } from "@grafana/schema";
import { allPanels } from "./grafana.js";
import { typecheckSource } from "./typecheck-source.js";

/**
 * The panel plugins whose options @grafana/schema types (one module per plugin, generated
 * from Grafana's CUE schemas), named by the prefix of the module's file.
 */
const PANEL_MODULES: Record<string, { prefix: string; fieldConfig: boolean }> = {
  timeseries: { prefix: "TimeSeries", fieldConfig: true },
  stat: { prefix: "Stat", fieldConfig: false },
  table: { prefix: "Table", fieldConfig: true },
};

/**
 * A type as JSON can spell it: Grafana's types use TypeScript string enums
 * (`LegendDisplayMode.List`), which no string literal satisfies; `${E}` is the union of
 * their values ("list" | "table" | "hidden"), so a value outside it is still refused.
 */
const AS_JSON =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source, not a template
  "type AsJson<T> = T extends string ? `${T}` : T extends readonly (infer U)[] ? AsJson<U>[] : T extends object ? { [K in keyof T]: AsJson<T[K]> } : T;";

/**
 * Type-checks a dashboard as an object literal of @grafana/schema's `Dashboard`, and each
 * panel's `options` and `fieldConfig.defaults.custom` as literals of its plugin's `Options`
 * and `FieldConfig`. The package ships TypeScript types (no JSON schema), and a literal is
 * what makes TypeScript refuse an unknown or misspelled field, as Grafana's schema does.
 * Returns "where: message" per error; a panel type without typed options is an error too.
 */
export function typecheckDashboard(dashboard: Dashboard): string[] {
  const lines = ['import type { Dashboard } from "@grafana/schema";', AS_JSON];
  const where: string[] = [];
  const check = (label: string, declaration: string) => {
    where[lines.length] = label;
    lines.push(declaration);
  };
  for (const [plugin, { prefix, fieldConfig }] of Object.entries(PANEL_MODULES)) {
    const names = [`Options as ${plugin}Options`];
    if (fieldConfig) names.push(`FieldConfig as ${plugin}FieldConfig`);
    lines.push(
      `import type { ${names.join(", ")} } from "@grafana/schema/dist/esm/raw/composable/${plugin}/panelcfg/x/${prefix}PanelCfg_types.gen";`,
    );
  }
  check("dashboard", `export const dashboard: AsJson<Dashboard> = ${JSON.stringify(dashboard)};`);
  const unknown: string[] = [];
  for (const panel of allPanels(dashboard)) {
    if (panel.type === "row") continue;
    const { options, fieldConfig } = panel as Panel;
    if (!(panel.type in PANEL_MODULES)) {
      unknown.push(`panel ${panel.id} "${panel.title}": no typed options for type ${panel.type}`);
      continue;
    }
    check(
      `panel ${panel.id} "${panel.title}" options`,
      `export const options${panel.id}: AsJson<${panel.type}Options> = ${JSON.stringify(options ?? {})};`,
    );
    const custom = fieldConfig?.defaults?.custom;
    if (custom !== undefined && !PANEL_MODULES[panel.type]?.fieldConfig) {
      unknown.push(
        `panel ${panel.id} "${panel.title}": type ${panel.type} has no custom field config`,
      );
    } else if (custom !== undefined) {
      check(
        `panel ${panel.id} "${panel.title}" fieldConfig.defaults.custom`,
        `export const custom${panel.id}: AsJson<${panel.type}FieldConfig> = ${JSON.stringify(custom)};`,
      );
    }
  }
  const errors = typecheckSource(
    "__dashboard__.ts",
    lines.join("\n"),
    ["lib.es2022.d.ts", "lib.dom.d.ts"],
    (line) => where[line] ?? `line ${line + 1}`,
  );
  return [...unknown, ...errors];
}
