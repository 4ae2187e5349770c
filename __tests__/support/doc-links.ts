/**
 * The relative links of a documentation page, checked: each names a file of the repository and,
 * when it has a `#anchor`, a heading of that page. The guide's pages send the reader to api.md's
 * sections rather than repeat them, so a renamed heading must fail a test, not leave a dead link.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `_`, `-` and
 * spaces kept), spaces made `-`. `### \`scheduler.put(data, options?)\`` is `schedulerputdata-options`.
 */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, a repeated one numbered as GitHub numbers it (`-1`, `-2`). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The page's lines with fenced code blanked, so neither a `# comment` nor a link in code counts. */
function withoutCode(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/**
 * What is wrong with the relative links of `page` (relative to `root`), as `page:line: message`.
 * Links to other sites (`https:`, `mailto:`) are not followed.
 */
export function brokenLinks(root: string, page: string, text: string): string[] {
  const found: string[] = [];
  withoutCode(text).forEach((line, at) => {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const problem = linkProblem(root, page, text, target);
      if (problem) found.push(`${page}:${at + 1}: ${target}: ${problem}`);
    }
  });
  return found;
}

/** A link's problem, or null: `#anchor` alone is a heading of the page itself (its `text`). */
function linkProblem(root: string, page: string, text: string, target: string): string | null {
  const [file, anchor] = target.split('#', 2);
  if (file === '') return anchorsOf(text).has(anchor) ? null : `no heading with the anchor #${anchor}`;
  const resolved = path.join(root, path.dirname(page), decodeURIComponent(file));
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined) return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return 'an anchor into a page that is not markdown';
  return anchorsOf(readFileSync(resolved, 'utf8')).has(anchor) ? null : `no heading with the anchor #${anchor}`;
}
