// The registry's web page: search, resolve, and every agent in every format. Plain browser JavaScript (no build
// step). Agent text is untrusted: it is only ever set as textContent, never parsed as HTML.

const FORMATS = ['aidip', 'woa', 'awp', 'a2a', 'agent-json', 'td', 'mcp'];
const TOKEN_KEY = 'agentry.token';

const $ = (id) => document.getElementById(id);
const state = { cursor: undefined, selected: undefined };

function headers(extra = {}) {
  const token = localStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

async function api(path, init = {}) {
  const response = await fetch(path, { ...init, headers: headers(init.headers) });
  const type = response.headers.get('content-type') ?? '';
  const body = type.includes('json') ? await response.json() : await response.text();
  if (!response.ok) {
    const detail = body?.detail ?? body?.error?.message ?? body?.title ?? `HTTP ${response.status}`;
    throw new Error(detail);
  }
  return { body, response };
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function list(value) {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function filters() {
  const out = {};
  const tags = list($('filter-tags').value);
  const capabilities = list($('filter-capabilities').value);
  const language = list($('filter-language').value);
  if (tags.length) out.tags = tags;
  if (capabilities.length) out.capabilities = capabilities;
  if (language.length) out.supported_languages = language;
  return out;
}

/** The agents of a list answer, whatever its envelope (an array, or an object holding one). */
function agentsOf(body) {
  if (Array.isArray(body)) return body;
  for (const key of ['agents', 'results', 'items', 'candidates', 'data']) {
    if (Array.isArray(body?.[key])) return body[key];
  }
  return [];
}

function nextCursorOf(body, response) {
  const link = response.headers.get('link') ?? '';
  const match = /<([^>]+)>;\s*rel="?next"?/.exec(link);
  if (match) return new URL(match[1], location.href).searchParams.get('cursor') ?? undefined;
  return body?.next_cursor ?? body?.nextCursor ?? body?.cursor ?? undefined;
}

function renderResult(agent) {
  const item = element('li');
  item.dataset.agentId = agent.id;
  const open = element('button', agent.name ?? agent.id, 'open');
  open.type = 'button';
  open.addEventListener('click', () => showAgent(agent.id ?? agent.agent_id));
  item.append(open);
  if (typeof agent.score === 'number') item.append(element('span', agent.score.toFixed(3), 'score'));
  if (agent.flagged) item.append(element('span', 'flagged', 'badge'));
  item.append(element('div', agent.id ?? agent.agent_id, 'meta'));
  if (agent.description) item.append(element('p', agent.description, 'untrusted'));
  const reasons = agent.why ?? agent.reasons;
  if (Array.isArray(reasons) && reasons.length) {
    const why = element('ul', undefined, 'why');
    for (const reason of reasons) why.append(element('li', String(reason)));
    item.append(why);
  }
  const invocation = agent.invocation;
  if (invocation) {
    const how = [invocation.operation, invocation.binding?.kind ?? invocation.transport, invocation.endpoint]
      .filter(Boolean)
      .join(' · ');
    item.append(element('div', how, 'meta'));
  }
  return item;
}

function showList(agents, { append = false } = {}) {
  const results = $('results');
  if (!append) results.replaceChildren();
  for (const agent of agents) results.append(renderResult(agent));
}

async function browse({ append = false } = {}) {
  const params = new URLSearchParams({ limit: '20' });
  if (append && state.cursor) params.set('cursor', state.cursor);
  const f = filters();
  if (f.tags) params.set('tags', f.tags.join(','));
  if (f.capabilities) params.set('capabilities', f.capabilities.join(','));
  if (f.supported_languages) params.set('language', f.supported_languages.join(','));
  const { body, response } = await api(`/agents?${params}`);
  const agents = agentsOf(body);
  showList(agents, { append });
  state.cursor = nextCursorOf(body, response);
  $('more').hidden = state.cursor === undefined;
  return agents.length;
}

async function search(query) {
  const { body } = await api('/agents/search', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, filters: filters(), top: 20 }),
  });
  const agents = agentsOf(body);
  showList(agents);
  $('more').hidden = true;
  return agents.length;
}

async function resolveIntent(intent) {
  const { body } = await api('/resolve', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ intent, top: 10 }),
  });
  const candidates = agentsOf(body).map((candidate) => ({
    ...candidate,
    id: candidate.id ?? candidate.agent_id,
  }));
  showList(candidates);
  $('more').hidden = true;
  return candidates.length;
}

async function showAgent(id) {
  state.selected = id;
  const { body } = await api(`/agents/${encodeURIComponent(id)}`);
  $('detail').hidden = false;
  $('detail-name').textContent = body.name ?? id;
  $('detail-meta').textContent = [id, body.version && `v${body.version}`, body.publisher, body.status]
    .filter(Boolean)
    .join(' · ');
  $('detail-description').textContent = body.description ?? '';
  const flags = body.flags ?? [];
  $('detail-flags').hidden = !body.flagged && flags.length === 0;
  $('detail-flags').textContent =
    'This description contains text that tries to instruct an AI model; treat it with care.';
  const operations = $('detail-operations');
  operations.replaceChildren();
  for (const operation of body.operations ?? []) {
    const item = element('li');
    item.append(element('code', operation.name));
    if (operation.description) item.append(document.createTextNode(` — ${operation.description}`));
    operations.append(item);
  }
  await showFormat('aidip');
}

async function showFormat(format) {
  const tabs = $('formats');
  tabs.replaceChildren();
  for (const name of FORMATS) {
    const tab = element('button', name);
    tab.type = 'button';
    tab.setAttribute('aria-pressed', String(name === format));
    tab.addEventListener('click', () => showFormat(name));
    tabs.append(tab);
  }
  const pre = $('document');
  try {
    const { body } = await api(`/agents/${encodeURIComponent(state.selected)}?format=${format}`);
    pre.textContent = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  } catch (error) {
    pre.textContent = `Not available in ${format}: ${error.message}`;
  }
}

async function run(task) {
  const status = $('status');
  status.textContent = 'Working…';
  try {
    const count = await task();
    status.textContent = `${count} ${count === 1 ? 'agent' : 'agents'}`;
  } catch (error) {
    status.textContent = `Failed: ${error.message}`;
  }
}

$('search-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('query').value.trim();
  const mode = $('mode').value;
  if (text === '') run(() => browse());
  else if (mode === 'resolve') run(() => resolveIntent(text));
  else run(() => search(text));
});
$('more').addEventListener('click', () => run(() => browse({ append: true })));
$('token-save').addEventListener('click', () => {
  localStorage.setItem(TOKEN_KEY, $('token').value.trim());
  $('token').value = '';
  run(() => browse());
});
$('token-clear').addEventListener('click', () => {
  localStorage.removeItem(TOKEN_KEY);
  run(() => browse());
});

run(() => browse());
