/**
 * Lists the public symbols of a package entry that have no doc comment, with the TypeScript
 * compiler's own checker (no typedoc run, so the test stays fast). A symbol is public when the
 * entry exports it, or when it is a member of an exported interface or class declared under the
 * source root and not private, protected or `#private`. Members declared outside the root (those
 * a class inherits from Error, say) are not ours to document.
 */
import path from 'node:path';
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: true, skipLibCheck: true };

/** True when any declaration carries a comment: an overloaded method needs one on one signature only. */
function documented(symbol: ts.Symbol, checker: ts.TypeChecker): boolean {
  return symbol.getDocumentationComment(checker).length > 0 || (symbol.declarations ?? []).some((d) => ts.getJSDocTags(d).length > 0);
}

/** Private, protected and `#private` members are not part of the API a caller sees. */
function hidden(declaration: ts.Declaration): boolean {
  if (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return true;
  const name = ts.getNameOfDeclaration(declaration);
  return name !== undefined && ts.isPrivateIdentifier(name);
}

/**
 * The undocumented public names of `entry` (`Scheduler`, `Scheduler.put`...), in export order.
 * `root` is the source folder: declarations outside it are skipped.
 */
export function undocumented(entry: string, root: string): string[] {
  const program = ts.createProgram([entry], OPTIONS);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${entry} is not a module`);
  const inRoot = (d: ts.Declaration) => !path.relative(root, d.getSourceFile().fileName).startsWith('..');
  const missing: string[] = [];
  const seen = new Set<ts.Symbol>();

  const visit = (symbol: ts.Symbol, name: string, member: boolean) => {
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    if (seen.has(symbol)) return;
    seen.add(symbol);
    const declarations = (symbol.declarations ?? []).filter(inRoot);
    if (declarations.length === 0 || (member && declarations.every(hidden))) return;
    if (!documented(symbol, checker)) missing.push(name);
    if (member || !(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class))) return;
    for (const property of checker.getDeclaredTypeOfSymbol(symbol).getProperties()) visit(property, `${name}.${property.name}`, true);
  };
  for (const symbol of checker.getExportsOfModule(module)) visit(symbol, symbol.name, false);
  return missing;
}
