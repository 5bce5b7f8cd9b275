import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { type OwnRedis, startRedis } from "@assay/test-support/redis-server";
import { waitFor } from "@assay/test-support/services";
import { Redis } from "ioredis";

/** A Redis Cluster of the test's own: three masters on free loopback ports, no replicas. */
export interface OwnCluster {
  /** The first node's URL: a client learns the others from it. */
  url: string;
  nodes: OwnRedis[];
  /** Stops every node and removes their data dirs. */
  remove(): Promise<void>;
}

const MASTERS = 3;

export async function startRedisCluster(): Promise<OwnCluster> {
  const nodes: OwnRedis[] = [];
  const remove = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.remove()));
  };
  try {
    for (let i = 0; i < MASTERS; i += 1) {
      // Each node has a data dir of its own, so one config file name serves all.
      nodes.push(
        await startRedis(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]),
      );
    }
    const addresses = nodes.map((node) => new URL(node.url).host);
    await promisify(execFile)("redis-cli", [
      "--cluster",
      "create",
      ...addresses,
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    // Every node must have heard of every slot before clients are sent from one to another.
    await waitFor(
      async () => (await Promise.all(nodes.map(clusterStateOk))).every(Boolean),
      10_000,
      "every node of the Redis Cluster to report cluster_state:ok",
    );
    return { url: (nodes[0] as OwnRedis).url, nodes, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

async function clusterStateOk(node: OwnRedis): Promise<boolean> {
  const redis = new Redis(node.url, { maxRetriesPerRequest: 1 });
  try {
    return /^cluster_state:ok\r?$/m.test(String(await redis.cluster("INFO")));
  } finally {
    redis.disconnect();
  }
}
