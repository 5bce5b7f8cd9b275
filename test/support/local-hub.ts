import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** One commit of a served repository: its files' bytes by path. */
export type Commit = Map<string, Buffer>;

export interface ServedRepo {
  /** Commits by sha. */
  commits: Map<string, Commit>;
  /** Branches and tags by name → sha. */
  refs: Map<string, string>;
  /** Only this bearer token may download files (a gated model whose licence it accepted). */
  gatedToken?: string;
  /**
   * A hostile or broken Hub: what its file list (`paths-info`) answers instead of the true
   * entries it is given (which cover only the paths asked for).
   */
  rewriteListing?: (entries: ListedEntry[]) => unknown[];
}

/** One entry of a `paths-info` answer, as the Hub sends it. */
export interface ListedEntry {
  type: string;
  path: string;
  oid: string;
  size: number;
  lfs?: { oid: string; size: number; pointerSize: number };
}

/** Answers of a busy Hub, given to the next `times` requests whose path passes `where`. */
export interface BusyAnswer {
  status: 429 | 502 | 503 | 504;
  /** The Retry-After header, as sent (seconds or an HTTP date); none when undefined. */
  retryAfter?: string;
  times: number;
  /** Which requests get it; all when undefined. */
  where?: (request: HubRequest) => boolean;
}

export interface HubRequest {
  method: string;
  path: string;
  range: string | undefined;
  authorization: string | undefined;
  /** When the request arrived and when its answer ended (ms since the epoch). */
  startedAt: number;
  endedAt?: number;
}

/** How slowly file bytes are sent: `chunkBytes` at a time, `delayMs` apart. */
export interface Throttle {
  chunkBytes: number;
  delayMs: number;
}

/**
 * A local stand-in for huggingface.co, answering what @huggingface/hub calls (read from its
 * source): `GET /api/models/<id>/revision/<rev>` (model info with `sha`), `POST
 * /api/models/<id>/paths-info/<rev>` (size, git oid, LFS sha256 per path) and `GET
 * /<id>/resolve/<rev>/<file>`. Plain git files are served there with their git blob sha1 as
 * ETag; LFS files (`*.onnx*`, as the Hub's default .gitattributes) redirect to a CDN path
 * with `X-Linked-Etag` / `X-Linked-Size` / `X-Repo-Commit`, and the CDN honours Range.
 */
export class LocalHub {
  readonly repos = new Map<string, ServedRepo>();
  readonly requests: HubRequest[] = [];
  /** LFS paths whose next full download stops half way (the socket is destroyed). */
  readonly cutOnce = new Set<string>();
  /** LFS paths served with one byte changed while the listing keeps the true hash. */
  readonly tampered = new Set<string>();
  /** Set to send file bytes slowly, so that two downloads overlap in time. */
  throttle: Throttle | undefined;
  /**
   * Paths whose next request (to `/resolve/`) finds the Hub gone: the connection is dropped
   * and the server stops listening until `reopen()`.
   */
  readonly goneAt = new Set<string>();
  /** Busy answers still to give, first match first (see `BusyAnswer`). */
  readonly busy: BusyAnswer[] = [];
  /** When set, every request must carry this user name and password (HTTP Basic), as a mirror behind a password. */
  basicAuth: { user: string; password: string } | undefined;
  /**
   * When set, a Bearer token outside it is answered 401 on every request, as the Hub
   * answers an expired or revoked token.
   */
  knownTokens: Set<string> | undefined;
  readonly #server: Server;
  readonly #blobs = new Map<string, { path: string; bytes: Buffer }>();

  private constructor() {
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: Error) => {
        res.statusCode = 500;
        res.end(error.message);
      });
    });
  }

  #port = 0;

  static async start(): Promise<LocalHub> {
    const hub = new LocalHub();
    await hub.#listen();
    return hub;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Listens again on the port it had before `close()`: the Hub is back. */
  reopen(): Promise<void> {
    return this.#listen();
  }

  async #listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(this.#port, "127.0.0.1", resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** Serves `files` of a folder as a new commit of `id`, which `refs` (default main) point at. */
  async publish(id: string, folder: string, files: string[], refs = ["main"]): Promise<string> {
    const commit: Commit = new Map();
    for (const file of files) {
      const path = join(folder, file);
      if (await exists(path)) commit.set(file, await readFile(path));
    }
    const sha = createHash("sha1").update(`${id}:${Math.random()}`).digest("hex");
    const repo = this.repos.get(id) ?? { commits: new Map(), refs: new Map() };
    repo.commits.set(sha, commit);
    for (const ref of refs) repo.refs.set(ref, sha);
    this.repos.set(id, repo);
    for (const [path, bytes] of commit) {
      if (isLfs(path)) this.#blobs.set(sha256(bytes), { path, bytes });
    }
    return sha;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const request: HubRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      range: req.headers.range,
      authorization: req.headers.authorization,
      startedAt: Date.now(),
    };
    this.requests.push(request);
    res.on("close", () => {
      request.endedAt = Date.now();
    });
    if (this.#refused(req, res) || this.#answeredBusy(request, res)) return;
    const info = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(url.pathname);
    if (info) return this.#modelInfo(res, info[1] as string, decodeURIComponent(info[2] as string));
    const paths = /^\/api\/models\/([^/]+\/[^/]+)\/paths-info\/([^/]+)$/.exec(url.pathname);
    if (paths)
      return this.#pathsInfo(req, res, paths[1] as string, decodeURIComponent(paths[2] as string));
    const cdn = /^\/cdn\/([0-9a-f]{64})$/.exec(url.pathname);
    if (cdn) return this.#cdn(req, res, cdn[1] as string);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (resolve) {
      const [, id, rev, file] = resolve as unknown as [string, string, string, string];
      if (this.goneAt.delete(file)) {
        req.socket.destroy();
        await this.close();
        return;
      }
      return this.#resolve(req, res, id, decodeURIComponent(rev), file);
    }
    error(res, 404, "RepoNotFound", "no such endpoint");
  }

  /** Answers 401 to credentials this Hub does not take; true when it did. */
  #refused(req: IncomingMessage, res: ServerResponse): boolean {
    const auth = req.headers.authorization;
    if (this.basicAuth !== undefined) {
      const { user, password } = this.basicAuth;
      if (auth === `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`) return false;
      res.setHeader("WWW-Authenticate", 'Basic realm="mirror"');
      error(res, 401, "Unauthorized", "Invalid username or password.");
      return true;
    }
    const token = /^Bearer (.+)$/.exec(auth ?? "")?.[1];
    if (this.knownTokens === undefined || token === undefined || this.knownTokens.has(token)) {
      return false;
    }
    error(res, 401, "Unauthorized", "Invalid credentials in Authorization header");
    return true;
  }

  /** Gives the first busy answer that applies to `request`; true when it did. */
  #answeredBusy(request: HubRequest, res: ServerResponse): boolean {
    const index = this.busy.findIndex((b) => b.times > 0 && (b.where?.(request) ?? true));
    const answer = this.busy[index];
    if (answer === undefined) return false;
    answer.times -= 1;
    if (answer.times === 0) this.busy.splice(index, 1);
    if (answer.retryAfter !== undefined) res.setHeader("Retry-After", answer.retryAfter);
    error(res, answer.status, "Busy", "The Hub is busy; try again later.");
    return true;
  }

  #commit(id: string, revision: string): { sha: string; files: Commit } | null {
    const repo = this.repos.get(id);
    if (repo === undefined) return null;
    const sha = repo.refs.get(revision) ?? revision;
    const files = repo.commits.get(sha);
    return files === undefined ? null : { sha, files };
  }

  #modelInfo(res: ServerResponse, id: string, revision: string) {
    const commit = this.#commit(id, revision);
    if (commit === null) return error(res, 404, "RevisionNotFound", `Invalid rev id: ${revision}`);
    json(res, {
      _id: id,
      id,
      sha: commit.sha,
      private: false,
      gated: this.repos.get(id)?.gatedToken === undefined ? false : "manual",
      downloads: 0,
      likes: 0,
      lastModified: new Date(0).toISOString(),
      siblings: [...commit.files.keys()].map((rfilename) => ({ rfilename })),
    });
  }

  async #pathsInfo(req: IncomingMessage, res: ServerResponse, id: string, revision: string) {
    const commit = this.#commit(id, revision);
    if (commit === null) return error(res, 404, "RevisionNotFound", `Invalid rev id: ${revision}`);
    const body = JSON.parse(await readBody(req)) as { paths: string[] };
    const entries = body.paths.flatMap((path): ListedEntry[] => {
      const bytes = commit.files.get(path);
      if (bytes === undefined) return [];
      if (!isLfs(path)) return [{ type: "file", path, oid: gitSha1(bytes), size: bytes.length }];
      const pointer = Buffer.from(
        `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(bytes)}\nsize ${bytes.length}\n`,
      );
      return [
        {
          type: "file",
          path,
          oid: gitSha1(pointer),
          size: bytes.length,
          lfs: { oid: sha256(bytes), size: bytes.length, pointerSize: pointer.length },
        },
      ];
    });
    json(res, this.repos.get(id)?.rewriteListing?.(entries) ?? entries);
  }

  #resolve(req: IncomingMessage, res: ServerResponse, id: string, revision: string, file: string) {
    const commit = this.#commit(id, revision);
    if (commit === null) return error(res, 404, "RevisionNotFound", `Invalid rev id: ${revision}`);
    const gatedToken = this.repos.get(id)?.gatedToken;
    if (gatedToken !== undefined) {
      const auth = req.headers.authorization;
      if (auth === undefined) {
        return error(
          res,
          401,
          "GatedRepo",
          `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
        );
      }
      if (auth !== `Bearer ${gatedToken}`) {
        return error(
          res,
          403,
          "GatedRepo",
          `Access to model ${id} is restricted and you are not in the authorized list.`,
        );
      }
    }
    const bytes = commit.files.get(file);
    if (bytes === undefined) return error(res, 404, "EntryNotFound", `${file} does not exist`);
    res.setHeader("X-Repo-Commit", commit.sha);
    if (isLfs(file)) {
      const hash = sha256(bytes);
      res.statusCode = 302;
      res.setHeader("Location", `/cdn/${hash}`);
      res.setHeader("X-Linked-Etag", `"${hash}"`);
      res.setHeader("X-Linked-Size", String(bytes.length));
      res.setHeader("ETag", `"${gitSha1(bytes)}"`);
      res.end();
      return;
    }
    serveBytes(req, res, bytes, `"${gitSha1(bytes)}"`, this.throttle);
  }

  #cdn(req: IncomingMessage, res: ServerResponse, hash: string) {
    const blob = this.#blobs.get(hash);
    if (blob === undefined) return error(res, 404, "EntryNotFound", "no such blob");
    let bytes = blob.bytes;
    if (this.tampered.has(blob.path)) {
      bytes = Buffer.from(bytes);
      bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 0xff;
    }
    if (req.headers.range === undefined && this.cutOnce.delete(blob.path)) {
      res.writeHead(200, { "Content-Length": bytes.length, ETag: `"${hash}"` });
      res.write(bytes.subarray(0, bytes.length >> 1), () => res.socket?.destroy());
      return;
    }
    serveBytes(req, res, bytes, `"${hash}"`, this.throttle);
  }
}

/** The bytes, or the part a `Range: bytes=a-b` asks for (206 with Content-Range). */
function serveBytes(
  req: IncomingMessage,
  res: ServerResponse,
  bytes: Buffer,
  etag: string,
  throttle: Throttle | undefined,
): void {
  res.setHeader("ETag", etag);
  res.setHeader("Accept-Ranges", "bytes");
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
  if (range === null) {
    res.writeHead(200, { "Content-Length": bytes.length });
    send(res, bytes, throttle);
    return;
  }
  const start = Number(range[1]);
  const end = range[2] === "" ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
  res.writeHead(206, {
    "Content-Range": `bytes ${start}-${end}/${bytes.length}`,
    "Content-Length": end - start + 1,
  });
  send(res, bytes.subarray(start, end + 1), throttle);
}

/** Ends the answer with `bytes`, all at once or a chunk every `delayMs`. */
function send(res: ServerResponse, bytes: Buffer, throttle: Throttle | undefined): void {
  if (throttle === undefined) {
    res.end(bytes);
    return;
  }
  let offset = 0;
  const next = () => {
    if (res.destroyed) return;
    const chunk = bytes.subarray(offset, offset + throttle.chunkBytes);
    offset += chunk.length;
    if (offset >= bytes.length) res.end(chunk);
    else res.write(chunk, () => setTimeout(next, throttle.delayMs));
  };
  next();
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  res.statusCode = status;
  res.setHeader("X-Error-Code", code);
  res.setHeader("X-Error-Message", message);
  json(res, { error: message });
}

function json(res: ServerResponse, body: unknown): void {
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify(body));
}

function isLfs(path: string): boolean {
  return /\.onnx(_data)?$/.test(path);
}

/**
 * A file's sha256, for tests to compare instead of its bytes: vitest's deep equality over a
 * multi-megabyte Buffer takes minutes and gigabytes, and a mismatch prints two short lines.
 */
export async function fileSha256(path: string): Promise<string> {
  return sha256(await readFile(path));
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function gitSha1(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
