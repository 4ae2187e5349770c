/**
 * Values encrypted at rest (options.encryption): payloads, results, progress and log lines are
 * sealed here, in the client, before they are sent, and opened after they are read, so Redis and
 * its scripts only ever hold the sealed text. AES-256-GCM from node:crypto; no dependency.
 *
 * A sealed value is one string, `enc:v1:<key id>:<base64 of iv (12) | tag (16) | ciphertext>`:
 * a reader finds the key by its id, so values sealed with an older key still open once a new key
 * is listed first (rotation), and a reader without that key sees the envelope, not JSON, and
 * shows "encrypted" instead of failing. Plain values (written before encryption was turned on)
 * read as they always did.
 *
 * Every value takes a fresh random IV, payloads too: equal payloads seal to unrelated text, so a
 * reader of Redis cannot link them across queues or prefixes that share a key. put.lua's de-dup
 * still has to tell equal payloads apart from a collision of ids, so a payload is sealed as
 * `enc:v2:<key id>:<mac>:<base64 as above>`, where `<mac>` is an HMAC of the payload bound to its
 * prefix and queue (lua/include/identity.lua compares the text up to it). It shows only that two
 * payloads of one queue are equal, which their equal task ids (the keyed hash, bound the same way)
 * show anyway. Payloads sealed before (`enc:v1:`, with a synthetic IV: an HMAC of the plaintext)
 * still open.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { DecryptionError } from '../types/errors';

/** One key of options.encryption.keys, checked (options/scheduler.ts): 32 bytes, a unique id. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const PREFIX = 'enc:v1:';
/** A payload's envelope: v1's with the payload's MAC after the key id (see the module comment). */
const PAYLOAD_PREFIX = 'enc:v2:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The keys of one purpose, derived apart so that no two uses share key material. */
function derive(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `docket ${purpose}`, 32));
}

/** Whether `text` is a sealed value (else it is plain JSON, written without encryption). */
export function isSealed(text: string): boolean {
  return text.startsWith(PREFIX) || text.startsWith(PAYLOAD_PREFIX);
}

/**
 * Where the identity of `queue` under `prefix` starts each keyed hash and payload MAC: JSON of the
 * two names (which escapes every NUL), then a NUL, so no other pair of names gives the same text.
 */
function scope(prefix: string, queue: string): string {
  return `${JSON.stringify([prefix, queue])}\u0000`;
}

/** A scheduler's keys: seals with the first, opens with whichever one a value names. */
export class Keyring {
  private readonly first: { id: string; key: Buffer; identity: Buffer; mac: Buffer };
  private readonly byId = new Map<string, Buffer>();

  constructor(keys: readonly EncryptionKey[]) {
    for (const { id, key } of keys) this.byId.set(id, derive(key, 'encryption'));
    const { id, key } = keys[0];
    this.first = { id, key: this.byId.get(id)!, identity: derive(key, 'identity'), mac: derive(key, 'payload mac') };
  }

  /**
   * A task's id (hashing.ts's place): HMAC-SHA256 under the first key of its identity bound to its
   * prefix and queue, 32 hex characters as the default hash is. Redis never holds a plain hash of a
   * payload, which anyone could match against a guessed payload, and equal payloads in two queues
   * or prefixes get unrelated ids.
   */
  taskId(prefix: string, queue: string, identity: string): string {
    return createHmac('sha256', this.first.identity).update(scope(prefix, queue)).update(identity).digest('hex').slice(0, 32);
  }

  /** `text` sealed with the first key and a fresh random IV. */
  seal(text: string): string {
    return `${PREFIX}${this.first.id}:${this.body(text)}`;
  }

  /**
   * A payload of `queue` under `prefix` sealed as seal() seals, with its MAC after the key id, so
   * put.lua's de-dup can tell two seals of it from two payloads (see the module comment).
   */
  sealPayload(text: string, prefix: string, queue: string): string {
    const mac = createHmac('sha256', this.first.mac).update(scope(prefix, queue)).update(text).digest('hex').slice(0, 32);
    return `${PAYLOAD_PREFIX}${this.first.id}:${mac}:${this.body(text)}`;
  }

  /** base64 of a fresh IV, the GCM tag and `text` encrypted under the first key. */
  private body(text: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.first.key, iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  /** The text in sealed value `sealed` (either envelope), or a DecryptionError naming `what`. */
  open(sealed: string, what: string): string {
    // Both envelopes' heads are 7 characters long; a payload's MAC stands between its key id and its body.
    const payload = sealed.startsWith(PAYLOAD_PREFIX);
    const cut = sealed.indexOf(':', PREFIX.length);
    const id = sealed.slice(PREFIX.length, cut);
    const key = cut < 0 ? undefined : this.byId.get(id);
    if (!key) throw new DecryptionError(what, `its key ${JSON.stringify(id)} is not among options.encryption.keys`);
    const body = payload ? sealed.indexOf(':', cut + 1) + 1 : cut + 1;
    const raw = Buffer.from(body === 0 ? '' : sealed.slice(body), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptionError(what, 'it is too short to be a sealed value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new DecryptionError(what, 'it fails its authentication tag (damaged, or sealed with another key of that id)');
    }
  }
}

/**
 * A stored value as plain text: opened when sealed, as it is when plain. A sealed value this
 * reader cannot open is `undefined` (a view shows "encrypted") when `view`, else a DecryptionError.
 */
export function unseal(keyring: Keyring | null, text: string, what: string, view: boolean): string | undefined {
  if (!isSealed(text)) return text;
  if (!keyring) {
    if (view) return undefined;
    throw new DecryptionError(what, 'this scheduler has no options.encryption keys');
  }
  try {
    return keyring.open(text, what);
  } catch (err) {
    if (view) return undefined;
    throw err;
  }
}

/** What a view (the CLI, the dashboard) shows for a value it cannot decrypt. */
export const ENCRYPTED = 'encrypted';
