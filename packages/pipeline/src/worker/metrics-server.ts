import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "@assay/core";
import type { Registry } from "prom-client";
import type { WorkerHealth } from "./worker-health.js";

/**
 * Serves `GET /metrics` for Prometheus and the worker's health: `/livez` answers while the
 * process serves requests (a restart would not help a worker whose server is gone, so
 * liveness leaves them out), `/readyz` is 200 only while the worker takes jobs with Redis
 * and Postgres reachable, else 503; both say why in JSON. Port 0 picks a free port (tests).
 */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  health: () => WorkerHealth,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = request.url?.split("?")[0];
    if (path === "/livez" || path === "/readyz") {
      const now = health();
      const ok = path === "/livez" || now.ready;
      response
        .writeHead(ok ? 200 : 503, { "content-type": "application/json" })
        .end(`${JSON.stringify(now)}\n`);
      return;
    }
    if (path !== "/metrics") {
      response.writeHead(404).end("try /metrics, /readyz or /livez\n");
      return;
    }
    registry.metrics().then(
      (body) => response.writeHead(200, { "content-type": registry.contentType }).end(body),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(cannotListen(error, port)));
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function cannotListen(error: Error, port: number): ConfigError {
  const code = (error as { code?: unknown }).code;
  const why =
    code === "EADDRINUSE"
      ? "another process is listening on it"
      : code === "EACCES"
        ? "this user may not listen on it"
        : error.message;
  return new ConfigError(
    `Cannot serve metrics on port ${port}: ${why}. Pick another --metrics-port (0 picks a free one).`,
  );
}
