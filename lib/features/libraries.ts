/**
 * docket's Redis Functions libraries on a server, and the removal of those no process runs any
 * more (`docket libraries [--remove-unused]`). Every version of docket, and every build of one,
 * loads a library of its own (redis/library.ts), so a server keeps one per version ever deployed
 * until someone deletes them.
 *
 * Which ones still run is judged by name: every connection docket opens carries the name
 * `docket:<library>` (redis/client-name.ts). A library that no connection on its node names, and
 * that is not this process's own, is taken as unused. That is a heuristic, and good enough: a
 * process whose connections are unnamed (an ACL that refuses CLIENT SETNAME, a version of docket
 * older than the names, a caller who named docket's connections) or that is between connections
 * looks unused, and its library is deleted. Nothing breaks then: its next call gets "Function not
 * found" and loads the library again (redis/scripts.ts), as after a FUNCTION FLUSH.
 */
import { LIBRARY_PREFIX, docketLibrary } from '../redis/library';
import { libraryOfClient } from '../redis/client-name';
import type { Context } from '../redis/context';
import type { MasterNode } from '../redis/connection';
import { functionDelete, functionList } from '../ops/commands/functions';
import { clientNames } from '../ops/commands/server';
import { atNode } from '../ops/commands/via';

/** One docket library on one master node. */
export interface LibraryInfo {
  /** The master it is on: `host:port`. */
  node: string;
  /** Its name: `docket_<version>_<hash>`. */
  name: string;
  /**
   * The docket version its name carries (`0.1.0`; a pre-release's `-` and `.` both read back as
   * `.` after the first `-`), or null for a name docket does not make.
   */
  version: string | null;
  /** The first 12 hex digits of the sha1 of its code, or null for a name docket does not make. */
  hash: string | null;
  /** How many functions it registers. */
  functions: number;
  /** Whether it is the library this process calls. */
  own: boolean;
  /** How many connections on its node carry its name (`docket:<name>`). */
  connections: number;
}

/** `docket_<version with _>_<12 hex>`, as library.ts names a library. */
const NAME = new RegExp(`^${LIBRARY_PREFIX}(.+)_([0-9a-f]{12})$`);

/** The version and hash a library's name carries, or nulls for a name docket does not make. */
export function parseLibraryName(name: string): { version: string | null; hash: string | null } {
  const match = NAME.exec(name);
  if (!match) return { version: null, hash: null };
  const [, underscored, hash] = match;
  // library.ts writes every non-word character as `_`: 0.1.0 -> 0_1_0, 1.0.0-rc.1 -> 1_0_0_rc_1.
  const parts = underscored.split('_');
  const release = parts.slice(0, 3);
  const version = release.length === 3 && release.every((p) => /^\d+$/.test(p)) ? `${release.join('.')}${parts.length > 3 ? `-${parts.slice(3).join('.')}` : ''}` : underscored;
  return { version, hash };
}

/** The docket libraries on `node`, each with the connections there that name it. */
async function onNode(ctx: Context, node: MasterNode): Promise<LibraryInfo[]> {
  const via = (what: string) => atNode(node, { ms: ctx.options.commandTimeout, what });
  const [found, names] = await Promise.all([functionList(via('FUNCTION LIST'), `${LIBRARY_PREFIX}*`), clientNames(via('CLIENT LIST'))]);
  const users = new Map<string, number>();
  for (const name of names) {
    const library = libraryOfClient(name);
    if (library !== null) users.set(library, (users.get(library) ?? 0) + 1);
  }
  const own = docketLibrary().name;
  return found
    .map((library) => ({
      node: node.address,
      name: library.name,
      ...parseLibraryName(library.name),
      functions: library.functions,
      own: library.name === own,
      connections: users.get(library.name) ?? 0,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * docket's libraries on every master (the one server, or each master of a cluster): FUNCTION LIST
 * of the names that start `docket_`, and CLIENT LIST for the connections that name each.
 */
export async function libraries(ctx: Context): Promise<LibraryInfo[]> {
  const nodes = await ctx.conn.masters();
  return (await Promise.all(nodes.map((node) => onNode(ctx, node)))).flat();
}

/** Whether removeUnused deletes `library`: one docket made, not this process's, named by no connection. */
export function unused(library: LibraryInfo): boolean {
  return library.hash !== null && !library.own && library.connections === 0;
}

/**
 * Deletes (FUNCTION DELETE) every docket library that no connection on its node names and that is
 * not this process's own, and returns those it deleted. The judgement is by connection names, a
 * heuristic (see the top): a library deleted while a process still runs it is loaded again on
 * that process's next call. A library gone meanwhile (another operator's removal) is not counted.
 * A library whose name docket does not make (`docket_custom`) is never deleted.
 */
export async function removeUnused(ctx: Context): Promise<LibraryInfo[]> {
  const nodes = new Map((await ctx.conn.masters()).map((node) => [node.address, node]));
  // Read again, not taken from an earlier listing: a process may have started meanwhile.
  const doomed = (await libraries(ctx)).filter(unused);
  const removed = await Promise.all(
    doomed.map(async (library) => {
      const node = nodes.get(library.node);
      if (!node) return null;
      try {
        await functionDelete(atNode(node, { ms: ctx.options.commandTimeout, what: 'FUNCTION DELETE' }), library.name);
        return library;
      } catch (err) {
        if (/library not found/i.test(String((err as { cause?: unknown }).cause))) return null;
        throw err;
      }
    }),
  );
  return removed.filter((library): library is LibraryInfo => library !== null);
}
