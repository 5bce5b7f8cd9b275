import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
    server.once("error", reject);
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
