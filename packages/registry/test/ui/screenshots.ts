/**
 * Screenshots of the web app for docs/web.md, at desktop (1280 px) and phone (390 px) width, taken from the same
 * demo registry the browser test drives: `npx tsx packages/registry/test/ui/screenshots.ts` (Debian's chromium).
 * Writes docs/images/web-<page>-<desktop|phone>.png, and -dark variants of the search and agent pages at desktop width.
 * Names given after the script take only those shots (`… screenshots.ts task`), leaving the other images as they are.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { startDemoRegistry } from './demo-registry.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const OUT = fileURLToPath(new URL('../../../../docs/images/', import.meta.url));

const demo = await startDemoRegistry();
const { registry } = demo;
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
mkdirSync(OUT, { recursive: true });

async function withToken(page: Page, token: string): Promise<void> {
  await page.goto(`${registry.url}/`);
  await page.evaluate(`sessionStorage.setItem('agentry.token', ${JSON.stringify(token)})`);
}

const shots: Array<{
  name: string;
  path: string;
  token?: string;
  act?: (page: Page) => Promise<void>;
}> = [
  { name: 'search', path: '/?q=translate+text' },
  {
    name: 'agent',
    path: '/app/agents/translator',
    token: demo.clientToken,
    act: async (page) => {
      await page.click('[data-operation="translate"] summary:has-text("Try it")');
      await page.getByLabel(/^text/).fill('hello');
      await page.getByLabel(/^target/).selectOption({ label: 'fr' });
      await page.click('[data-operation="translate"] button:has-text("Run")');
      await page.locator('[data-operation="translate"] .outcome.ok').waitFor();
      await page.evaluate('window.scrollTo(0, 0)');
    },
  },
  {
    name: 'try',
    path: '/app/agents/translator?try=translate',
    token: demo.clientToken,
    act: async (page) => {
      await page.getByLabel(/^text/).fill('hello');
      await page.getByLabel(/^target/).selectOption({ label: 'fr' });
      await page.getByLabel(/^formal/).check();
      await page.click('[data-operation="translate"] button:has-text("Run")');
      await page.locator('[data-operation="translate"] .outcome.ok').waitFor();
      await page.locator('.try .row').first().scrollIntoViewIfNeeded();
      await page.evaluate('window.scrollBy(0, 200)');
    },
  },
  {
    name: 'task',
    path: '/app/agents/reports?try=build',
    token: demo.clientToken,
    act: async (page) => {
      const build = page.locator('[data-operation="build"]');
      await build.getByLabel(/^quarter/).selectOption({ label: 'Q3' });
      await build.locator('button:has-text("Run")').click();
      await build.locator('.task[data-state="working"]').waitFor();
      demo.finishReport();
      await build.locator('.outcome.ok').waitFor();
      await build.locator('.output').scrollIntoViewIfNeeded();
    },
  },
  {
    name: 'stream',
    path: '/app/agents/translator?try=spell',
    token: demo.clientToken,
    act: async (page) => {
      await page.getByLabel(/^word/).fill('agentry');
      await page.click('[data-operation="spell"] button:has-text("Run")');
      await page.locator('[data-operation="spell"] .outcome.ok').waitFor();
      await page.locator('[data-operation="spell"] .output').scrollIntoViewIfNeeded();
    },
  },
  { name: 'flagged', path: '/app/agents/pushy' },
  { name: 'resolve', path: '/app/resolve?intent=translate+text+into+french' },
  { name: 'operate', path: '/app/operate', token: registry.admin },
  {
    name: 'imports',
    path: '/app/operate',
    token: registry.admin,
    act: async (page) => {
      await page.locator('#imports tr').nth(2).waitFor();
      await page.evaluate("document.getElementById('imports-title').scrollIntoView()");
    },
  },
  { name: 'empty', path: '/?q=zzzqqq' },
];

const only = process.argv.slice(2);
const unknown = only.filter((name) => !shots.some((shot) => shot.name === name));
if (unknown.length > 0) throw new Error(`no such shot: ${unknown.join(', ')}`);
const taken = only.length === 0 ? shots : shots.filter((shot) => only.includes(shot.name));

for (const [device, width, height] of [
  ['desktop', 1280, 860],
  ['phone', 390, 844],
] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
    const page = await context.newPage();
    for (const shot of taken) {
      if (scheme === 'dark' && (device === 'phone' || !['search', 'agent'].includes(shot.name))) continue;
      if (shot.token !== undefined) await withToken(page, shot.token);
      await page.goto(`${registry.url}${shot.path}`);
      await page.waitForLoadState('networkidle');
      await shot.act?.(page);
      const suffix = scheme === 'dark' ? '-dark' : '';
      await page.screenshot({ path: `${OUT}web-${shot.name}-${device}${suffix}.png` });
      await page.evaluate('sessionStorage.clear()');
    }
    await context.close();
  }
}
await browser.close();
await demo.close();
console.log(`screenshots in ${OUT}`);
