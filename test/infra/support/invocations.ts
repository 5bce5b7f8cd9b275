import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DockerfileParser } from "dockerfile-ast";
import { parse as parseShell } from "shell-quote";
import { type ComposeFile, loadCompose } from "./compose.js";
import { containersOf, loadManifests } from "./manifests.js";
import { INFRA } from "./paths.js";

/** A process some file in infra/ starts, and where it is written. */
export interface Invocation {
  source: string;
  argv: string[];
}

export const DOCKERFILES = ["Dockerfile", "gpu.Dockerfile"] as const;

/** CMD / ENTRYPOINT of a Dockerfile's final stage, exec form. */
export function imageDefaults(dockerfile: string): { cmd?: string[]; entrypoint?: string[] } {
  const parsed = DockerfileParser.parse(readFileSync(join(INFRA, dockerfile), "utf8"));
  const json = (instructions: { getJSONStrings(): { getJSONValue(): string }[] }[]) => {
    const last = instructions.at(-1);
    return last === undefined ? undefined : last.getJSONStrings().map((s) => s.getJSONValue());
  };
  const cmd = json(parsed.getCMDs());
  const entrypoint = json(parsed.getENTRYPOINTs());
  return { ...(cmd && { cmd }), ...(entrypoint && { entrypoint }) };
}

/**
 * The command of the HEALTHCHECK of a Dockerfile's final stage (`CMD` form, exec form), or
 * undefined when it has none.
 */
export function imageHealthcheck(dockerfile: string): string[] | undefined {
  const parsed = DockerfileParser.parse(readFileSync(join(INFRA, dockerfile), "utf8"));
  const instructions = parsed.getInstructions();
  const from = instructions.map((i) => i.getKeyword()).lastIndexOf("FROM");
  const check = instructions.slice(from).findLast((i) => i.getKeyword() === "HEALTHCHECK");
  const text = check?.getArgumentsContent();
  if (text === undefined || text === null) return undefined;
  const json = /(?:^|\s)CMD\s+(\[.*\])\s*$/s.exec(text.replace(/\\\n/g, " "))?.[1];
  if (json === undefined) throw new Error(`${dockerfile}: HEALTHCHECK is not CMD [...]: ${text}`);
  return JSON.parse(json) as string[];
}

/**
 * The entry points (`apps/.../dist/main.js`) of every process that infra/ starts with the
 * image `dockerfile` builds: its CMD, the compose services built from it, the Kubernetes
 * containers running it (assay:… for the CPU image, assay-gpu:… for the GPU one).
 */
export function imageEntryPoints(dockerfile: string): string[] {
  const { cmd = [], entrypoint = [] } = imageDefaults(dockerfile);
  const image = dockerfile === "gpu.Dockerfile" ? /^assay-gpu:/ : /^assay:/;
  const argvs = [
    [...entrypoint, ...cmd],
    ...Object.values(loadCompose().services)
      .filter((service) => service.build?.dockerfile === `infra/${dockerfile}`)
      .map((service) => [
        ...(service.entrypoint ?? []),
        ...(service.command ?? imageCommandOf(service)),
      ]),
    ...loadManifests()
      .flatMap(containersOf)
      .filter((container) => image.test(container.image))
      .map((container) => [...(container.command ?? []), ...(container.args ?? [])]),
  ];
  const entries = argvs
    .filter((argv) => argv[0] === "node" && /^apps\/[^/]+\/dist\/.+\.js$/.test(argv[1] ?? ""))
    .map((argv) => argv[1] as string);
  return [...new Set(entries)];
}

/** Every process that the compose file, the Dockerfiles, the manifests and the README start. */
export function allInvocations(): Invocation[] {
  const compose = loadCompose();
  return [
    ...DOCKERFILES.map((file) => {
      const { cmd = [], entrypoint = [] } = imageDefaults(file);
      return { source: `infra/${file} CMD`, argv: [...entrypoint, ...cmd] };
    }),
    ...composeInvocations(compose),
    ...loadManifests().flatMap((manifest) =>
      containersOf(manifest).map((container) => ({
        source: `infra/k8s/${manifest.file} ${manifest.kind}/${manifest.metadata.name}`,
        argv: [...(container.command ?? []), ...(container.args ?? [])],
      })),
    ),
    ...readmeInvocations(compose),
  ];
}

function composeInvocations(compose: ComposeFile): Invocation[] {
  return Object.entries(compose.services).map(([name, service]) => ({
    source: `infra/compose.yaml service ${name}`,
    argv: [...(service.entrypoint ?? []), ...(service.command ?? imageCommandOf(service))],
  }));
}

function imageCommandOf(service: { build?: { dockerfile: string } }): string[] {
  if (service.build === undefined) return [];
  return imageDefaults(service.build.dockerfile.replace(/^infra\//, "")).cmd ?? [];
}

/**
 * Commands in the shell blocks of infra/README.md: `assay ...`, `node apps/...` and
 * `docker compose run <service> <args>` (the args replace the service's command).
 */
function readmeInvocations(compose: ComposeFile): Invocation[] {
  const text = readFileSync(join(INFRA, "README.md"), "utf8");
  const invocations: Invocation[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = (block[1] ?? "").replace(/\\\n/g, " ").split("\n");
    for (const line of lines) {
      for (const argv of simpleCommands(line)) {
        const source = `infra/README.md: ${line.trim()}`;
        const run = composeRun(argv, compose);
        if (run !== undefined) invocations.push({ source, argv: run });
        else if (argv[0] === "assay" || (argv[0] === "node" && argv[1]?.startsWith("apps/"))) {
          invocations.push({ source, argv });
        }
      }
    }
  }
  return invocations;
}

/** The simple commands of a shell line: split at operators, comments and `VAR=x` removed. */
function simpleCommands(line: string): string[][] {
  const commands: string[][] = [[]];
  for (const token of parseShell(line, (name) => `$${name}`)) {
    if (typeof token === "string") {
      const current = commands.at(-1) as string[];
      if (current.length === 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(token)) continue;
      current.push(token);
    } else if ("comment" in token) {
      break;
    } else {
      commands.push([]);
    }
  }
  return commands.filter((command) => command.length > 0);
}

function composeRun(argv: string[], compose: ComposeFile): string[] | undefined {
  if (argv[0] !== "docker" || argv[1] !== "compose") return undefined;
  const run = argv.indexOf("run");
  if (run < 0) return undefined;
  let index = run + 1;
  while (argv[index]?.startsWith("-")) index += 1;
  const service = compose.services[argv[index] ?? ""];
  const args = argv.slice(index + 1);
  if (service === undefined || args.length === 0) return undefined;
  return [...(service.entrypoint ?? []), ...args];
}
