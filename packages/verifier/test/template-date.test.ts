import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AssayConfigSchema,
  DEFAULT_TEMPLATE_DATE,
  readChatSpec,
  renderChat,
  strftimeOn,
} from "../src/index.js";
import { chatFamilyDir } from "./chat-families.js";

// A chat template that asks for today's date (Llama 3.1/3.2's "Today Date:") must render the
// same prompt every night: Assay gives it a fixed day, whatever the clock, time zone or locale.
const config = (chat: Record<string, unknown> = {}) =>
  AssayConfigSchema.parse({
    max_length: 512,
    template: [{ text: "Grade it.", message: "system" }, { slot: "answer" }],
    chat,
    head: { type: "probe", probe: [1] },
  });

const messages = [
  { role: "system" as const, content: "Grade it." },
  { role: "user" as const, content: "4" },
];

afterEach(() => {
  vi.useRealTimers();
});

describe("the date a chat template sees", () => {
  it("is the fixed default on any night, not the day the prompt is rendered", async () => {
    const spec = await readChatSpec(await chatFamilyDir("llama3.2"), config());
    if (spec === null) throw new Error("no template");
    const nights = ["2031-01-15T23:59:00Z", "2031-01-16T00:01:00Z", "2040-12-31T12:00:00Z"];
    const prompts = nights.map((night) => {
      vi.useFakeTimers({ now: new Date(night), toFake: ["Date"] });
      return renderChat(spec, messages);
    });
    expect(spec.date).toBe(DEFAULT_TEMPLATE_DATE);
    expect(prompts[0]).toContain("\nToday Date: 26 Jul 2024\n\n");
    expect(new Set(prompts).size).toBe(1);
  });

  it("is the day assay.json `chat.date` names, and `chat.options.date_string` still wins", async () => {
    const dir = await chatFamilyDir("llama3.2");
    const pinned = await readChatSpec(dir, config({ date: "2025-03-09" }));
    expect(pinned && renderChat(pinned, messages)).toContain("\nToday Date: 09 Mar 2025\n\n");
    const given = await readChatSpec(
      dir,
      config({ date: "2025-03-09", options: { date_string: "1 April" } }),
    );
    expect(given && renderChat(given, messages)).toContain("\nToday Date: 1 April\n\n");
  });

  it("refuses a day that does not exist, naming the field and the format", () => {
    for (const date of ["2025-02-29", "2025-13-01", "26 Jul 2024", "2024-7-26"]) {
      const parsed = AssayConfigSchema.safeParse({
        max_length: 512,
        template: [{ slot: "answer" }],
        chat: { date },
        head: { type: "probe", probe: [1] },
      });
      expect(parsed.success, date).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toContain("YYYY-MM-DD");
      expect(parsed.error?.issues[0]?.path).toEqual(["chat", "date"]);
    }
  });

  it("is written as Python's strftime writes it in the C locale, for every day of four centuries", () => {
    // Date#toUTCString is locale-free by the standard: "Fri, 26 Jul 2024 00:00:00 GMT".
    const day = fc
      .integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2299, 11, 31) })
      .map((ms) => new Date(ms - (ms % 86_400_000)));
    fc.assert(
      fc.property(day, (date) => {
        const iso = date.toISOString().slice(0, 10);
        const [weekday, dd, mon, yyyy] = date.toUTCString().replace(",", "").split(" ");
        expect(strftimeOn(iso, "%d %b %Y")).toBe(`${dd} ${mon} ${yyyy}`);
        expect(strftimeOn(iso, "%a %Y-%m-%d %%")).toBe(`${weekday} ${iso} %`);
        expect(strftimeOn(iso, "%B").slice(0, 3)).toBe(mon);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a directive it cannot write rather than guessing, saying how to give the text", () => {
    expect(() => strftimeOn("2024-07-26", "%Z")).toThrow(/"%Z".*date_string/u);
  });
});
