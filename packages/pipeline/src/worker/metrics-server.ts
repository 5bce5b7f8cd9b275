import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "@assay/core";
import type { Registry } from "prom-client";

/** Serves `GET /metrics` for Prometheus. Port 0 picks a free port (tests). */
export async function startMetricsServer(
  registry: Registry,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.url !== "/metrics") {
      response.writeHead(404).end("try /metrics\n");
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
