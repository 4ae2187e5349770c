/**
 * Finds the tables of a markdown page that repeat the members of an exported type: the options,
 * fields and properties docs/reference/ is generated from (each is documented once, in its doc
 * comment). A table repeats a type when its first column is headed as a list of members
 * (Property, Option, Field...) and at least two of its rows, and most of them, open with a member
 * name of that one type in backticks (`prefix`, `delay?`). A table that sets things side by side
 * (spans by range, states by outcome, calls by cost) is headed by what it compares, and stays.
 */
import path from 'node:path';
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: true, skipLibCheck: true };

/** Each exported interface or class of `entry` declared under `root`, with its public member names. */
export function exportedMembers(entry: string, root: string): Map<string, Set<string>> {
  const program = ts.createProgram([entry], OPTIONS);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${entry} is not a module`);
  const types = new Map<string, Set<string>>();
  for (let symbol of checker.getExportsOfModule(module)) {
    const name = symbol.name;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias))) continue;
    const declarations = (symbol.declarations ?? []).filter((d) => !path.relative(root, d.getSourceFile().fileName).startsWith('..'));
    if (declarations.length === 0) continue;
    const members = new Set<string>();
    for (const property of checker.getDeclaredTypeOfSymbol(symbol).getProperties()) {
      // Methods are calls, which a page may well set side by side (what each costs, what each
      // throws); the check is for the options, fields and properties of a shape.
      if (property.flags & ts.SymbolFlags.Method) continue;
      const own = (property.declarations ?? []).filter((d) => !path.relative(root, d.getSourceFile().fileName).startsWith('..'));
      if (own.length > 0) members.add(property.name);
    }
    if (members.size > 0) types.set(name, members);
  }
  return types;
}

/** A table of a page: the line it starts on, its first header cell and the first cell of each body row. */
export interface Table {
  line: number;
  head: string;
  firsts: string[];
}

/** The tables of a markdown page, outside code fences. */
export function tables(markdown: string): Table[] {
  const found: Table[] = [];
  let fenced = false;
  let current: Table | undefined;
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    const row = !fenced && /^\s*\|/.test(text);
    if (!row) {
      current = undefined;
      return;
    }
    if (!current) {
      current = { line: i + 1, head: text.split('|')[1]?.trim() ?? '', firsts: [] };
      found.push(current);
      return; // the header row
    }
    if (/^\s*\|[\s:|-]+\|?\s*$/.test(text)) return; // the delimiter row
    current.firsts.push(text.split('|')[1]?.trim() ?? '');
  });
  return found;
}

/** First header cells of a table that lists a shape's members. */
const MEMBER_HEADS = /^(propert(y|ies)|options?|fields?|members?|names?|keys?|parameters?|arguments?)$/i;

/** The member name a first cell opens with: `name`, `name?` or `name: ...` in backticks. */
function memberName(cell: string): string | undefined {
  return /^`([A-Za-z_$][\w$]*)\??(?::[^`]*)?`/.exec(cell)?.[1];
}

/** Each table of `markdown` that repeats an exported type's members, as "line N repeats Type (a, b)". */
export function repeatedTables(markdown: string, types: Map<string, Set<string>>): string[] {
  const repeats: string[] = [];
  for (const table of tables(markdown)) {
    // Headed by a type's own name (`ResultOptions`, `PreviewTask` field): that type; headed as a
    // list of members: whichever type most of its rows name.
    const named = /^`([A-Za-z_$][\w$]*)`(?:\s+\w+)?$/.exec(table.head)?.[1];
    const candidates = named && types.has(named) ? [named] : MEMBER_HEADS.test(table.head) ? [...types.keys()] : [];
    const names = table.firsts.map(memberName);
    let best: { type: string; hits: string[] } | undefined;
    for (const type of candidates) {
      const members = types.get(type)!;
      const hits = names.filter((n): n is string => n !== undefined && members.has(n));
      if (!best || hits.length > best.hits.length) best = { type, hits };
    }
    if (best && best.hits.length >= 2 && best.hits.length * 2 > table.firsts.length) {
      repeats.push(`line ${table.line} repeats ${best.type} (${best.hits.join(', ')})`);
    }
  }
  return repeats;
}
