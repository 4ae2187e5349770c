/**
 * What keeps the dashboard's buttons from being pressed by anyone else: the access token (a
 * bearer header or a cookie set from `?token=` once), a per-handler CSRF token on every write,
 * same-origin checks on writes, the Host check against DNS rebinding, and the response headers
 * that keep the page's own script the only script it runs.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Compares two secrets in constant time. Both sides are hashed first, so neither their contents
 * nor their lengths leak through the time taken.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** A fresh random secret, URL- and header-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A per-response nonce for the page's one `<style>` and one `<script>`. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The cookie's name carries a short digest of the token: cookies are not kept apart by port, so
 * two dashboards on one host (each with its own token) would otherwise overwrite each other's.
 */
export function cookieName(token: string): string {
  return `docket_${createHash('sha256').update(`docket-cookie:${token}`).digest('hex').slice(0, 8)}`;
}

function cookies(req: IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) found.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return found;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // a malformed escape: compared as it is, and so refused
  }
}

/** Where a request carried the access token, if it carried the right one. */
export type Credential = 'header' | 'cookie' | 'query' | null;

/** Checks the bearer header, the cookie and `?token=`, in that order. */
export function credential(req: IncomingMessage, query: URLSearchParams, token: string): Credential {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined && sameSecret(bearer, token)) return 'header';
  const cookie = cookies(req).get(cookieName(token));
  if (cookie !== undefined && sameSecret(decoded(cookie), token)) return 'cookie';
  const param = query.get('token');
  if (param !== null && sameSecret(param, token)) return 'query';
  return null;
}

/** The cookie that stands in for `?token=` from then on: script can't read it, other sites can't send it. */
export function tokenCookie(req: IncomingMessage, token: string, basePath: string): string {
  // Secure only when this hop is TLS: a Secure cookie over plain HTTP would never come back.
  const secure = (req.socket as { encrypted?: boolean }).encrypted ? '; Secure' : '';
  return `${cookieName(token)}=${encodeURIComponent(token)}; Path=${basePath || '/'}; HttpOnly; SameSite=Strict${secure}`;
}

/**
 * Why a write must be refused before its body is even read, or null: a browser says the request
 * comes from another site (Sec-Fetch-Site), or its Origin is not this host. A same-origin form
 * posted from a page with `Referrer-Policy: no-referrer` sends `Origin: null`, so null is left
 * to the CSRF token.
 */
export function crossSite(req: IncomingMessage): string | null {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `cross-site request refused (Sec-Fetch-Site: ${site})`;
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return null;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return 'malformed Origin header';
  }
  // Behind a proxy that rewrites Host, the public host is in X-Forwarded-Host. A page on another
  // site cannot set that header on a POST without a CORS preflight, which this handler never grants.
  const forwarded = String(req.headers['x-forwarded-host'] ?? '')
    .split(',')[0]
    .trim();
  return host === req.headers.host || (forwarded !== '' && host === forwarded) ? null : `cross-origin request refused (Origin: ${origin})`;
}

/** The CSRF token a write carries: the `X-CSRF-Token` header, or a form's `csrf` field. */
export function csrfValid(req: IncomingMessage, body: unknown, secret: string): boolean {
  const header = req.headers['x-csrf-token'];
  const field = typeof body === 'object' && body !== null ? (body as { csrf?: unknown }).csrf : undefined;
  const given = typeof header === 'string' ? header : typeof field === 'string' ? field : null;
  return given !== null && sameSecret(given, secret);
}

/** The names of this machine's loopback interface. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Whether `host` (a bind address) is a loopback one: only this machine can reach it. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Whether the Host header names one of `names` (any port). A page on another site can point its
 * own DNS name at 127.0.0.1 (DNS rebinding) and then read and post as if it were same-origin; its
 * requests still carry its own name in Host, which is how a loopback-only server tells them apart.
 */
export function hostAllowed(req: IncomingMessage, names: ReadonlySet<string>): boolean {
  const host = req.headers.host;
  if (host === undefined) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return names.has(name.toLowerCase());
}

/** Headers on every response: nothing cached, nothing sniffed, no referrer, no framing. */
export function baseHeaders(res: ServerResponse): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', policy(null));
}

/**
 * The page's policy: its one inline style and script run by nonce; nothing loads from elsewhere,
 * and the page can only fetch and post to its own origin.
 */
export function policy(nonce: string | null): string {
  const own = nonce === null ? "'none'" : `'nonce-${nonce}'`;
  return ["default-src 'none'", `script-src ${own}`, `style-src ${own}`, 'img-src data:', "connect-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');
}
