/**
 * The HTTP plumbing the handler needs and Node's bare `http` module doesn't give: a bounded body
 * reader for JSON and form posts, and one way to answer with JSON, HTML or an error.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DocketError, ValidationError } from '../../types/errors';
import { printable } from '../printable';

/** A request the handler answers with an error status, and what it tells the caller. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** An action's body is a few short fields; anything larger is not from the page. */
const MAX_BODY_BYTES = 16 * 1024;

/** The body of a JSON or form post, as an object of fields. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
    throw new HttpError(415, 'ERR_MEDIA_TYPE', 'expected an application/json or application/x-www-form-urlencoded body');
  }
  // A framework's body parser (express.json(), express.urlencoded()) may have read the stream
  // already: then its result is all there is.
  const parsed = (req as { body?: unknown }).body;
  if (req.readableEnded && parsed !== undefined && typeof parsed !== 'string' && !Buffer.isBuffer(parsed)) return parsed;
  const text = req.readableEnded && parsed !== undefined ? String(parsed) : await readText(req);
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'ERR_VALIDATION', 'body: not valid JSON', 'body');
  }
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'ERR_TOO_LARGE', `body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether the caller wants JSON back: the page's script and API clients do, a plain form post doesn't. */
export function wantsJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'] ?? '';
  return !type.startsWith('application/x-www-form-urlencoded') || (req.headers.accept ?? '').includes('application/json');
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function sendHtml(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** See Other: where a plain form post goes once done, so a reload does not post again. */
export function redirect(res: ServerResponse, location: string): void {
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Content-Length', 0);
  res.end();
}

/**
 * The HTTP form of any failure: bad input is 400 naming the field; a docket error (Redis down,
 * timed out) is 503 with its code; anything else is 500 without details, which stay in the server.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof ValidationError) return new HttpError(400, err.code, err.message, err.field);
  if (err instanceof DocketError) return new HttpError(503, err.code, err.message);
  return new HttpError(500, 'ERR_INTERNAL', 'internal error');
}

/**
 * The JSON body of an error response. Its message is for a person (the page shows it in a toast)
 * and may quote a queue name: hidden characters in it are escaped (lib/surfaces/printable.ts).
 */
export function errorBody(err: HttpError): { error: { code: string; message: string; field?: string } } {
  return { error: { code: err.code, message: printable(err.message), ...(err.field === undefined ? {} : { field: err.field }) } };
}
