import fc from "fast-check";
import { propertyRuns, propertyScale } from "../support/property-runs.js";

// Properties that name no run count use fast-check's default (100); a deep run scales
// them too, as `propertyRuns` scales those that do.
if (propertyScale() !== 1) {
  fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: propertyRuns(100) });
}
