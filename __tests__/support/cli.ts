/**
 * The CLI run in-process through main() against the test Redis, both streams captured: shared by
 * the CLI test files that name a prefix per test.
 */
import { main } from '../../lib/surfaces/cli/main';
import { testUrl } from './harness';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args` under `prefix` on the test Redis (or `url`). */
export async function cli(prefix: string, args: string[], url = testUrl()): Promise<CliResult> {
  const result = { code: -1, stdout: '', stderr: '' };
  const io = { stdout: { write: (s: string) => (result.stdout += s) }, stderr: { write: (s: string) => (result.stderr += s) }, env: {} };
  result.code = await main([...args, '--url', url, '--prefix', prefix], io);
  return result;
}
