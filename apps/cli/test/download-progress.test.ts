import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { downloadDetail, downloadProgress } from "../src/progress/download-view.js";

describe("a hub model's download progress", () => {
  it("says bytes of the total, the share, the rate and the time left", () => {
    expect(downloadDetail(50_000_000, 100_000_000, 10_000_000)).toBe(
      "50 MB of 100 MB, 50%, 10 MB/s, ETA 5s",
    );
    expect(downloadDetail(0, 2_000_000_000)).toBe("0 B of 2 GB, 0%, –, ETA –");
  });

  it("never shows a share above 100% or below 0%", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        const [received, total] = a <= b ? [a, b] : [b, a];
        const share = Number(/, (\d+)%,/.exec(downloadDetail(received, total))?.[1]);
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(100);
      }),
    );
  });

  it("is drawn only on a terminal and not with --quiet", () => {
    expect(downloadProgress(true, true)).toBeUndefined();
    expect(downloadProgress(false, false)).toBeUndefined();
    expect(downloadProgress(false, true)).toBeTypeOf("function");
  });
});
