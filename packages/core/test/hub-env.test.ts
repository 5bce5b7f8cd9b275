import { describe, expect, it } from "vitest";
import { readEnv } from "../src/env.js";
import { ConfigError } from "../src/errors/config-error.js";
import { modelIdentity } from "../src/model-identity.js";

describe("the Hugging Face environment variables", () => {
  it("read HF_HUB_OFFLINE as huggingface_hub does, any case", () => {
    for (const on of ["1", "true", "YES", "On"])
      expect(readEnv({ HF_HUB_OFFLINE: on }).HF_HUB_OFFLINE).toBe(true);
    for (const off of ["0", "false", "no", "OFF"])
      expect(readEnv({ HF_HUB_OFFLINE: off }).HF_HUB_OFFLINE).toBe(false);
    expect(readEnv({}).HF_HUB_OFFLINE).toBe(false);
  });

  it("refuse a value that is not one, naming the variable", () => {
    expect(() => readEnv({ HF_HUB_OFFLINE: "maybe" })).toThrow(ConfigError);
    expect(() => readEnv({ HF_HUB_OFFLINE: "maybe" })).toThrow(/HF_HUB_OFFLINE: expected 1 or 0/);
    expect(() => readEnv({ HF_ENDPOINT: "hf-mirror" })).toThrow(/HF_ENDPOINT: expected a URL/);
  });

  it("read ASSAY_HUB_RETRY_WAIT as seconds, refusing what is not a number from 0 up", () => {
    expect(readEnv({ ASSAY_HUB_RETRY_WAIT: "90" }).ASSAY_HUB_RETRY_WAIT).toBe(90);
    expect(readEnv({ ASSAY_HUB_RETRY_WAIT: "0.5" }).ASSAY_HUB_RETRY_WAIT).toBe(0.5);
    expect(readEnv({}).ASSAY_HUB_RETRY_WAIT).toBeUndefined();
    for (const bad of ["", "-1", "5m", "soon"]) {
      expect(() => readEnv({ ASSAY_HUB_RETRY_WAIT: bad })).toThrow(
        /ASSAY_HUB_RETRY_WAIT: expected seconds, a number from 0 up/,
      );
    }
  });
});

describe("a hub id's identity", () => {
  it("keeps its revision: owner/name@v1 and owner/name are two models", () => {
    expect(modelIdentity("acme/verifier@v1", "/nowhere")).toBe("acme/verifier@v1");
    expect(modelIdentity("acme/verifier", "/nowhere")).toBe("acme/verifier");
  });
});
