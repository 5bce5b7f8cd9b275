import { describe, expect, it } from "vitest";
import {
  argsWithoutDevices,
  childArgsFor,
  parseDeviceList,
} from "../src/distributed/per-device.js";

describe("one GPU worker per device", () => {
  const argv = [
    "worker",
    "--pool",
    "gpu",
    "--model",
    "m",
    "--devices",
    "0,2",
    "--metrics-port",
    "9465",
  ];

  it("gives each child its device and its own metrics port", () => {
    const base = argsWithoutDevices(argv);
    expect(base).toEqual(["worker", "--pool", "gpu", "--model", "m", "--metrics-port", "9465"]);
    expect(childArgsFor(base, 2, 1)).toEqual([
      "worker",
      "--pool",
      "gpu",
      "--model",
      "m",
      "--metrics-port",
      "9466",
      "--device",
      "cuda:2",
    ]);
  });

  it("parses device lists and refuses bad ones", () => {
    expect(parseDeviceList("0, 1,1,3")).toEqual([0, 1, 3]);
    expect(() => parseDeviceList("0,gpu1")).toThrow(
      'Expected --devices to be GPU ids like 0,1,2 (integers from 0 and up), got "0,gpu1".',
    );
    // An empty id is no GPU 0 (Number("") is 0).
    for (const bad of ["", "0,", "-1"]) expect(() => parseDeviceList(bad)).toThrow(/--devices/);
  });
});
