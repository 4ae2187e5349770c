/**
 * The Redis Functions libraries on a node, as `docket libraries` reads and removes them
 * (features/libraries.ts): FUNCTION LIST and FUNCTION DELETE. Loading and calling a library is
 * the script runner's (redis/scripts.ts), not these.
 */
import { array, text } from '../../redis/reply';
import { command } from './via';

/** A library FUNCTION LIST reports: its name and how many functions it registers. */
export interface LibraryEntry {
  name: string;
  functions: number;
}

/** A `[field, value, field, value, ...]` entry of FUNCTION LIST, by field; the values as they came. */
function entry(reply: unknown, what: string): Map<string, unknown> {
  const flat = array('FUNCTION LIST', reply, (n) => n % 2 === 0, what);
  const fields = new Map<string, unknown>();
  for (let i = 0; i < flat.length; i += 2) fields.set(text('FUNCTION LIST', flat[i], 'a field'), flat[i + 1]);
  return fields;
}

/** FUNCTION LIST LIBRARYNAME <pattern>: the libraries whose names match the glob `pattern`. */
export const functionList = command(
  (pattern: string) => ['FUNCTION', 'LIST', 'LIBRARYNAME', pattern],
  (reply): LibraryEntry[] =>
    array('FUNCTION LIST', reply, undefined, 'the libraries').map((library) => {
      const fields = entry(library, 'a library');
      return {
        name: text('FUNCTION LIST', fields.get('library_name'), 'the library name'),
        functions: array('FUNCTION LIST', fields.get('functions'), undefined, 'its functions').length,
      };
    }),
);

/** FUNCTION DELETE <library>: the library and every function of it go (an error if there is none). */
export const functionDelete = command(
  (library: string) => ['FUNCTION', 'DELETE', library],
  (reply) => void text('FUNCTION DELETE', reply, 'the reply'),
);
