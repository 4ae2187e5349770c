/**
 * The `queue` option most calls take: a leaf of lib/types/, which every concept's options extend.
 */

/** The `queue` option most methods take. */
export interface QueueOption {
  /** The queue to act on. Default: the scheduler's `queue` option (`'default'` unless set). */
  queue?: string;
}
