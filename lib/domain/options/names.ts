/**
 * The names callers give: queues, the key prefix, fair groups, tasks, schedules, and the hashes
 * put() returned. Each ends up inside a Redis key or a stored string, so what a name may hold
 * follows from where it goes, and is said once here for every option and argument that takes it.
 */
import { z } from 'zod';

const NAME_RULE = /^[^\s{}*?[\]\\\u0000-\u001f\u007f]+$/;
/**
 * A lone surrogate (half of a UTF-16 pair): Redis stores names and keys as UTF-8, where every lone
 * surrogate becomes U+FFFD, so 'k\ud800' and 'k\udfff' would name one task. Such strings are refused.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
export const wellFormed = { error: 'must be well-formed Unicode (it has a lone surrogate)' };
export const isWellFormed = (s: string) => !LONE_SURROGATE.test(s);
const NAME_HINT = 'no braces, glob characters (* ? [ ]), backslashes or white space';

/**
 * A name of 1 to `max` characters, each allowed by `rule` (else the error says `hint`), and
 * well-formed: every kind of name is checked in this order, with these words.
 */
function nameOf(max: number, rule: RegExp, hint: string) {
  return z
    .string({ error: 'expected a string' })
    .min(1, { error: `must be 1 to ${max} characters` })
    .max(max, { error: `must be 1 to ${max} characters` })
    .regex(rule, { error: hint })
    .refine(isWellFormed, wellFormed);
}

/** Queue names become a Redis Cluster hash tag, so braces would break the slot; globs break SCAN. */
export const queueName = nameOf(128, NAME_RULE, `must have ${NAME_HINT}`);

export const prefixName = nameOf(64, NAME_RULE, `must have ${NAME_HINT}`);

/** A fair-scheduling group (a tenant): stored in the task record and in option strings, so no `|`. */
export const groupName = nameOf(128, /^[^|\s\u0000-\u001f\u007f]+$/, 'must have no | , white space or control characters');

/** A task's name: short, printable, no '|' (put.lua's options are '|'-separated). */
export const taskName = nameOf(128, /^[^|\u0000-\u001f\u007f]+$/, 'must have no | or control characters');

/** A recurring schedule's name: a hash field and part of each occurrence's de-dup key. */
export const scheduleName = nameOf(200, NAME_RULE, `must have ${NAME_HINT}`);

/** A task's hash as put() returned it: the one check of every hash a caller gives. */
export const taskHash = z
  .string({ error: 'expected the hash string that put() returned' })
  .min(1, { error: 'expected the hash string that put() returned' })
  .max(1024, { error: 'must be at most 1024 characters' });
