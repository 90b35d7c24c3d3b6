/**
 * The registry's web page in a real browser (Debian's headless Chromium driven by playwright-core): it lists the
 * agents, searches, shows an agent in every format, pages, uses a token for restricted agents, and shows agent
 * text as text — a description carrying HTML never becomes markup or runs script.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { aidipAgent, startRegistry, type TestRegistry } from '../support.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

let registry: TestRegistry;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
let restrictedToken: string;

before(async () => {
  assert.ok(
    existsSync(CHROMIUM),
    `Chromium is needed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
  registry = await startRegistry();
  const publisher = await registry.token('publisher', { publisher: 'acme' });
  const register = async (document: unknown) => {
    const answer = await registry.request('/agents', { token: publisher.token, body: document });
    assert.equal(answer.status, 201, answer.text);
  };
  await register(
    aidipAgent({
      id: 'weather',
      name: 'Weather Forecaster',
      description: 'Forecasts the weather for a city.',
      tags: ['weather'],
    }),
  );
  await register(
    aidipAgent({
      id: 'translator',
      name: 'Translator',
      description: 'Translates text between languages.',
      tags: ['nlp'],
    }),
  );
  await register(
    aidipAgent({
      id: 'sneaky',
      name: 'Sneaky <b>Bold</b>',
      description: 'Looks <img src=x onerror="window.__pwned=1"> harmless.',
    }),
  );
  for (let i = 0; i < 25; i++)
    await register(aidipAgent({ id: `filler-${String(i).padStart(2, '0')}`, name: `Filler ${i}` }));
  await register({
    document: aidipAgent({ id: 'secret', name: 'Secret Agent', description: 'Only for the team.' }),
    access: { groups: ['team'] },
  });
  restrictedToken = (await registry.token('client', { groups: ['team'] })).token;

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(`${registry.url}/`);
});

after(async () => {
  await browser?.close();
  await registry?.close();
});

async function resultIds(): Promise<string[]> {
  return page
    .locator('#results > li')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-agent-id') ?? ''));
}

describe('the web page', () => {
  test('lists agents on load, 20 at a time, and pages with More', async () => {
    await page.waitForSelector('#results > li');
    assert.equal((await resultIds()).length, 20);
    assert.match((await page.locator('#status').textContent()) ?? '', /20 agents/);
    await page.click('#more');
    await page.locator('#results > li').nth(20).waitFor();
    const ids = await resultIds();
    assert.equal(ids.length, new Set(ids).size, 'no agent twice');
    assert.ok(!ids.includes('secret'), 'a restricted agent is not listed without a token');
  });

  test('searches by plain-language need and says why each agent matched', async () => {
    await page.fill('#query', 'weather forecast');
    await page.click('button[type="submit"]');
    await page.locator('#results > li:first-child[data-agent-id="weather"]').waitFor();
    const why = await page.locator('#results > li').first().locator('.why li').allTextContents();
    assert.ok(
      why.some((reason) => /weather|forecast/i.test(reason)),
      why.join(' | '),
    );
  });

  test('shows an agent, its operations and the agent in every format', async () => {
    await page.locator('#results > li[data-agent-id="weather"] button.open').click();
    await page.locator('#detail-name', { hasText: /^Weather Forecaster$/ }).waitFor();
    assert.equal(await page.locator('#detail-operations code').first().textContent(), 'run');
    await page.locator('#formats button', { hasText: 'td' }).click();
    await page.locator('#document', { hasText: '"@context"' }).waitFor();
    await page.locator('#formats button', { hasText: /^woa$/ }).click();
    await page.locator('#document', { hasText: '"woa_version"' }).waitFor();
  });

  test('agent text is shown as text: HTML in a description never becomes markup', async () => {
    await page.fill('#query', 'sneaky harmless');
    await page.click('button[type="submit"]');
    await page.waitForSelector('#results > li[data-agent-id="sneaky"]');
    const item = page.locator('#results > li[data-agent-id="sneaky"]');
    assert.equal(await item.locator('img, b').count(), 0);
    assert.match((await item.textContent()) ?? '', /<img src=x onerror=/);
    assert.equal(await page.evaluate('window.__pwned'), undefined);
  });

  test('with a token of the right group, restricted agents appear', async () => {
    await page.fill('#query', '');
    await page.click('summary:has-text("Access token")');
    await page.fill('#token', restrictedToken);
    await page.click('#token-save');
    await page.fill('#query', 'secret agent team');
    await page.click('button[type="submit"]');
    await page.waitForSelector('#results > li[data-agent-id="secret"]');
    await page.click('#token-clear');
    await page.click('button[type="submit"]');
    await page.locator('#results > li[data-agent-id="secret"]').waitFor({ state: 'detached' });
  });

  test('the page ran without script errors or policy violations', () => {
    assert.deepEqual(pageErrors, []);
  });
});
