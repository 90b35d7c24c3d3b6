// The operator console (/app/operate, an admin token; hosts need an operator): the crawl queue with "crawl now",
// the registries imported and their last runs, tokens (create, list, revoke), the audit log, and agents flagged
// when they arrived.
import { api, credentials } from './api.js';
import { h, setStatus, showView, when } from './dom.js';

export async function operateView() {
  if (!credentials.token()) {
    showView(
      h('h1', {}, 'Operate'),
      h(
        'p',
        {},
        'The operator console needs an admin token: paste it under “Access token” above. It stays in this tab.',
      ),
    );
    setStatus('');
    return;
  }
  const hosts = h('div', { id: 'hosts' }, 'Loading…');
  const tokens = h('div', { id: 'tokens' }, 'Loading…');
  const imports = h('div', { id: 'imports' }, 'Loading…');
  const audit = h('div', { id: 'audit' }, 'Loading…');
  const flagged = h('div', { id: 'flagged' }, 'Loading…');
  showView(
    h('h1', {}, 'Operate'),
    h(
      'nav',
      { class: 'toc', 'aria-label': 'Sections' },
      h('a', { href: '#hosts-title' }, 'Crawling'),
      ' · ',
      h('a', { href: '#imports-title' }, 'Imports'),
      ' · ',
      h('a', { href: '#tokens-title' }, 'Tokens'),
      ' · ',
      h('a', { href: '#flagged-title' }, 'Flagged'),
      ' · ',
      h('a', { href: '#audit-title' }, 'Audit log'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'hosts-title' },
      h('h2', { id: 'hosts-title' }, 'Hosts being crawled'),
      hosts,
    ),
    h(
      'section',
      { 'aria-labelledby': 'imports-title' },
      h('h2', { id: 'imports-title' }, 'Registries imported'),
      imports,
    ),
    h('section', { 'aria-labelledby': 'tokens-title' }, h('h2', { id: 'tokens-title' }, 'Tokens'), tokens),
    h(
      'section',
      { 'aria-labelledby': 'flagged-title' },
      h('h2', { id: 'flagged-title' }, 'Flagged agents to review'),
      flagged,
    ),
    h('section', { 'aria-labelledby': 'audit-title' }, h('h2', { id: 'audit-title' }, 'Audit log'), audit),
  );
  setStatus('');
  await Promise.all([
    loadHosts(hosts),
    loadImports(imports),
    loadTokens(tokens),
    loadAuditViews(audit, flagged),
  ]);
}

function table(caption, headings, rows) {
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': `${caption} (table)` },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headings.map((heading) =>
            h('th', { scope: 'col' }, heading || h('span', { class: 'visually-hidden' }, 'Actions')),
          ),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

/** The crawl queue; `note` says what the last action did (the list is drawn again after each). */
async function loadHosts(container, note = '') {
  const origin = h('input', {
    id: 'host-origin',
    type: 'url',
    placeholder: 'https://agents.example.com',
    'aria-label': 'Origin to crawl',
  });
  const message = h('p', { role: 'status', class: 'hint' }, note);
  const add = h('form', { class: 'row' }, origin, h('button', { type: 'submit' }, 'Add and crawl'));
  const crawl = async (value, now = false) => {
    try {
      const { body } = await api('/hosts', { json: now ? { origin: value, now: true } : { origin: value } });
      const queued = now ? `${body.origin} is due now` : `${body.origin} is queued (${body.state})`;
      await loadHosts(container, body.warning ? `${queued}. ${body.warning}` : `${queued}.`);
    } catch (error) {
      message.textContent = `Could not queue ${value}: ${error.message}`;
    }
  };
  add.addEventListener('submit', (event) => {
    event.preventDefault();
    if (origin.value.trim()) crawl(origin.value.trim());
  });
  let list;
  try {
    ({ body: list } = await api('/hosts?limit=100'));
  } catch (error) {
    container.replaceChildren(
      h('p', { class: 'error' }, `The crawl queue is not readable with this token: ${error.message}`),
    );
    return;
  }
  container.replaceChildren(
    add,
    message,
    list.length === 0
      ? h('p', { class: 'hint' }, 'No origins in the crawl queue yet.')
      : table(
          'Hosts being crawled',
          ['Origin', 'State', 'Last crawl', 'Outcome', 'Next crawl', 'Agents', ''],
          list.map((host) =>
            h(
              'tr',
              { 'data-origin': host.origin },
              h('td', {}, h('code', { class: 'wrap' }, host.origin)),
              h('td', {}, host.state),
              h('td', {}, when(host.last_crawled_at)),
              h(
                'td',
                {},
                host.last_outcome ?? '—',
                host.last_error ? h('div', { class: 'error' }, host.last_error) : undefined,
                host.failures ? h('div', { class: 'hint' }, `${host.failures} failures in a row`) : undefined,
              ),
              h('td', {}, when(host.next_due_at)),
              h('td', {}, String(host.agents ?? 0)),
              h(
                'td',
                {},
                h(
                  'button',
                  { type: 'button', class: 'small', onclick: () => crawl(host.origin, true) },
                  'Crawl now',
                ),
              ),
            ),
          ),
        ),
  );
}

async function loadAuditViews(audit, flagged) {
  let entries;
  try {
    ({
      body: { entries },
    } = await api('/admin/audit?limit=500'));
  } catch (error) {
    for (const node of [audit, flagged])
      node.replaceChildren(h('p', { class: 'error' }, `Needs an admin token: ${error.message}`));
    return;
  }
  showFlagged(flagged, entries);
  audit.replaceChildren(
    table(
      'Audit log, newest first',
      ['When', 'Who', 'Action', 'Target', 'Details'],
      entries
        .slice(0, 100)
        .map((entry) =>
          h(
            'tr',
            {},
            h('td', {}, when(entry.at)),
            h('td', {}, h('code', {}, entry.actor)),
            h('td', {}, entry.action),
            h('td', {}, h('code', { class: 'wrap' }, entry.target)),
            h('td', { class: 'details' }, JSON.stringify(entry.details)),
          ),
        ),
    ),
  );
}

/** The registries this one imports (GET /imports): each with its last completed import and its last run. */
async function loadImports(container) {
  let list;
  try {
    ({ body: list } = await api('/imports'));
  } catch (error) {
    container.replaceChildren(h('p', { class: 'error' }, `Needs an admin token: ${error.message}`));
    return;
  }
  if (list.imports.length === 0) {
    container.replaceChildren(
      h(
        'p',
        { class: 'hint' },
        'No registry imported yet (agentry import <url>, or agentry serve --import <url> to mirror one).',
      ),
    );
    return;
  }
  container.replaceChildren(
    table(
      'Registries imported',
      ['Source', 'Kind', 'Last completed', 'Last run', 'Agents'],
      list.imports.map((source) => {
        const run = source.last_run;
        return h(
          'tr',
          { 'data-source': source.base_url },
          h('td', {}, h('code', { class: 'wrap' }, source.base_url)),
          h('td', {}, source.kind ?? '—'),
          h('td', {}, when(source.last_imported_at)),
          h(
            'td',
            {},
            run === undefined
              ? '—'
              : [
                  h('span', { class: run.ok ? 'badge ok' : 'badge warn' }, run.ok ? 'done' : 'failed'),
                  ' ',
                  when(run.at),
                  run.ok
                    ? h(
                        'div',
                        { class: 'hint' },
                        `${run.imported ?? 0} imported, ${run.deleted ?? 0} deleted` +
                          (run.unreadable ? `, ${run.unreadable} unreadable` : ''),
                      )
                    : h('div', { class: 'error' }, run.error ?? ''),
                ],
          ),
          h('td', {}, String(source.agents)),
        );
      }),
    ),
  );
}

/** The live tokens (GET /admin/tokens), a form to make one, and a button to revoke each. */
async function loadTokens(container) {
  let list;
  try {
    ({ body: list } = await api('/admin/tokens?limit=1000'));
  } catch (error) {
    container.replaceChildren(h('p', { class: 'error' }, `Needs an admin token: ${error.message}`));
    return;
  }
  const role = h(
    'select',
    { id: 'token-role', 'aria-label': 'Role' },
    h('option', { value: 'client' }, 'client'),
    h('option', { value: 'publisher' }, 'publisher'),
  );
  const publisher = h('input', {
    id: 'token-publisher',
    placeholder: 'publisher name',
    'aria-label': 'Publisher (for a publisher token)',
  });
  const groups = h('input', {
    id: 'token-groups',
    placeholder: 'groups, comma-separated',
    'aria-label': 'Groups',
  });
  const created = h('div', { role: 'status' });
  const form = h(
    'form',
    { class: 'row' },
    role,
    publisher,
    groups,
    h('button', { type: 'submit' }, 'Create token'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const spec = {
      role: role.value,
      groups: groups.value
        .split(',')
        .map((g) => g.trim())
        .filter(Boolean),
    };
    if (publisher.value.trim()) spec.publisher = publisher.value.trim();
    try {
      const { body } = await api('/admin/tokens', { json: spec });
      rows.prepend(tokenRow(body));
      created.replaceChildren(
        h('p', {}, `Token ${body.id} created. Its secret is shown once:`),
        h('pre', { class: 'document secret', tabindex: '0' }, body.token),
      );
    } catch (error) {
      created.replaceChildren(h('p', { class: 'error' }, error.message));
    }
  });
  const revoke = async (id, button) => {
    if (!window.confirm(`Revoke token ${id}? Whoever holds it loses access at once.`)) return;
    try {
      await api(`/admin/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
      button.closest('tr').remove();
      created.replaceChildren(h('p', {}, `Token ${id} revoked.`));
    } catch (error) {
      button.replaceWith(h('span', { class: 'error' }, error.message));
    }
  };
  const tokenRow = (token) => {
    const button = h('button', { type: 'button', class: 'small danger' }, 'Revoke');
    button.addEventListener('click', () => revoke(token.id, button));
    return h(
      'tr',
      { 'data-token': token.id },
      h('td', {}, h('code', {}, token.id)),
      h('td', {}, token.role),
      h('td', {}, token.publisher ?? ''),
      h('td', {}, (token.groups ?? []).join(', ')),
      h('td', {}, when(token.created_at)),
      h('td', {}, token.role === 'admin' ? '' : button),
    );
  };
  const tokensTable = table(
    'Live tokens',
    ['Id', 'Role', 'Publisher', 'Groups', 'Created', ''],
    list.tokens.map(tokenRow),
  );
  const rows = tokensTable.querySelector('tbody');
  container.replaceChildren(
    form,
    created,
    h(
      'p',
      { class: 'hint' },
      list.next_before
        ? 'The 1,000 newest live tokens (the API pages through the rest: GET /admin/tokens?before=…):'
        : 'Live tokens, newest first (the secret of each was shown once, when it was made):',
    ),
    tokensTable,
  );
}

function showFlagged(container, entries) {
  const latest = new Map();
  for (const entry of entries) {
    if (!['agent.create', 'agent.update'].includes(entry.action) || latest.has(entry.target)) continue;
    latest.set(entry.target, entry);
  }
  const flagged = [...latest.values()].filter((entry) => (entry.details?.flags ?? []).length > 0);
  container.replaceChildren(
    flagged.length === 0
      ? h('p', { class: 'hint' }, 'No agent written recently was flagged.')
      : h(
          'ul',
          {},
          flagged.map((entry) =>
            h(
              'li',
              {},
              h(
                'a',
                { href: `/app/agents/${encodeURIComponent(entry.target)}` },
                entry.details?.name ?? entry.target,
              ),
              ` — ${(entry.details.flags ?? []).map((flag) => (typeof flag === 'string' ? flag : flag.rule)).join(', ')} · `,
              when(entry.at),
            ),
          ),
        ),
  );
}
