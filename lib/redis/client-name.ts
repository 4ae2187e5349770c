/**
 * The name every connection docket opens itself carries (CLIENT SETNAME): `docket:<library>`, the
 * Redis Functions library its process calls (library.ts). CLIENT LIST then tells which libraries
 * some process still calls, so `docket libraries --remove-unused` (features/libraries.ts) can
 * delete those of versions no longer running. A caller's own client is never renamed.
 */
import type { Standalone } from '../types/client';
import { docketLibrary } from './library';

/** What every docket connection's name starts with; the library's name follows. */
export const CLIENT_NAME_PREFIX = 'docket:';

/** The name of the connections of a process that calls `library` (by default, this process's). */
export function clientName(library = docketLibrary().name): string {
  return `${CLIENT_NAME_PREFIX}${library}`;
}

/** The library a connection's name says its process calls, or null for a name docket did not give. */
export function libraryOfClient(name: string): string | null {
  return name.startsWith(CLIENT_NAME_PREFIX) ? name.slice(CLIENT_NAME_PREFIX.length) : null;
}

/**
 * Names a node-redis client docket opened (not yet connected) each time it connects, reconnects
 * included. Not node-redis's `name` option: it sends CLIENT SETNAME as part of the handshake, so an
 * ACL without CLIENT SETNAME would fail every connect. Here a refusal is ignored: the name only
 * serves `docket libraries`, and a connection without it merely looks unused there.
 */
export function nameOnConnect(client: Standalone, name = clientName()): void {
  // 'ready' comes once the handshake (AUTH, SELECT) is done, on every connect; the SETNAME goes out
  // before any command docket sends after connect() resolves.
  (client as unknown as { on(event: 'ready', listener: () => void): unknown }).on('ready', () => {
    client.sendCommand(['CLIENT', 'SETNAME', name]).catch(() => {});
  });
}

/** Whether a connect failed because the ACL refused CLIENT SETNAME (node-redis's `name` option). */
export function isNameRefusal(err: Error | undefined): boolean {
  const message = err?.message ?? '';
  return /NOPERM/.test(message) && /setname/i.test(message);
}
