/**
 * One way to Redis: outside lib/redis/ (the transport: the connection, the cluster link, the script
 * runner) and lib/ops/ (the scripts, and the plain commands in lib/ops/commands/), no module of
 * lib/ sends a raw command, so every reply is decoded and checked in one place. A raw command is a
 * call of a `send` or `sendCommand` method. The sources are read with the TypeScript compiler's
 * parser, so a comment, a string, or a duck-type test such as options/scheduler.ts's
 * `typeof v.sendCommand === 'function'` is no call; and a module's own method is not named `send`
 * (heartbeat's beatOnce, logs' storeBatch, progress' storeLatest), so the rule needs no exceptions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const LIB = path.join(__dirname, '..', 'lib');
/** Where raw commands belong, relative to lib/. */
const LAYER = ['redis/', 'ops/'];
const RAW = new Set(['send', 'sendCommand']);

function libFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return libFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The method a callee names, through parentheses, `!` and casts: `a.send`, `a['send']`, `(a as B).send!`. */
function methodName(callee: ts.Expression): string | null {
  let e = callee;
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isTypeAssertionExpression(e)) e = e.expression;
  if (ts.isPropertyAccessExpression(e)) {
    const name = e.name.text;
    // conn.send.call(conn, ...) and the like send too.
    if ((name === 'call' || name === 'apply' || name === 'bind') && ts.isPropertyAccessExpression(e.expression)) return e.expression.name.text;
    return name;
  }
  if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) return e.argumentExpression.text;
  return null;
}

/** Each call of a send or sendCommand method in `source`, as `file:line: call`. */
function rawSends(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const name = methodName(node.expression);
      if (name !== null && RAW.has(name)) found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${node.getText(sf).slice(0, 100)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('the operations layer', () => {
  const outside = libFiles(LIB)
    .map((file) => path.relative(LIB, file).split(path.sep).join('/'))
    .filter((file) => !LAYER.some((dir) => file.startsWith(dir)))
    .sort();

  it('reads every module of lib/ outside lib/redis/ and lib/ops/', () => {
    expect(outside.length).toBeGreaterThan(40);
    expect(outside).toEqual(
      expect.arrayContaining(['domain/options/scheduler.ts', 'features/events.ts', 'life/idle.ts', 'surfaces/live.ts', 'types/errors.ts', 'surfaces/facade/scheduler.ts']),
    );
    expect(outside.some((file) => file.startsWith('redis/') || file.startsWith('ops/'))).toBe(false);
  });

  it('sends no raw command from any of them', () => {
    expect(outside.flatMap((file) => rawSends(file, readFileSync(path.join(LIB, file), 'utf8')))).toEqual([]);
  });

  it('finds a raw command however it is called', () => {
    const planted = [
      "await ctx.conn.send(key, ['HGETALL', key], deadline);",
      "const id = blocker.sendCommand<number>(['CLIENT', 'ID']);",
      "void (client as Standalone).sendCommand(['PING']);",
      "conn['send'](key, ['GET', key]);",
      "conn.send.call(conn, key, ['GET', key]);",
      'this.send(0);',
      "client?.sendCommand!(['PING']);",
    ];
    for (const line of planted) expect({ line, found: rawSends('planted.ts', `async function f() {\n  ${line}\n}\n`) }).toEqual({ line, found: [expect.stringMatching(/^planted\.ts:2: /)] });
  });

  it("takes no duck-type test, comment or string for one, options/scheduler.ts's included", () => {
    const options = readFileSync(path.join(LIB, 'domain', 'options', 'scheduler.ts'), 'utf8');
    expect(options).toMatch(/typeof \(v as \{ sendCommand\?: unknown \}\)\.sendCommand === 'function'/);
    expect(rawSends('domain/options/scheduler.ts', options)).toEqual([]);
    const harmless = [
      "const ok = typeof v.sendCommand === 'function';",
      '// ctx.conn.send(key, args) went through the commands',
      'const text = \'client.sendCommand(["PING"])\';',
      'const { send } = ops;',
      'await flush(); await sendAll();',
    ];
    for (const line of harmless) expect({ line, found: rawSends('planted.ts', line) }).toEqual({ line, found: [] });
  });
});
