/**
 * `docket libraries`: docket's Redis Functions libraries on the server (one per version or build
 * that ever loaded there), and with --remove-unused the deletion of those no connection names
 * (features/libraries.ts says how "unused" is judged, and why a wrong judgement does no harm).
 */
import { libraries as readLibraries, removeUnused, unused, type LibraryInfo } from '../../features/libraries';
import { contextFor } from '../live';
import { confirmed } from './clean';
import { positionals, RunError, type Command } from './command';
import { NONE, table } from './format';

/** `3 unused docket libraries`, `1 docket library`. */
function counted(count: number, what: string): string {
  return `${count} ${what}${count === 1 ? 'y' : 'ies'}`;
}

/** What the last column says of a library: this process's own, or what --remove-unused would delete. */
function note(library: LibraryInfo): string {
  if (library.own) return 'this docket';
  return unused(library) ? 'unused' : NONE;
}

function librariesText(found: LibraryInfo[]): string {
  if (found.length === 0) return 'no docket library is loaded on the server\n';
  const columns = [
    { title: 'NODE' },
    { title: 'LIBRARY' },
    { title: 'VERSION' },
    { title: 'HASH' },
    { title: 'FUNCTIONS', right: true },
    { title: 'CONNECTIONS', right: true },
    { title: 'NOTE' },
  ];
  const rows = found.map((l) => [l.node, l.name, l.version ?? NONE, l.hash ?? NONE, String(l.functions), String(l.connections), note(l)]);
  const idle = found.filter(unused).length;
  const hint = idle > 0 ? `${counted(idle, 'unused docket librar')}: docket libraries --remove-unused deletes them\n` : '';
  return `${table(columns, rows)}${hint}`;
}

function removedText(removed: LibraryInfo[]): string {
  if (removed.length === 0) return 'no unused docket library: nothing was deleted\n';
  return `${removed.map((l) => `removed ${l.name} from ${l.node}\n`).join('')}removed ${counted(removed.length, 'docket librar')}\n`;
}

export const libraries: Command = {
  name: 'libraries',
  usage: '[--remove-unused [--yes]]',
  summary: 'the Redis Functions libraries docket loaded on the server (one per version that ran there), or delete the unused ones',
  details:
    'A library counts as in use while a connection on its node carries its name (every connection docket opens is named ' +
    "docket:<library>), or when it is this docket's own. That is a heuristic: a process whose connections have no name " +
    '(an ACL without CLIENT SETNAME, a docket older than the names) looks unused. Deleting a library still in use is ' +
    'harmless: its process gets "Function not found" on its next call and loads it again.',
  flags: ['remove-unused', 'yes'],
  prepare(input) {
    positionals('libraries', input, []);
    const remove = input.flags['remove-unused'] === true;
    return async (ctx) => {
      const c = contextFor(await ctx.connect());
      if (!c) throw new RunError('libraries: this scheduler has no connection docket can read');
      const found = await readLibraries(c);
      if (!remove) {
        ctx.out.emit({ libraries: found }, () => librariesText(found));
        return 0;
      }
      const idle = found.filter(unused).length;
      if (idle > 0) await confirmed(ctx, input.flags.yes === true, `Delete the ${counted(idle, 'unused docket librar')} (no connection names them)?`);
      const removed = idle > 0 ? await removeUnused(c) : [];
      ctx.out.emit({ removed }, () => removedText(removed));
      return 0;
    };
  },
};
