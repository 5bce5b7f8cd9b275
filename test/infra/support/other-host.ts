import { execFileSync } from "node:child_process";

/**
 * A network namespace of the test's own, joined to this host by a veth pair: processes
 * started in it are reached from here at `address`, and see this host's connections come
 * from `hostAddress`. Neither is a loopback address, so a server in it treats a client from
 * here as one from another host (Redis's protected mode does). Needs root and `ip`.
 */
export interface OtherHost {
  address: string;
  hostAddress: string;
  /** `argv` run inside the namespace (for `spawn`: program and arguments). */
  command(argv: string[]): [string, string[]];
  remove(): void;
}

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe", encoding: "utf8" });

export function createOtherHost(): OtherHost {
  // Names and a /30 of 10.213.0.0/16 from the pid: test processes beside this one differ.
  const id = process.pid % 16_384;
  const name = `assay-test-${process.pid}`;
  const hostSide = `avh${id}`;
  const otherSide = `avo${id}`;
  const base = `10.213.${id >> 6}.${(id & 63) * 4}`.split(".").map(Number) as number[];
  const at = (last: number) => `${base[0]}.${base[1]}.${base[2]}.${(base[3] as number) + last}`;
  const hostAddress = at(1);
  const address = at(2);
  try {
    ip("netns", "add", name);
    ip("link", "add", hostSide, "type", "veth", "peer", "name", otherSide);
    ip("link", "set", otherSide, "netns", name);
    ip("addr", "add", `${hostAddress}/30`, "dev", hostSide);
    ip("link", "set", hostSide, "up");
    ip("-n", name, "addr", "add", `${address}/30`, "dev", otherSide);
    ip("-n", name, "link", "set", otherSide, "up");
    ip("-n", name, "link", "set", "lo", "up");
  } catch (error) {
    removeQuietly(name, hostSide);
    throw new Error(
      `This test needs a network namespace of its own (root, and iproute2's \`ip\`): ${(error as Error).message}`,
    );
  }
  return {
    address,
    hostAddress,
    command: (argv) => ["ip", ["netns", "exec", name, ...argv]],
    remove: () => removeQuietly(name, hostSide),
  };
}

function removeQuietly(name: string, hostSide: string): void {
  // Deleting one end of a veth pair deletes both; the namespace goes with its processes.
  for (const args of [
    ["link", "del", hostSide],
    ["netns", "del", name],
  ]) {
    try {
      ip(...args);
    } catch {
      // Not created, or already gone.
    }
  }
}
