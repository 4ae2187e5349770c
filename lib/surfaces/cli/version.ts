/**
 * `docket --version`: the version in docket's package.json, read when asked. The file sits three
 * levels up both from lib/surfaces/cli/ (a clone, run through ts-node) and from dist/surfaces/cli/ (an install), and
 * npm packs it always; reading it, not importing it, keeps it out of the build (rootDir is lib/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunError, type Run } from './command';

/** The `version` field of docket's package.json; a RunError when it cannot be read. */
export function packageVersion(): string {
  const path = join(__dirname, '..', '..', '..', 'package.json');
  let version: unknown;
  try {
    version = (JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown }).version;
  } catch (err) {
    throw new RunError(`cannot read the version from ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof version !== 'string') throw new RunError(`${path} has no version`);
  return version;
}

/** Prints the version (`0.1.0`), or `{ "version": "0.1.0" }` under --json; connects to nothing. */
export const printVersion: Run = async ({ out }) => {
  const version = packageVersion();
  out.emit({ version }, () => `${version}\n`);
  return 0;
};
