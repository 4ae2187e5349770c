/**
 * rekey: move a queue's until-start pointers from `waiting`, where docket 0.1 kept them, to
 * `redirects`, so a queue upgraded in place goes on de-duplicating the until-start tasks put while
 * their twin ran. One call, so no put sees half of them moved. createScheduler
 * (lib/redis/layout.ts) calls it on each queue that has `waiting`.
 */
import { script } from '../redis/op';
import { count } from '../redis/reply';

/** How many pointers `waiting` held (0: none, and nothing written). */
export const rekey = script<Record<string, never>, number>({
  name: 'rekey',
  flags: 'allow-oom',
  keys: ['waiting', 'redirects'],
  args: [],
  encode: () => [],
  decode: (reply) => count('rekey', reply),
});
