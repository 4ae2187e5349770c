/**
 * Lua a test runs on Redis by itself (a digest of keys, a probe of cjson), run as docket runs its
 * own: a function of a library (FUNCTION LOAD, FCALL), never EVAL. The run's global teardown
 * checks that the shared server was sent no script at all (global-teardown.ts).
 */
import { createHash } from 'node:crypto';

interface Sender {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Runs Lua `code` (which reads KEYS and ARGV as a script would) with `keys` and `args`; answers its reply. */
export async function runLua(raw: Sender, code: string, keys: readonly string[] = [], args: readonly string[] = []): Promise<unknown> {
  const name = `test_${createHash('sha1').update(code).digest('hex').slice(0, 16)}`;
  await raw.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', `#!lua name=${name}\nredis.register_function('${name}', function(KEYS, ARGV)\n${code}\nend)`]);
  return raw.sendCommand(['FCALL', name, String(keys.length), ...keys, ...args]);
}
