import { join } from "node:path";
import ts from "typescript";
import { ROOT } from "./paths.js";

/**
 * Type-checks `text` as a strict TypeScript module named `test/infra/<name>`, resolving
 * imports from the repository's node_modules. Returns "where: message" per error, `where`
 * naming what the erring line (0-based) declares.
 */
export function typecheckSource(
  name: string,
  text: string,
  lib: string[],
  where: (line: number) => string,
): string[] {
  const fileName = join(ROOT, "test", "infra", name);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib,
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (file, language, ...rest) =>
    file === fileName
      ? ts.createSourceFile(file, text, language)
      : getSourceFile.call(host, file, language, ...rest);
  host.fileExists = (file) => file === fileName || fileExists.call(host, file);
  const program = ts.createProgram([fileName], options, host);
  const source = program.getSourceFile(fileName);
  return ts.getPreEmitDiagnostics(program, source).map((diagnostic) => {
    const line =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
        : -1;
    return `${where(line)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
  });
}
