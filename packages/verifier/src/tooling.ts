// What offline model tools (`@assay/model-tools`: model check, prepare, probe fitting, tiny
// models) build on besides the scoring API (`@assay/verifier/tooling`): a model folder's
// files, the ONNX wire format, and the prompt as the tokenizer sees it; and for the verifier
// benchmark, the session options and row padding of a forward pass.

export { renderedDate } from "./chat/chat-template.js";
export { promptFormat } from "./fit/prompt-format.js";
export { preparedOutput } from "./graph/prepared-names.js";
export {
  bytesFieldHeader,
  type ProtoField,
  ProtoReader,
  WireType,
} from "./graph/proto-reader.js";
export { folderFile } from "./model/folder-file.js";
export { readAssayConfig, readJsonFile } from "./model/read-assay-config.js";
export { sessionOptionsFor } from "./session/create-session.js";
export { padRows } from "./session/model-runner.js";
export { pieceText } from "./template/resolve-prompt.js";
