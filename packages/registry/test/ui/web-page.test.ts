/**
 * The registry's web app in a real browser (Debian's headless Chromium driven by playwright-core) against a real
 * registry and a real agent on loopback behind its gateway. The journeys a new user takes: search → filter by a
 * facet → the agent's page → try an operation → its output (a stream's events as they arrive; a deferred task's
 * state while it works, then its output); a shared agent link and Back; resolve an intent → the
 * call to make → try it; the operator console with an admin token; a phone-width screen; and axe-core's
 * accessibility rules in the light and the dark scheme. Agent text stays text: HTML in a description never runs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { AgentServer } from '../gateway/agent-server.js';
import { aidipAgent, type TestRegistry } from '../support.js';
import { type DemoRegistry, startDemoRegistry, UNREACHABLE_REGISTRY } from './demo-registry.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let demo: DemoRegistry;
let agentServer: AgentServer;
let registry: TestRegistry;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
let clientToken: string;
let restrictedToken: string;

before(async () => {
  assert.ok(
    existsSync(CHROMIUM),
    `Chromium is needed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
  demo = await startDemoRegistry();
  ({ agentServer, registry, clientToken, restrictedToken } = demo);
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
  page = await newPage();
  await page.goto(`${registry.url}/`);
});

after(async () => {
  await browser?.close();
  await demo?.close();
});

async function newPage(
  options: { width?: number; height?: number; bypassCSP?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    // Only the axe pages: injecting axe's source is an inline script, which the app's policy refuses.
    bypassCSP: options.bypassCSP === true,
  });
  const opened = await context.newPage();
  opened.on('pageerror', (error) => pageErrors.push(error.message));
  opened.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  return opened;
}

async function resultIds(on: Page = page): Promise<string[]> {
  return on
    .locator('#results > li')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-agent-id') ?? ''));
}

async function search(text: string, on: Page = page): Promise<void> {
  await on.fill('#query', text);
  await on.press('#query', 'Enter');
  await on.waitForURL((url) => url.searchParams.get('q') === (text || null));
}

async function useToken(token: string, on: Page = page): Promise<void> {
  await on.click('summary:has-text("Access token")');
  await on.fill('#token', token);
  await on.click('#token-save');
  await on.click('summary:has-text("Access token")');
}

describe('the web app', () => {
  test('lists agents on load, 20 at a time, and pages with the page in the URL', async () => {
    await page.waitForSelector('#results > li');
    assert.equal((await resultIds()).length, 20);
    assert.match((await page.locator('#status').textContent()) ?? '', /Agents 1–20/);
    await page.click('#next-page');
    await page.waitForURL(/page=2/);
    await page.locator('#results > li').first().waitFor();
    const second = await resultIds();
    assert.ok(second.length > 0 && second.length <= 20);
    assert.ok(!second.includes('secret'), 'a restricted agent is not listed without a token');
    // Without a query the counts are over every agent: an imported one, and one read from an A2A card.
    const count = (facet: string, value: string) =>
      page
        .locator(`[data-facet="${facet}"] .facet-value`, { hasText: value })
        .locator('.count')
        .textContent();
    await page.locator('[data-facet="sources"]').waitFor();
    assert.equal(await count('sources', 'imported'), '1');
    assert.equal(await count('formats', 'a2a'), '1');
    assert.equal(await count('transports', 'a2a'), '1');
    await page.locator('[data-facet="auth"] .facet-value', { hasText: 'none' }).waitFor();
    await page.goBack();
    await page.waitForURL((url) => !url.searchParams.has('page'));
    await page.locator('#results > li').nth(19).waitFor();
  });

  test('search → facet → agent page → try it → output through the gateway', async () => {
    await useToken(clientToken);
    await search('translate text');
    await page.locator('#results > li:first-child[data-agent-id="translator"]').waitFor();
    const why = await page.locator('#results > li').first().locator('.why li').allTextContents();
    assert.ok(
      why.some((reason) => /translat/i.test(reason)),
      why.join(' | '),
    );
    // The facet counts the agents with each tag; ticking one filters, and the URL says so.
    const nlp = page.locator('[data-facet="tags"] .facet-value', { hasText: 'nlp' });
    assert.equal(await nlp.locator('.count').textContent(), '1');
    // The counts are among the search's matches (GET /facets?q=), not over every agent.
    await page.locator('#facets', { hasText: 'Counted among the best matches of the search' }).waitFor();
    await nlp.locator('input').check();
    await page.waitForURL(/tags=nlp/);
    await page.locator('#results > li').nth(1).waitFor({ state: 'detached' });
    assert.deepEqual(await resultIds(), ['translator']);
    // How descriptions arrived and the formats they were read in filter too (any of their values).
    const aidip = page.locator('[data-facet="formats"] .facet-value', { hasText: 'aidip' });
    await aidip.locator('input').check();
    await page.waitForURL(/format=aidip/);
    await page.locator('.active-filters', { hasText: 'Published as: aidip' }).waitFor();
    assert.deepEqual(await resultIds(), ['translator']);

    await page.click('#results a.open');
    await page.waitForURL(/\/app\/agents\/translator$/);
    await page.locator('h1', { hasText: /^Translator$/ }).waitFor();
    const about = (await page.locator('.agent-side').textContent()) ?? '';
    assert.match(about, /acme/);
    assert.match(about, /registered aidip/);
    assert.match(about, /not verified/);
    assert.match(about, /unsigned/);
    // The input schema reads as fields, not JSON.
    const fields = await page.locator('.operation .fields .field-name').allTextContents();
    assert.deepEqual(fields.slice(0, 4), ['text', 'target', 'formal', 'copies']);

    await page.click('[data-operation="translate"] summary:has-text("Try it")');
    await page.getByLabel(/^text/).fill('hello');
    await page.getByLabel(/^target/).selectOption({ label: 'fr' });
    await page.getByLabel(/^formal/).check();
    await page.click('[data-operation="translate"] button:has-text("Run")');
    await page.locator('[data-operation="translate"] .outcome.ok').waitFor();
    assert.match(
      (await page.locator('[data-operation="translate"] .output').textContent()) ?? '',
      /"translated": "\[fr, formal\] hello"/,
    );
    const sent = agentServer.requests.at(-1)!;
    // The agent has two operations: AIDIP §5.1 names the one called beside the input.
    assert.deepEqual(sent.body, { operation: 'translate', text: 'hello', target: 'fr', formal: true });
  });

  test("a streaming operation's events show as they arrive", async () => {
    const spell = page.locator('.operation[data-operation="spell"]');
    await spell.locator('summary:has-text("Try it")').click();
    await spell.getByLabel(/^word/).fill('abc');
    await spell.locator('button:has-text("Run")').click();
    // The first letter is on the page while the agent still holds the rest back.
    await spell.locator('.output', { hasText: '"letter":"a"' }).waitFor();
    assert.doesNotMatch((await spell.locator('.output').textContent()) ?? '', /event: result/);
    await spell.locator('.outcome', { hasText: 'streaming' }).waitFor();
    demo.releaseSpelling();
    await spell.locator('.outcome.ok', { hasText: 'stream ended' }).waitFor();
    assert.match(
      (await spell.locator('.output').textContent()) ?? '',
      /"letter":"c"[\s\S]*event: result\ndata: \{"letters":\["a","b","c"\]\}/,
    );
  });

  test('a required field left empty is named before anything is sent', async () => {
    const before = agentServer.requests.length;
    await page.getByLabel(/^text/).fill('');
    await page.click('[data-operation="translate"] button:has-text("Run")');
    await page
      .locator('[data-operation="translate"] .outcome.error', { hasText: 'text is required' })
      .waitFor();
    assert.equal(agentServer.requests.length, before);
  });

  test('an irreversible operation runs only once the user confirms it', async () => {
    const forget = page.locator('.operation[data-operation="forget"]');
    assert.match((await forget.textContent()) ?? '', /Marked irreversible/);
    await forget.locator('summary:has-text("Try it")').click();
    const before = agentServer.requests.length;
    page.once('dialog', (dialog) => dialog.dismiss());
    await forget.locator('button:has-text("Run")').click();
    // Declined: the page never started the call (it says "Calling…" as it does).
    assert.equal(await forget.locator('.outcome').textContent(), '');
    assert.equal(agentServer.requests.length, before, 'declined: nothing sent');
    page.once('dialog', (dialog) => dialog.accept());
    await forget.locator('button:has-text("Run")').click();
    await forget.locator('.outcome.ok').waitFor();
    assert.equal(agentServer.requests.length, before + 1);
  });

  test("a deferred task's state shows while it works, then its output", async () => {
    // The report builder is a real @agentry/host whose `build` runs as a deferred task (202, then polled).
    await page.goto(`${registry.url}/?q=sales+report+of+a+quarter`);
    await page.locator('#results > li[data-agent-id="reports"] a.open').click();
    await page.locator('h1', { hasText: /^Report Builder$/ }).waitFor();
    const build = page.locator('.operation[data-operation="build"]');
    await build.locator('summary:has-text("Try it")').click();
    await build.getByLabel(/^quarter/).selectOption({ label: 'Q3' });
    await build.locator('button:has-text("Run")').click();
    // While the task works: its id and state in the task line (a live region), no output yet.
    const state = build.locator('.task-state[role="status"]');
    await build.locator('.task[data-state="working"]').waitFor();
    const working = (await state.textContent()) ?? '';
    const id = /^Task ([0-9a-f-]{36}): working$/.exec(working)?.[1];
    assert.ok(id !== undefined, working);
    await build.locator('.outcome', { hasText: 'waiting for the deferred task' }).waitFor();
    assert.equal(await build.locator('.output').textContent(), '');
    demo.finishReport();
    // Then the same task completed, and its output as JSON (the task events are not part of it).
    await build.locator('.task[data-state="completed"]').waitFor();
    assert.equal(await state.textContent(), `Task ${id}: completed`);
    await build.locator('.outcome.ok', { hasText: 'task completed' }).waitFor();
    const output = (await build.locator('.output').textContent()) ?? '';
    assert.deepEqual(JSON.parse(output), { report: 'Sales report for Q3', pages: 12 });
  });

  test('the keyboard alone finds an agent and scrolls its document', async () => {
    await page.goto(`${registry.url}/`);
    await page.locator('#results > li').first().waitFor();
    await page.focus('#query');
    await page.keyboard.type('weather forecast');
    await page.keyboard.press('Enter');
    await page.locator('#results > li:first-child[data-agent-id="weather"]').waitFor();
    // The counts arrive after the results and replace the filters: tab once they are there.
    await page.locator('#facets .facet').first().waitFor();
    await page.focus('#query');
    let focused = '';
    for (let presses = 0; presses < 60 && focused !== 'weather'; presses++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate<string>(
        "document.activeElement?.matches('#results a.open') ? document.activeElement.closest('li').getAttribute('data-agent-id') : ''",
      );
    }
    assert.equal(focused, 'weather', 'Tab reaches the first result');
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: /^Weather Forecaster$/ }).waitFor();
    await page.locator('#document', { hasText: '"name"' }).waitFor();
    await page.focus('#document');
    await page.keyboard.press('PageDown');
    // Polled through evaluate (the debugger protocol): waitForFunction evaluates its predicate inside the page,
    // which the app's Content-Security-Policy refuses (no 'unsafe-eval') whenever the first check comes too early.
    let scrolled = 0;
    for (let tries = 0; tries < 200 && scrolled === 0; tries++) {
      scrolled = await page.evaluate<number>("document.getElementById('document').scrollTop");
      if (scrolled === 0) await page.waitForTimeout(25);
    }
    assert.ok(scrolled > 0, 'PageDown scrolls the focused document');
  });

  test('an agent link opens the agent by itself, and Back returns to the search', async () => {
    const shared = await newPage();
    await shared.goto(`${registry.url}/app/agents/weather`);
    await shared.locator('h1', { hasText: /^Weather Forecaster$/ }).waitFor();
    assert.equal(await shared.title(), 'Weather Forecaster · Agentry');
    await shared.locator('#formats-title').waitFor();
    await shared.click('.tabs button:has-text("Thing Description")');
    await shared.locator('#document', { hasText: '"@context"' }).waitFor();
    await shared.click('.tabs button:has-text("WoA")');
    await shared.locator('#document', { hasText: '"woa_version"' }).waitFor();

    await shared.click('nav a:has-text("Search")');
    await search('weather forecast', shared);
    await shared.locator('#results > li:first-child[data-agent-id="weather"]').waitFor();
    await shared.click('#results > li[data-agent-id="weather"] a.open');
    await shared.waitForURL(/\/app\/agents\/weather$/);
    await shared.goBack();
    await shared.waitForURL(/\?q=weather\+forecast$/);
    await shared.locator('#results > li:first-child[data-agent-id="weather"]').waitFor();
    assert.equal(await shared.locator('#query').inputValue(), 'weather forecast');
    await shared.goForward();
    await shared.locator('h1', { hasText: /^Weather Forecaster$/ }).waitFor();
    await shared.context().close();
  });

  test('a new search clears the last one, and an empty result says so', async () => {
    await page.goto(`${registry.url}/?q=weather`);
    await page.locator('#results > li[data-agent-id="weather"]').waitFor();
    await search('zzzqqq nothing matches this');
    await page.locator('#empty', { hasText: 'No agents found' }).waitFor();
    assert.equal(await page.locator('#results > li').count(), 0);
    assert.equal(await page.locator('article.agent').count(), 0);
  });

  test('an agent that arrives after the user went Back is not drawn over the search', async () => {
    await page.goto(`${registry.url}/?q=weather`);
    await page.locator('#results > li[data-agent-id="weather"]').waitFor();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The browser holds the agent's answer until the user has gone back.
    await page.route('**/agents/weather', async (route) => {
      await held;
      await route.continue();
    });
    const answered = page.waitForResponse('**/agents/weather');
    await page.click('#results > li[data-agent-id="weather"] a.open');
    await page.waitForURL(/\/app\/agents\/weather$/);
    await page.goBack();
    await page.locator('#results > li[data-agent-id="weather"]').waitFor();
    release();
    await answered;
    // Let the page's script finish with the answer (a few tasks) before looking.
    await page.evaluate('new Promise((resolve) => setTimeout(resolve, 0))');
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))');
    assert.equal(await page.locator('article.agent').count(), 0);
    assert.ok((await resultIds()).includes('weather'));
    await page.unroute('**/agents/weather');
  });

  test('an unknown agent link says the agent is not there', async () => {
    // Its own page: the browser logs the API's 404 as a console error, which the last test would count.
    const context = await browser.newContext();
    const lost = await context.newPage();
    await lost.goto(`${registry.url}/app/agents/no-such-agent`);
    await lost.locator('h1', { hasText: 'Agent not found' }).waitFor();
    await context.close();
  });

  test('a flagged agent shows its flags and why', async () => {
    await page.goto(`${registry.url}/app/agents/pushy`);
    await page.locator('.flags', { hasText: /Ignore all previous instructions/i }).waitFor();
  });

  test("provenance shows each source's signature: a signed A2A card's is there but not checked", async () => {
    await page.goto(`${registry.url}/?q=tide+times+harbours`);
    await page.locator('#results > li', { hasText: 'Tide Tables' }).locator('a.open').click();
    await page.locator('h1', { hasText: /^Tide Tables$/ }).waitFor();
    const source = page.locator('.sources li').first();
    assert.match((await source.textContent()) ?? '', /registered a2a/);
    await source.locator('[data-signature="unchecked"]', { hasText: 'signed, not checked' }).waitFor();
    assert.match((await source.textContent()) ?? '', /not verified/);
  });

  test('resolve → the exact call → try the chosen agent', async () => {
    await page.goto(`${registry.url}/app/resolve`);
    await page.fill('#intent', 'translate text into french');
    await page.press('#intent', 'Enter');
    await page.waitForURL(/intent=translate/);
    const candidate = page.locator('#candidates > li[data-agent-id="translator"]');
    await candidate.waitFor();
    const call = (await candidate.locator('.call pre').textContent()) ?? '';
    assert.match(call, /curl -X POST '[^']*\/agents\/translator\/invoke'/);
    assert.match(call, /"operation":"translate"/);
    assert.match(call, /Authorization: Bearer/);
    await candidate.locator('a:has-text("Try translate")').click();
    await page.waitForURL(/\/app\/agents\/translator\?try=translate$/);
    await page.getByLabel(/^text/).fill('bonjour');
    await page.getByLabel(/^target/).selectOption({ label: 'de' });
    await page.click('[data-operation="translate"] button:has-text("Run")');
    await page.locator('[data-operation="translate"] .outcome.ok').waitFor();
    assert.match(
      (await page.locator('[data-operation="translate"] .output').textContent()) ?? '',
      /\[de\] bonjour/,
    );
  });

  test('agent text is shown as text: HTML in a description never becomes markup', async () => {
    await page.goto(`${registry.url}/?q=sneaky+harmless`);
    const item = page.locator('#results > li[data-agent-id="sneaky"]');
    await item.waitFor();
    assert.equal(await item.locator('img, b').count(), 0);
    assert.match((await item.textContent()) ?? '', /<img src=x onerror=/);
    await item.locator('a.open').click();
    await page.locator('h1', { hasText: 'Sneaky <b>Bold</b>' }).waitFor();
    assert.equal(await page.locator('article img, article b').count(), 0);
    assert.equal(await page.evaluate('window.__pwned'), undefined);
  });

  test('with a token of the right group, restricted agents appear; the token stays in the tab', async () => {
    await useToken(restrictedToken);
    await page.goto(`${registry.url}/?q=secret+agent+team`);
    await page.waitForSelector('#results > li[data-agent-id="secret"]');
    assert.equal(await page.evaluate<number>('localStorage.length'), 0);
    await page.click('summary:has-text("Access token")');
    await page.click('#token-clear');
    await page.locator('#results > li[data-agent-id="secret"]').waitFor({ state: 'detached' });
  });

  test('the operator console: crawl queue, imports, tokens (create, list, revoke), flagged agents and the audit log with an admin token', async () => {
    await page.goto(`${registry.url}/app/operate`);
    await page.locator('main', { hasText: 'needs an admin token' }).waitFor();
    await useToken(registry.admin);
    await page.locator('#hosts', { hasText: 'No origins in the crawl queue' }).waitFor();
    await page.locator('#flagged a', { hasText: 'Pushy Helper' }).waitFor();
    // The registries imported: the one that answered with its agent, the one that did not with why.
    const mirrored = page.locator(`#imports tr[data-source="${demo.upstreamUrl}"]`);
    await mirrored.waitFor();
    assert.match((await mirrored.textContent()) ?? '', /agentry.*done.*1 imported, 0 deleted.*1$/s);
    const unreachable = page.locator(`#imports tr[data-source="${UNREACHABLE_REGISTRY}"]`);
    assert.match((await unreachable.textContent()) ?? '', /failed/);
    await page.locator('#audit td', { hasText: 'agent.create' }).first().waitFor();
    await page.selectOption('#token-role', 'publisher');
    await page.fill('#token-publisher', 'globex');
    await page.click('#tokens button:has-text("Create token")');
    const secret = (await page.locator('#tokens pre.secret').textContent()) ?? '';
    assert.ok(secret.length > 20, secret);
    const check = await registry.request('/agents', {
      token: secret,
      body: aidipAgent({ id: 'globex-agent', name: 'Globex Agent' }),
    });
    assert.equal(check.status, 201, check.text);
    // The new token is listed (GET /admin/tokens) beside the admin's; revoking it takes its access away.
    const row = page.locator('#tokens tr', { hasText: 'globex' });
    await row.waitFor();
    await page.locator('#tokens tr[data-token="admin"]').waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await row.locator('button:has-text("Revoke")').click();
    await row.waitFor({ state: 'detached' });
    const revoked = await registry.request('/agents', {
      token: secret,
      body: aidipAgent({ id: 'globex-agent-2', name: 'Globex Agent 2' }),
    });
    assert.equal(revoked.status, 401, revoked.text);
    await page.click('#hosts button:has-text("Add and crawl")');
    await page.fill('#host-origin', 'https://agents.example.org');
    await page.click('#hosts button:has-text("Add and crawl")');
    await page.locator('#hosts tr[data-origin="https://agents.example.org"]').waitFor();
    await page
      .locator('#hosts [role="status"]', { hasText: 'https://agents.example.org is queued' })
      .waitFor();
    await page.click('#hosts tr[data-origin="https://agents.example.org"] button:has-text("Crawl now")');
    await page
      .locator('#hosts [role="status"]', { hasText: 'https://agents.example.org is due now' })
      .waitFor();
    await page.click('summary:has-text("Access token")');
    await page.click('#token-clear');
  });

  test('on a phone, a result opens its page at the top, and nothing is wider than the screen', async () => {
    const phone = await newPage({ width: 360, height: 740 });
    await phone.goto(`${registry.url}/?q=weather`);
    await phone.locator('#results > li[data-agent-id="weather"] a.open').click();
    const heading = phone.locator('h1', { hasText: /^Weather Forecaster$/ });
    await heading.waitFor();
    const box = await heading.boundingBox();
    assert.ok(box !== null && box.y >= 0 && box.y + box.height <= 740, JSON.stringify(box));
    // The admin token shows the operator console's tables too.
    await useToken(registry.admin, phone);
    for (const path of [
      '/app/agents/translator',
      '/?q=translate',
      '/app/resolve?intent=translate+text',
      '/app/operate',
    ]) {
      await phone.goto(`${registry.url}${path}`);
      await phone.locator('h1').first().waitFor({ state: 'attached' });
      await phone.waitForLoadState('networkidle');
      const width = await phone.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(width <= 360, `${path} is ${width} px wide on a 360 px screen`);
    }
    await phone.context().close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`axe-core finds no serious or critical violation in the ${scheme} scheme`, async () => {
      const checked = await newPage({ bypassCSP: true });
      await checked.emulateMedia({ colorScheme: scheme });
      await checked.goto(`${registry.url}/`);
      await useToken(registry.admin, checked);
      const pages = [
        '/?q=translate',
        '/app/agents/translator',
        '/app/agents/pushy',
        '/app/agents/reports',
        '/app/resolve?intent=translate+text+into+french',
        '/app/operate',
        '/?q=zzzqqq',
      ];
      const found: string[] = [];
      for (const path of pages) {
        await checked.goto(`${registry.url}${path}`);
        await checked.waitForLoadState('networkidle');
        if (path.startsWith('/app/agents/'))
          await checked.locator('.operation summary:has-text("Try it")').first().click();
        if (path === '/app/agents/reports') {
          // The task line and the output of a deferred task that completed.
          await checked.getByLabel(/^quarter/).selectOption({ label: 'Q1' });
          await checked.locator('button:has-text("Run")').click();
          await checked.locator('.task[data-state="working"]').waitFor();
          demo.finishReport();
          await checked.locator('.task[data-state="completed"]').waitFor();
          await checked.locator('.outcome.ok').waitFor();
        }
        await checked.addScriptTag({ path: AXE_SOURCE });
        const violations = await checked.evaluate<
          Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>
        >('axe.run().then((results) => results.violations)');
        for (const violation of violations) {
          if (violation.impact === 'serious' || violation.impact === 'critical')
            found.push(
              `${path}: ${violation.id} at ${violation.nodes.map((n) => n.target.join(' ')).join(', ')}`,
            );
        }
      }
      assert.deepEqual(found, []);
      await checked.context().close();
    });
  }

  test('the app ran without script errors or policy violations', () => {
    assert.deepEqual(pageErrors, []);
  });
});
