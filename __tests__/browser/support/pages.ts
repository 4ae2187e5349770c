/**
 * What the browser tests share: Debian's chromium from PATH (playwright-core never downloads a
 * browser here), and a dashboard served over a test scheduler with pages opened on it carrying
 * the token's cookie.
 */
import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Scheduler } from '../../../lib';
import { serveDashboard } from '../../../lib/surfaces/dashboard';
import { useRedis } from '../../support/harness';

/** A browser test's budget: chromium starts slowly on a busy 2-core machine. */
export const TIMEOUT = 60_000;

function chromiumPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error("chromium is not on PATH: install Debian's package (apt-get install -y chromium); the browser test never downloads one");
  }
}

/** Debian's chromium, headless, with nothing of its own running in the background. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--disable-gpu', '--disable-quic', '--disable-sync', '--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
}

export interface DashboardPages {
  /** The scheduler the dashboard serves (set by beforeAll). */
  scheduler(): Scheduler & { prefix: string };
  /** The dashboard's origin (set by beforeAll). */
  base(): string;
  /** A page carrying the token's cookie, recording script errors and CSP refusals, and the actions it posts. */
  open(path: string, width?: number): Promise<{ page: Page; errors: string[]; posts: string[] }>;
}

/** A browser and a dashboard served with `token` over a scheduler of the test Redis, for one test file. */
export function useDashboardPages(token: string): DashboardPages {
  let browser: Browser | undefined;
  let base = '';
  let s: (Scheduler & { prefix: string }) | undefined;
  const closers: Array<() => Promise<void>> = [];
  // Registered before useRedis's, so it runs first: the dashboard closes before its scheduler.
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await browser?.close();
  }, TIMEOUT);
  const redis = useRedis();
  beforeAll(async () => {
    browser = await launchChromium();
    s = await redis.scheduler();
    const served = await serveDashboard(s, { token });
    closers.push(served.close);
    base = new URL(served.url).origin;
  }, TIMEOUT);

  async function open(path: string, width = 1280): Promise<{ page: Page; errors: string[]; posts: string[] }> {
    const context = await browser!.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const errors: string[] = [];
    const posts: string[] = [];
    page.on('console', (msg) => void (msg.type() === 'error' && errors.push(msg.text())));
    page.on('pageerror', (err) => void errors.push(err.message));
    page.on('request', (req) => void (req.method() === 'POST' && posts.push(new URL(req.url()).pathname)));
    page.on('dialog', (dialog) => void dialog.accept());
    page.on('close', () => void context.close().catch(() => {}));
    await page.goto(`${base}${path}${path.includes('?') ? '&' : '?'}token=${token}`);
    return { page, errors, posts };
  }

  return { scheduler: () => s!, base: () => base, open };
}
