/**
 * Safe HTML for the dashboard. Task payloads and error texts are user data, so every value put
 * into the `html` template is escaped unless it is itself an `Html` built the same way: an
 * unescaped string can only come from `trusted()`, which is kept for the page's own constants.
 * Also the small formatters the page shares: durations, sizes, clipped texts, and times, which go
 * through lib/surfaces/printable.ts as in the CLI, so a time no Date can hold is marked, not thrown on.
 */
import { invalidTime, isoTime, validTime } from '../printable';

/** A piece of markup that is safe to insert as it is. */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for use between tags or inside a double- or single-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Marks a constant of the page's own (CSS, script, markup without user data) as safe. */
export function trusted(text: string): Html {
  return new Html(text);
}

function piece(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Template tag: interpolated values are escaped; `Html` values and arrays of them are kept. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Html(out);
}

/**
 * A JSON text safe inside `<script type="application/json">`: `<` is escaped so that no value
 * can close the element (`</script>`) or open a comment.
 */
export function scriptJson(value: unknown): Html {
  return new Html(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}

/**
 * Cuts a long text (a payload, an error with its stack) to `max` characters with an ellipsis,
 * never between the halves of an emoji. `cut` adds the ellipsis to a text already cut short
 * elsewhere (a payload preview read from Redis).
 */
export function clip(text: string, max: number, cut = text.length > max): string {
  if (!cut) return text;
  let end = Math.min(text.length, max - 1);
  if (end > 0 && end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end--;
  return `${text.slice(0, end)}…`;
}

/** A payload size as a person reads it: `900 B`, `400 KiB`, `1.5 MiB`. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

const UNITS: Array<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1000, 's'],
];

/** A span as a person reads it: `850 ms`, `12 s`, `4 min 10 s`, `3 h 5 min`, `2 d 4 h`. */
export function span(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  if (abs < 10_000) return `${(abs / 1000).toFixed(1)} s`;
  const i = UNITS.findIndex(([size]) => abs >= size);
  const [size, unit] = UNITS[i];
  const whole = Math.floor(abs / size);
  const next = UNITS[i + 1];
  const rest = next ? Math.floor((abs % size) / next[0]) : 0;
  return rest > 0 && whole < 10 ? `${whole} ${unit} ${rest} ${next[1]}` : `${whole} ${unit}`;
}

/**
 * A progress of 0 to 100 as a bar with its number: a native `<progress>`, so it needs no style
 * attribute (the page's CSP allows none) and reads as a progress bar to assistive tech.
 */
export function progressBar(percent: number): Html {
  const shown = Number.isInteger(percent) ? String(percent) : percent.toFixed(1);
  return html`<span class="bar"><progress max="100" value="${percent}" data-percent="${percent}">${shown}%</progress> <b>${shown}%</b></span>`;
}

/** `in 12 s` for a time ahead of `now`, `12 s ago` for one behind it; `invalid time (1e+300)` for none. */
export function relative(at: number, now: number): string {
  if (!validTime(at)) return invalidTime(at);
  return at >= now ? `in ${span(at - now)}` : `${span(now - at)} ago`;
}

/** An epoch-ms instant as ISO-8601 UTC, for tooltips; its invalid-time mark when no Date holds it. */
export function iso(at: number): string {
  return isoTime(at);
}

/** The one zone the dashboard shows times in, named beside each: UTC, the zone of the Redis clock's epoch. */
export const ZONE = 'UTC';

/** An instant as `2030-01-02 13:04:05 UTC`; its invalid-time mark when no Date holds it. */
export function utc(at: number): string {
  if (!validTime(at)) return invalidTime(at);
  return `${isoTime(at).slice(0, 19).replace('T', ' ')} ${ZONE}`;
}

/**
 * `text` about the instant `at` in a `<time datetime>` whose tooltip is the instant in UTC, or the
 * invalid-time mark, set apart, when `at` is none.
 */
export function timeTag(at: number, text: string): Html {
  return validTime(at) ? html`<time datetime="${isoTime(at)}" title="${utc(at)}">${text}</time>` : html`<span class="invalid">${invalidTime(at)}</span>`;
}

/** An instant as `2030-01-02 13:04:05 UTC (in 5 min)`: the page's absolute times, all in one zone. */
export function whenTag(at: number, now: number): Html {
  return validTime(at) ? html`<time datetime="${isoTime(at)}">${utc(at)}</time> <span class="dim">(${relative(at, now)})</span>` : html`<span class="invalid">${invalidTime(at)}</span>`;
}
