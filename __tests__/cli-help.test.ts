/**
 * The CLI's help (lib/surfaces/cli/help.ts), as `docket --help` and `docket help <command>` print
 * it: every line of every help text fits 100 columns, and a long usage does not push the overview's
 * descriptions right.
 */
import { cli } from './support/cli';
import { COMMANDS } from '../lib/surfaces/cli/commands';
import { wrap } from '../lib/surfaces/cli/help';
import { uniquePrefix } from './support/harness';

/** Every help text the CLI prints: the overview, then each command's. */
async function helpTexts(): Promise<Array<[string, string]>> {
  const prefix = uniquePrefix();
  const texts: Array<[string, string]> = [['docket --help', (await cli(prefix, ['--help'])).stdout]];
  for (const c of COMMANDS) texts.push([`docket help ${c.name}`, (await cli(prefix, ['help', c.name])).stdout]);
  return texts;
}

describe('help', () => {
  it('fits every line of every help text in 100 columns', async () => {
    const texts = await helpTexts();
    expect(texts).toHaveLength(COMMANDS.length + 1);
    const over = texts.flatMap(([name, text]) =>
      text
        .split('\n')
        .filter((l) => l.length > 100)
        .map((l) => `${name}: ${l}`),
    );
    expect(over).toEqual([]);
    // Nothing was cut to fit: the longest flag's words are all there.
    expect(texts.find(([name]) => name === 'docket help limit')![1].replace(/\s+/g, ' ')).toContain(
      "--group-rate <rate> most claims per group in any window, as --rate takes it (with --group: that group's own); off removes it",
    );
  });

  it("starts the overview's descriptions at one column, under 50, with limit's long usage on a line of its own", async () => {
    const [[, overview]] = await helpTexts();
    const commands = overview.slice(overview.indexOf('Commands:\n'), overview.indexOf('\n\nGlobal options'));
    const stats = commands.split('\n').find((l) => l.startsWith('  stats '))!;
    const column = stats.indexOf('counts and lifetime totals');
    expect(column).toBeLessThan(50);
    const limitAt = commands.split('\n').findIndex((l) => l.startsWith('  limit '));
    const summary = commands.split('\n')[limitAt + 2];
    expect(summary.indexOf("set or remove a queue's limits")).toBe(column);
  });

  it("offers for each command's --state and --limit only what that command takes (clean's are not list's)", async () => {
    const prefix = uniquePrefix();
    /** The words of `flag`'s help in `docket help <command>`, its wrapped lines joined. */
    const flagText = async (command: string, flag: string): Promise<string> => {
      const text = (await cli(prefix, ['help', command])).stdout.replace(/\n {25}/g, ' ');
      return text
        .split('\n')
        .find((l) => l.startsWith(`  ${flag} `))!
        .slice(25);
    };
    for (const command of ['list', 'clean']) {
      const states = (await flagText(command, '--state'))
        .replace(/\(.*\)/, '')
        .split(/,\s*|\s+or\s+/)
        .map((w) => w.trim());
      expect(states.length).toBeGreaterThanOrEqual(3);
      // Every state help names is taken: on a real Redis, each one runs (exit code 0).
      for (const state of states) {
        const args = command === 'list' ? ['list', 'q', '--state', state] : ['clean', 'q', '--state', state, '--yes'];
        expect(await cli(prefix, args)).toMatchObject({ code: 0 });
      }
      if (command === 'clean') expect(states.sort()).toEqual(['dead', 'delayed', 'ready']);
    }
    // clean's --limit is not list's: no cap of 1000, and it deletes rather than lists.
    const limit = await flagText('clean', '--limit');
    expect(limit).not.toMatch(/1000|to list/);
    expect(await cli(prefix, ['clean', 'q', '--state', 'ready', '--limit', '5000', '--yes'])).toMatchObject({ code: 0 });
  });

  it('wraps words at spaces under a hanging indent, and never cuts a word', () => {
    expect(wrap('aa bb cc dd', 5, 2)).toEqual(['aa bb', '  cc', '  dd']);
    expect(wrap('a-very-long-word b', 5)).toEqual(['a-very-long-word', 'b']);
    expect(wrap('', 10)).toEqual(['']);
  });
});
