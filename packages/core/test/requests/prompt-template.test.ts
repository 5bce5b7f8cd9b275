import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileTemplate, TemplateError } from "../../src/requests/prompt-template.js";
import type { Sample } from "../../src/sample.js";

const sample = (question: string, metadata: Record<string, unknown> = {}): Sample => ({
  id: "q1",
  taskId: "q1",
  candidateIndex: 0,
  question,
  answer: "",
  metadata,
  line: 3,
});

describe("compileTemplate", () => {
  it("fills any question into any text around it, braces written as {{ and }}", () => {
    const text = fc.string({ unit: "grapheme" });
    fc.assert(
      fc.property(text, text, text, (before, question, after) => {
        const braced = (s: string) => s.replaceAll("{", "{{").replaceAll("}", "}}");
        const template = compileTemplate(`${braced(before)}{question}${braced(after)}`);
        expect(template.render(sample(question))).toEqual({ text: `${before}${question}${after}` });
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it("reads nested metadata, and names the field a row lacks", () => {
    const template = compileTemplate("[{metadata.topic.name}] {question}");
    expect(template.render(sample("Why?", { topic: { name: "sky" } }))).toEqual({
      text: "[sky] Why?",
    });
    expect(template.render(sample("Why?"))).toEqual({
      field: "metadata.topic.name",
      message: "the template reads {metadata.topic.name}, which this row lacks",
    });
  });

  it("refuses unknown fields, lone braces and a template without a field", () => {
    expect(() => compileTemplate("{answer}")).toThrow(TemplateError);
    expect(() => compileTemplate("{question} }")).toThrow(/lone "}"/);
    expect(() => compileTemplate("{question")).toThrow(/never closed/);
    expect(() => compileTemplate("plain text")).toThrow(/reads no field/);
  });
});
