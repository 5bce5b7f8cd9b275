export { maskSecrets, redactUrl } from "./mask-secrets.js";
export { shellWord } from "./shell-word.js";
export { type EscapeTerminalOptions, escapeTerminal } from "./terminal-text.js";
