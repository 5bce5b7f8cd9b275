import cliProgress from "cli-progress";
import prettyBytes from "pretty-bytes";
import { safeMessage } from "../output.js";
import { duration, percent } from "./progress-meter.js";
import { etaSeconds, RateWindow } from "./rate-window.js";

/** One file's download as the verifier reports it (`DownloadProgress`). */
export interface FileDownload {
  id: string;
  file: string;
  received: number;
  total: number;
}

/** Files smaller than this finish before a bar could say anything. */
const SHOWN_FROM_BYTES = 1 << 20;

/** "12.3 MB of 1.2 GB, 1%, 45.6 MB/s, ETA 26s": what a download's bar says after its name. */
export function downloadDetail(received: number, total: number, perSecond?: number): string {
  const rate = perSecond === undefined ? "–" : `${prettyBytes(perSecond)}/s`;
  const eta = etaSeconds(total - received, perSecond);
  return [
    `${prettyBytes(received)} of ${prettyBytes(total)}`,
    percent(received, total),
    rate,
    `ETA ${eta === undefined ? "–" : duration(eta)}`,
  ].join(", ");
}

/**
 * A bar on stderr per large file a hub model downloads (bytes, %, rate, ETA); nothing when
 * stderr is no terminal or the command is quiet, so logs and pipes get no redraws.
 */
export function downloadProgress(
  quiet: boolean,
  terminal = process.stderr.isTTY === true,
): ((progress: FileDownload) => void) | undefined {
  if (quiet || !terminal) return undefined;
  const bar = new DownloadBar();
  return (progress) => bar.update(progress);
}

class DownloadBar {
  readonly #bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: "{label} |{bar}| {detail}",
      hideCursor: true,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  #file: string | null = null;
  #rate = new RateWindow(5_000);
  readonly #restoreTerminal = (): void => this.#stop();

  update({ id, file, received, total }: FileDownload): void {
    if (total < SHOWN_FROM_BYTES) return;
    const key = `${id}/${file}`;
    if (key !== this.#file) {
      this.#stop();
      this.#file = key;
      this.#rate = new RateWindow(5_000);
      this.#bar.start(total, received, this.#payload(key, received, total));
      process.once("exit", this.#restoreTerminal);
    }
    this.#rate.add({ at: Date.now(), count: received });
    this.#bar.update(received, this.#payload(key, received, total));
    if (received >= total) this.#stop();
  }

  #payload(key: string, received: number, total: number) {
    return {
      label: safeMessage(`downloading ${key}`),
      detail: downloadDetail(received, total, this.#rate.rate()),
    };
  }

  #stop(): void {
    if (this.#file === null) return;
    process.off("exit", this.#restoreTerminal);
    this.#bar.stop();
    this.#file = null;
  }
}

/** The loader option that draws `downloadProgress`, or none where it would draw nothing. */
export function downloadOption(quiet = false): {
  onDownloadProgress?: (progress: FileDownload) => void;
} {
  const onDownloadProgress = downloadProgress(quiet);
  return onDownloadProgress === undefined ? {} : { onDownloadProgress };
}
