/**
 * Redis URLs: checked here before node-redis sees them, and shown only with the password hidden.
 * node-redis parses a URL with WHATWG's URL, which reads a password's unencoded `/ # ?` as the end
 * of the host: its "Invalid URL" TypeError then carries the whole URL (password included) in its
 * `input`, where a logger's inspect() prints it. So a URL is checked first, and errors about it
 * never quote it.
 */

const ENCODE_HINT = 'percent-encode / # ? @ : and % in the user name and password (encodeURIComponent)';

/** What is wrong with `url` as a Redis URL, in words that do not quote it; null when it is fine. */
export function urlProblem(url: string): string | null {
  if (!/^rediss?:\/\//i.test(url)) return 'expected a redis:// or rediss:// URL';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `is not a valid URL (a port from 0 to 65535?); ${ENCODE_HINT}`;
  }
  if (!parsed.hostname) return 'has no host';
  // node-redis reads the path as a database number; anything else is usually a password's unencoded '/'.
  if (!/^(\/\d*)?$/.test(parsed.pathname)) return `its path must be a database number such as /0; ${ENCODE_HINT}`;
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
  } catch {
    return `has a malformed %-escape in its user name or password; ${ENCODE_HINT}`;
  }
  return null;
}

/**
 * The URL with its credentials hidden, for messages. Everything between `//` and the last `@` is
 * credentials, whatever characters they hold: of `user:pass`, the user stays. A URL that does not
 * parse and has no `@` may still hold a password whose `@` went missing, so its rest is hidden too.
 */
export function redact(url: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url)?.[0];
  if (!scheme) return '(not a URL)';
  const rest = url.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const colon = rest.indexOf(':');
    const user = colon >= 0 && colon < at ? `${rest.slice(0, colon)}:***` : '***';
    return `${scheme}${user}@${rest.slice(at + 1)}`;
  }
  return urlProblem(url) === null ? url : `${scheme}***`;
}

/**
 * Whether `url` carries a password: anything after a `:` in what stands between `//` and the last
 * `@` (a URL that does not parse included, as redact() reads it).
 */
export function hasPassword(url: string): boolean {
  const rest = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '');
  if (rest === url) return false;
  const at = rest.lastIndexOf('@');
  if (at < 0) return false;
  const colon = rest.indexOf(':');
  return colon >= 0 && colon < at - 1;
}
