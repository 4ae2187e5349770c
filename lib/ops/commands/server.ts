/**
 * The server and connection commands: the Redis clock, the start-up config checks, and what ends
 * a blocked wait (CLIENT ID of the blocking connection, CLIENT UNBLOCK from another, BLPOP).
 */
import { array, flag, text, count } from '../../redis/reply';
import { ReplyError } from '../../types/errors';
import { fieldMap } from './replies';
import { command } from './via';

/** TIME: the server's clock in epoch ms (its seconds and microseconds, cut to the ms). */
export const time = command(
  () => ['TIME'],
  (reply) => {
    const [seconds, micros] = array('TIME', reply, 2).map((part) => text('TIME', part, 'a part of the time'));
    if (!/^\d+$/.test(seconds) || !/^\d+$/.test(micros)) throw new ReplyError('TIME', `the time: expected seconds and microseconds, got ${seconds} and ${micros}`);
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  },
);

/** CONFIG GET of one parameter (or a glob): each matching parameter's value, by name. */
export const configGet = command(
  (parameter: string) => ['CONFIG', 'GET', parameter],
  (reply) => fieldMap('CONFIG GET', reply),
);

/** CLIENT ID: the id of the connection it is sent on, for a CLIENT UNBLOCK from another. */
export const clientId = command(
  () => ['CLIENT', 'ID'],
  (reply) => count('CLIENT ID', reply, 'the client id'),
);

/**
 * CLIENT LIST: the name of each connection of the node ('' for one without), one per connection.
 * Each line is `field=value` pairs; a name holds no spaces (CLIENT SETNAME refuses them).
 */
export const clientNames = command(
  () => ['CLIENT', 'LIST'],
  (reply) =>
    text('CLIENT LIST', reply, 'the client list')
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .map((line) => / name=(\S*)/.exec(` ${line}`)?.[1] ?? ''),
);

/** CLIENT UNBLOCK: true when the client was blocked and is now let go, false when it was not blocked. */
export const clientUnblock = command(
  (id: number) => ['CLIENT', 'UNBLOCK', String(id)],
  (reply) => flag('CLIENT UNBLOCK', reply, 'whether it was blocked'),
);

/** BLPOP of one list, for up to `seconds` (0 is for ever): the list and the value popped, or null once the time is up. */
export const blpop = command(
  (key: string, seconds: number) => ['BLPOP', key, seconds.toFixed(3)],
  (reply): [key: string, value: string] | null => {
    if (reply === null) return null;
    const [key, value] = array('BLPOP', reply, 2, 'the list and value');
    return [text('BLPOP', key, 'the list'), text('BLPOP', value, 'the value')];
  },
);

/** INFO of one section: its `name:value` lines, by name (the `# Section` lines dropped). */
export const info = command(
  (section: string) => ['INFO', section],
  (reply) => {
    const fields = new Map<string, string>();
    for (const line of text('INFO', reply, 'the info text').split(/\r?\n/)) {
      const at = line.indexOf(':');
      if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1));
    }
    return fields;
  },
);
