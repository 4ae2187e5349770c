/**
 * The one way an option is checked: a zod parse whose failure becomes a ValidationError naming
 * the first bad field (`options.retry.max`), so every call reports bad input in the same words and
 * with the same typed error, whichever schema found it.
 */
import type { z } from 'zod';
import { unreadable, ValidationError } from '../../types/errors';

/** Parses `value` with `schema`, or throws a ValidationError naming the first bad field. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    result = schema.safeParse(value);
  } catch (err) {
    // zod lets what a getter or proxy trap of the value throws through.
    throw unreadable(field, err);
  }
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // Of several unknown options, name the first: the field is one place to look.
  const path = [...issue.path.map(String), ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [])];
  const name = path.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`), field);
  const message = issue.code === 'unrecognized_keys' ? 'is not a known option' : issue.message;
  throw new ValidationError(name, message);
}
