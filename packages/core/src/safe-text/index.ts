export { maskSecrets, redactUrl } from "./mask-secrets.js";
export { type EscapeTerminalOptions, escapeTerminal } from "./terminal-text.js";
