import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

// `npm ci` on the oldest Node the README names installs without EBADENGINE warnings: every
// package in the lock file, development tools included, runs on it.

const root = new URL("../../", import.meta.url);
const read = (file: string) => JSON.parse(readFileSync(new URL(file, root), "utf8"));
const { engines } = read("package.json") as { engines: { node: string } };
const lock = read("package-lock.json") as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe("the Node.js version the repository asks for", () => {
  const oldest = semver.minVersion(engines.node)?.version ?? "";

  it("is the one the README's Quick start names", () => {
    const readme = readFileSync(new URL("README.md", root), "utf8");
    const [major, minor] = oldest.split(".");
    expect(readme).toContain(`Node.js ${major}.${minor} or newer`);
  });

  it("runs every package the lock file installs", () => {
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === "" || node === undefined || semver.satisfies(oldest, node)) return [];
      return [`${path}@${entry.version}: node ${node}`];
    });
    expect(refusing, `packages that need a newer Node.js than ${oldest}`).toEqual([]);
  });
});
