// Entry point named in the design: judge templates import the sanitizer from here.
export {
  createSanitizer,
  DEFAULT_DELIMITERS,
  DEFAULT_REPLACEMENT,
  type Neutralized,
  type SanitizeOptions,
  type Sanitizer,
  sanitizeUntrusted,
} from "./untrusted/sanitize-untrusted.js";
