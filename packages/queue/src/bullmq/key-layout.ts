import { ConfigError } from "@assay/core";

/**
 * Where a queue's keys live in Redis. BullMQ names them `<prefix>:<queue>:<suffix>`, and
 * its scripts touch several of them at once, which Redis Cluster allows only for keys of
 * one hash slot: on a cluster every key of a queue must carry the same hash tag (`{...}`).
 */
export interface KeyLayout {
  /** The prefix BullMQ is given for `queue`. */
  prefixOf(queue: string): string;
  /** SCAN pattern of every queue's meta key (a queue has one from its first job on). */
  metaKeys: string;
  /** The queue of a key `metaKeys` matched; undefined for a key of another prefix. */
  queueOfMetaKey(key: string): string | undefined;
}

/**
 * On a single Redis, and on a cluster when the prefix holds a hash tag of its own (the
 * `{assay}` form BullMQ documents, which puts every queue in one slot), keys are
 * `<prefix>:<queue>:...`. On a cluster, a prefix without a tag becomes one per queue,
 * `{<prefix>:<queue>}:<queue>:...`, so each queue lives in one slot and different pools and
 * models spread over the cluster's nodes.
 */
export function keyLayout(prefix: string, cluster: boolean): KeyLayout {
  if (!cluster) return sharedPrefix(prefix);
  const problem = braceProblem(prefix);
  if (problem !== undefined) {
    throw new ConfigError(
      `--queue-prefix "${prefix}" has ${problem}: on a Redis Cluster the braces of a prefix ` +
        `are its hash tag. Leave them out (--queue-prefix ${withoutBraces(prefix)} gives each ` +
        `queue a slot of its own) or put a non-empty name between one pair ` +
        `(--queue-prefix "{${withoutBraces(prefix)}}" puts every queue in one slot).`,
    );
  }
  return prefix.includes("{") ? sharedPrefix(prefix) : tagPerQueue(prefix);
}

function sharedPrefix(prefix: string): KeyLayout {
  return {
    prefixOf: () => prefix,
    metaKeys: `${prefix}:*:meta`,
    queueOfMetaKey: (key) => key.slice(prefix.length + 1, -":meta".length),
  };
}

function tagPerQueue(prefix: string): KeyLayout {
  const head = `{${prefix}:`;
  return {
    prefixOf: (queue) => `${head}${queue}}`,
    metaKeys: `${head}*}:*:meta`,
    queueOfMetaKey: (key) => {
      if (!key.startsWith(head)) return undefined;
      const queue = key.slice(head.length, key.indexOf("}", head.length));
      // Another prefix that starts with this one (`assay:x` under `assay`) is not ours.
      return key === `${head}${queue}}:${queue}:meta` ? queue : undefined;
    },
  };
}

/** What keeps the prefix's braces from being one hash tag, as Redis reads them. */
function braceProblem(prefix: string): string | undefined {
  let open = -1;
  for (let i = 0; i < prefix.length; i += 1) {
    if (prefix[i] === "{") {
      if (open !== -1) return 'a "{" inside braces';
      open = i;
    } else if (prefix[i] === "}") {
      if (open === -1) return 'a "}" with no "{" before it';
      if (i === open + 1) return 'an empty hash tag "{}"';
      open = -1;
    }
  }
  return open === -1 ? undefined : 'a "{" without its "}"';
}

function withoutBraces(prefix: string): string {
  return prefix.replace(/[{}]/g, "") || "assay";
}
