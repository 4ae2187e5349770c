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
 * Payloads are sealed deterministically (the IV is an HMAC of the plaintext: the synthetic-IV
 * construction of AES-SIV, RFC 5297), so equal payloads seal to equal text and put.lua's de-dup,
 * which compares the stored payload with the new one, works on sealed text unchanged. It shows
 * only that two payloads are equal, which their equal task ids (the keyed hash) show anyway; an
 * IV repeats only for the same plaintext under the same key, which GCM tolerates (it gives away
 * that equality, nothing more). Results, progress and log lines take a random IV.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { DecryptionError } from './errors';
import type { HashFunction } from './hashing';

/** One key of options.encryption.keys, checked (options/scheduler.ts): 32 bytes, a unique id. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The keys of one purpose, derived apart so that no two uses share key material. */
function derive(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `docket ${purpose}`, 32));
}

/** Whether `text` is a sealed value (else it is plain JSON, written without encryption). */
export function isSealed(text: string): boolean {
  return text.startsWith(PREFIX);
}

/** A scheduler's keys: seals with the first, opens with whichever one a value names. */
export class Keyring {
  private readonly first: { id: string; key: Buffer; iv: Buffer };
  private readonly byId = new Map<string, Buffer>();

  constructor(keys: readonly EncryptionKey[]) {
    for (const { id, key } of keys) this.byId.set(id, derive(key, 'encryption'));
    const { id, key } = keys[0];
    this.first = { id, key: this.byId.get(id)!, iv: derive(key, 'synthetic iv') };
  }

  /**
   * The identity hash (hashing.ts's place): HMAC-SHA256 under the first key, 32 hex characters as
   * the default hash is. Redis never holds a plain hash of a payload, which anyone could match
   * against a guessed payload.
   */
  hash(): HashFunction {
    const key = derive(this.first.key, 'identity');
    return (identity) => createHmac('sha256', key).update(identity).digest('hex').slice(0, 32);
  }

  /** `text` sealed with the first key; `deterministic` for payloads (see the module comment). */
  seal(text: string, deterministic = false): string {
    const plain = Buffer.from(text, 'utf8');
    const iv = deterministic ? createHmac('sha256', this.first.iv).update(plain).digest().subarray(0, IV_BYTES) : randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.first.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return `${PREFIX}${this.first.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The text in sealed value `sealed`, or a DecryptionError naming `what`. */
  open(sealed: string, what: string): string {
    const cut = sealed.indexOf(':', PREFIX.length);
    const id = sealed.slice(PREFIX.length, cut);
    const key = cut < 0 ? undefined : this.byId.get(id);
    if (!key) throw new DecryptionError(what, `its key ${JSON.stringify(id)} is not among options.encryption.keys`);
    const raw = Buffer.from(sealed.slice(cut + 1), 'base64');
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
