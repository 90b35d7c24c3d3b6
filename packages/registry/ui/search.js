// The search page (/?q=…&tags=…&source=…&format=…&transport=…&auth=…): plain-language search, filters with counts, why each agent matched, pages.
// Everything the page shows comes from the URL, so a search can be shared, reloaded and gone back to.
import { agentPath, api, nextCursor } from './api.js';
import { currentTurn, h, setStatus, showView, stillCurrent } from './dom.js';

const PAGE_SIZE = 20;
/** The facets (their key in GET /facets, their label, and the GET /agents parameter that filters by them). */
const FILTER_FACETS = [
  ['tags', 'Tags', 'tags'],
  ['capabilities', 'Capabilities', 'capabilities'],
  ['languages', 'Languages', 'language'],
  ['status', 'Status', 'status'],
  ['sources', 'Source', 'source'],
  ['formats', 'Published as', 'format'],
  ['transports', 'Transport', 'transport'],
  ['auth', 'Authentication', 'auth'],
];
const FILTER_PARAMS = FILTER_FACETS.map(([, , param]) => param);

export async function searchView(params, navigate) {
  const turn = currentTurn();
  const q = params.get('q') ?? '';
  const query = h('input', {
    id: 'query',
    name: 'q',
    type: 'search',
    value: q,
    placeholder: 'Describe what you need, e.g. “summarize a long article”',
    'aria-label': 'What do you need?',
  });
  const form = h(
    'form',
    { id: 'search-form', role: 'search' },
    query,
    h('button', { type: 'submit', class: 'primary' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams(params);
    next.delete('cursor');
    const text = query.value.trim();
    if (text) next.set('q', text);
    else next.delete('q');
    navigate(`/${next.size ? `?${next}` : ''}`);
  });
  const results = h('ol', { id: 'results', class: 'results', 'aria-busy': 'true' });
  const facets = h('div', { id: 'facets' }, h('p', { class: 'hint' }, 'Counting…'));
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  const chosen = activeFilters(params, navigate);
  showView(
    h('h1', { class: 'visually-hidden' }, 'Search agents'),
    form,
    chosen,
    h(
      'div',
      { class: 'search-layout' },
      h(
        'details',
        { class: 'facets', open: window.matchMedia('(min-width: 50rem)').matches },
        h('summary', {}, 'Filters'),
        facets,
      ),
      h(
        'section',
        { 'aria-labelledby': 'results-title' },
        h('h2', { id: 'results-title', class: 'visually-hidden' }, 'Agents'),
        results,
        pager,
      ),
    ),
  );
  if (!q) query.focus();
  setStatus('Searching…');
  const listParams = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const name of ['q', 'cursor', ...FILTER_PARAMS]) {
    const value = params.get(name);
    if (value) listParams.set(name, value);
  }
  const facetParams = new URLSearchParams();
  for (const name of ['q', ...FILTER_PARAMS]) if (params.get(name)) facetParams.set(name, params.get(name));
  const [list] = await Promise.allSettled([api(`/agents?${listParams}`)]);
  if (!stillCurrent(turn)) return;
  results.removeAttribute('aria-busy');
  // The counts are asked once the results are in: the results never wait for them (at 100,000 agents the
  // counts take a few hundred milliseconds).
  api(`/facets${facetParams.size ? `?${facetParams}` : ''}`).then(
    ({ body }) => facets.replaceChildren(facetLists(body, params, navigate)),
    (error) => facets.replaceChildren(h('p', { class: 'hint' }, `Counts unavailable: ${error.message}`)),
  );

  if (list.status === 'rejected') {
    setStatus('');
    results.replaceWith(h('p', { class: 'error', role: 'alert' }, `Search failed: ${list.reason.message}`));
    return;
  }
  const agents = list.value.body;
  const cursor = nextCursor(list.value.response);
  const pageNumber = Number(params.get('page') ?? '1');
  if (agents.length === 0) {
    setStatus('No agents found');
    results.replaceWith(emptyState(q, params));
    return;
  }
  for (const agent of agents) results.append(resultItem(agent));
  const first = (pageNumber - 1) * PAGE_SIZE + 1;
  setStatus(
    `${q ? 'Best matches' : 'Agents'} ${first}–${first + agents.length - 1}${q ? ` for “${q}”` : ''}`,
  );
  if (pageNumber > 1)
    pager.append(h('button', { type: 'button', onclick: () => history.back() }, '← Previous page'));
  if (cursor) {
    const next = new URLSearchParams(params);
    next.set('cursor', cursor);
    next.set('page', String(pageNumber + 1));
    pager.append(h('a', { href: `/?${next}`, class: 'button', id: 'next-page', rel: 'next' }, 'Next page →'));
  }
}

function resultItem(agent) {
  return h(
    'li',
    { 'data-agent-id': agent.id },
    h(
      'div',
      { class: 'result-head' },
      h('a', { href: agentPath(agent.id), class: 'open' }, agent.name || agent.id),
      typeof agent.score === 'number'
        ? h('span', { class: 'score', title: 'Relevance score' }, agent.score.toFixed(2))
        : undefined,
    ),
    h(
      'div',
      { class: 'meta' },
      h('code', {}, agent.id),
      agent.version ? ` · v${agent.version}` : '',
      agent.publisher ? ` · ${agent.publisher}` : '',
      agent.status && agent.status !== 'active'
        ? h('span', { class: `badge status-${agent.status}` }, agent.status)
        : undefined,
      agent.flagged ? h('span', { class: 'badge warn' }, 'flagged') : undefined,
    ),
    agent.description ? h('p', { class: 'untrusted-inline clamp' }, agent.description) : undefined,
    Array.isArray(agent.why) && agent.why.length
      ? h(
          'ul',
          { class: 'why', 'aria-label': 'Why it matched' },
          agent.why.map((reason) => h('li', {}, String(reason))),
        )
      : undefined,
    Array.isArray(agent.tags) && agent.tags.length
      ? h(
          'div',
          { class: 'tags' },
          agent.tags.slice(0, 8).map((tag) => h('span', { class: 'tag' }, tag)),
        )
      : undefined,
  );
}

function withValue(params, param, value, on) {
  const next = new URLSearchParams(params);
  next.delete('cursor');
  next.delete('page');
  const values = new Set((next.get(param) ?? '').split(',').filter(Boolean));
  if (on) values.add(value);
  else values.delete(value);
  if (values.size) next.set(param, [...values].join(','));
  else next.delete(param);
  return `/${next.size ? `?${next}` : ''}`;
}

function activeFilters(params, navigate) {
  const chips = [];
  for (const [, label, param] of FILTER_FACETS) {
    for (const value of (params.get(param) ?? '').split(',').filter(Boolean)) {
      chips.push(
        h(
          'button',
          { type: 'button', class: 'chip', onclick: () => navigate(withValue(params, param, value, false)) },
          `${label}: ${value} ✕`,
        ),
      );
    }
  }
  if (chips.length === 0) return undefined;
  return h('div', { class: 'active-filters', 'aria-label': 'Active filters' }, 'Filtered by ', chips);
}

function facetLists(body, params, navigate) {
  const groups = [];
  const agents = `${body.total} ${body.total === 1 ? 'agent' : 'agents'}`;
  groups.push(
    h(
      'p',
      { class: 'hint' },
      body.ranked === undefined
        ? `${agents} match the filters`
        : `Counted among the best matches of the search: ${agents}`,
    ),
  );
  for (const [key, label, param] of FILTER_FACETS) {
    const values = body.facets?.[key] ?? [];
    if (values.length === 0) continue;
    const chosen = new Set((params.get(param) ?? '').split(',').filter(Boolean));
    groups.push(
      h(
        'fieldset',
        { class: 'facet', 'data-facet': key },
        h('legend', {}, label),
        values.map(({ value, count }) => {
          const id = `facet-${key}-${value}`.replace(/[^a-zA-Z0-9_-]/g, '_');
          const box = h('input', { type: 'checkbox', id, checked: chosen.has(value) });
          box.addEventListener('change', () => navigate(withValue(params, param, value, box.checked)));
          return h(
            'div',
            { class: 'facet-value' },
            box,
            h('label', { for: id }, value),
            h('span', { class: 'count' }, String(count)),
          );
        }),
      ),
    );
  }
  return h('div', {}, groups);
}

function emptyState(q, params) {
  const filtered = FILTER_PARAMS.some((name) => params.get(name));
  return h(
    'div',
    { class: 'empty', id: 'empty' },
    h('h2', {}, 'No agents found'),
    h('p', {}, q ? `Nothing matches “${q}”` : 'No agents here', filtered ? ' with these filters.' : '.'),
    h(
      'ul',
      {},
      filtered
        ? h(
            'li',
            {},
            h('a', { href: q ? `/?q=${encodeURIComponent(q)}` : '/' }, 'Search again without filters'),
          )
        : undefined,
      q
        ? h('li', {}, 'Try fewer or more general words, or describe the task instead of a product name.')
        : undefined,
      h('li', {}, h('a', { href: '/' }, 'Browse every agent')),
      h('li', {}, 'Restricted agents appear only with a token of their group (Access token, above).'),
    ),
  );
}
