// The agent page (/app/agents/<id>): who publishes it, where it came from, what it does and how to call it, and
// the agent in every format.
import { api, apiAgentPath } from './api.js';
import {
  copyButton,
  currentTurn,
  downloadLink,
  facts,
  h,
  jsonBlock,
  showView,
  stillCurrent,
  untrusted,
  when,
} from './dom.js';
import { schemaFields } from './schema.js';
import { tryPanel } from './try.js';

const FORMATS = [
  ['aidip', 'AIDIP', 'json'],
  ['woa', 'WoA', 'json'],
  ['awp', 'AWP', 'json'],
  ['a2a', 'A2A card', 'json'],
  ['agent-json', 'agent.json', 'json'],
  ['td', 'Thing Description', 'jsonld'],
  ['mcp', 'MCP server.json', 'json'],
];

export async function agentView(id, { tryOperation } = {}) {
  const turn = currentTurn();
  let agent;
  try {
    ({ body: agent } = await api(apiAgentPath(id)));
  } catch (error) {
    if (!stillCurrent(turn)) return;
    showView(
      h('h1', {}, 'Agent not found'),
      h(
        'p',
        {},
        error.status === 404 ? `No agent “${id}” here, or it is not visible to your token.` : error.message,
      ),
      h('p', {}, h('a', { href: '/' }, 'Search the registry')),
    );
    document.title = 'Agent not found · Agentry';
    return;
  }
  if (!stillCurrent(turn)) return;
  document.title = `${agent.name || id} · Agentry`;
  const registry = agent.registry ?? {};
  const operations = agent.operations ?? [];
  showView(
    h(
      'article',
      { class: 'agent', 'data-agent-id': agent.id },
      h(
        'div',
        { class: 'agent-head' },
        h('h1', { id: 'agent-name' }, agent.name || agent.id),
        h(
          'p',
          { class: 'meta' },
          h('code', {}, agent.id),
          agent.version ? ` · v${agent.version}` : '',
          ' · ',
          statusBadge(agent.status),
          agent.flagged ? h('span', { class: 'badge warn' }, 'flagged') : undefined,
        ),
      ),
      h(
        'div',
        { class: 'agent-layout' },
        h(
          'div',
          { class: 'agent-main' },
          untrusted(agent.description),
          flagsSection(agent),
          h(
            'section',
            { 'aria-labelledby': 'ops-title' },
            h('h2', { id: 'ops-title' }, `Operations (${operations.length})`),
            operations.length === 0
              ? h('p', { class: 'hint' }, 'This agent describes no operations.')
              : operations.map((operation) =>
                  operationSection(agent, operation, operation.name === tryOperation),
                ),
          ),
          authSection(agent),
          formatsSection(agent),
        ),
        h(
          'aside',
          { class: 'agent-side', 'aria-label': 'About this agent' },
          h('h2', {}, 'About'),
          facts([
            ['Publisher', agent.publisher ?? agent.provider?.name],
            ['Owner in this registry', registry.owner],
            ['Version', agent.version],
            ['Status', agent.status],
            ['Endpoint', agent.endpoint ? h('code', { class: 'wrap' }, agent.endpoint) : undefined],
            ['Tags', (agent.tags ?? []).join(', ')],
            ['Capabilities', (agent.capabilities ?? []).join(', ')],
            ['Languages', (agent.supported_languages ?? []).join(', ')],
            ['Registered', registry.created_at ? when(registry.created_at) : undefined],
            ['Updated', registry.updated_at ? when(registry.updated_at) : undefined],
            ['Revision', registry.revision],
          ]),
          qualitySection(agent),
          provenanceSection(registry.sources ?? []),
        ),
      ),
    ),
  );
  if (tryOperation) document.getElementById(`op-${tryOperation}`)?.scrollIntoView();
}

function statusBadge(status) {
  return h('span', { class: `badge status-${status}` }, status ?? 'unknown');
}

function flagsSection(agent) {
  const flags = agent.safety_flags ?? [];
  if (!agent.flagged && flags.length === 0) return undefined;
  return h(
    'section',
    { class: 'flags', 'aria-labelledby': 'flags-title' },
    h('h2', { id: 'flags-title' }, 'Flags'),
    h(
      'p',
      {},
      'The registry found text in this description that tries to instruct an AI model. Treat it with care.',
    ),
    h(
      'ul',
      {},
      flags.map((flag) =>
        h(
          'li',
          {},
          h('strong', {}, flag.rule),
          ' at ',
          h('code', {}, flag.pointer || '/'),
          flag.excerpt ? [': ', h('q', {}, flag.excerpt)] : '',
        ),
      ),
    ),
  );
}

function operationSection(agent, operation, open) {
  const examples = operation.examples ?? [];
  return h(
    'section',
    { class: 'operation', id: `op-${operation.name}`, 'data-operation': operation.name },
    h('h3', {}, h('code', {}, operation.name), operation.title ? ` — ${operation.title}` : ''),
    operation.description ? h('p', { class: 'untrusted-inline' }, operation.description) : undefined,
    operation.sensitivity && operation.sensitivity !== 'standard'
      ? h(
          'p',
          { class: 'warning' },
          `Marked ${operation.sensitivity}: you are asked to confirm before it runs.`,
        )
      : undefined,
    h(
      'div',
      { class: 'schemas' },
      h('div', {}, h('h4', {}, 'Input'), schemaFields(operation.inputs ?? operation.input_schema)),
      h('div', {}, h('h4', {}, 'Output'), schemaFields(operation.outputs ?? operation.output_schema)),
    ),
    examples.length
      ? h(
          'details',
          {},
          h('summary', {}, `Examples (${examples.length})`),
          examples.map((example, i) => jsonBlock(example, `Example ${i + 1}`)),
        )
      : undefined,
    h('details', { class: 'try-it', open }, h('summary', {}, 'Try it'), tryPanel(agent, operation)),
  );
}

function authSection(agent) {
  const auth = agent.authentication;
  if (!auth) return h('section', {}, h('h2', {}, 'Authentication'), h('p', {}, 'None described.'));
  return h(
    'section',
    { 'aria-labelledby': 'auth-title' },
    h('h2', { id: 'auth-title' }, 'Authentication'),
    auth.instructions ? h('p', {}, auth.instructions) : h('p', {}, `Type: ${auth.type}`),
    Array.isArray(auth.credentials)
      ? h(
          'ul',
          {},
          auth.credentials.map((credential) =>
            h(
              'li',
              {},
              h('code', {}, `${credential.name}`),
              ` (${credential.type}, for ${credential.for}${credential.required === false ? ', optional' : ''})`,
            ),
          ),
        )
      : undefined,
  );
}

function qualitySection(agent) {
  const quality = agent.registry?.quality ?? {};
  return [
    h('h2', {}, 'Liveness and quality'),
    facts([
      [
        'Quality score',
        agent.quality_score === undefined ? 'no evidence yet' : agent.quality_score.toFixed(2),
      ],
      ['Calls through the gateway', quality.invocations],
      ['Failures', quality.failures],
      [
        'Median latency',
        quality.median_latency_ms === undefined ? undefined : `${quality.median_latency_ms} ms`,
      ],
      ['Ratings', quality.ratings],
      ['Average rating', quality.average_rating],
      ['Verified', quality.verified === undefined ? undefined : quality.verified ? 'yes' : 'no'],
    ]),
  ];
}

function provenanceSection(sources) {
  return [
    h('h2', {}, 'Provenance'),
    sources.length === 0
      ? h('p', { class: 'hint' }, 'Not recorded.')
      : h(
          'ol',
          { class: 'sources' },
          sources.map((source, index) =>
            h(
              'li',
              {},
              h('strong', {}, `${source.arrived} ${source.format}`),
              index === 0 ? h('span', { class: 'hint' }, ' (primary)') : '',
              h('div', {}, 'by ', h('code', {}, source.by), ', ', when(source.at)),
              source.url ? h('div', {}, h('code', { class: 'wrap' }, source.url)) : undefined,
              h(
                'div',
                {},
                source.verified
                  ? h('span', { class: 'badge ok' }, 'verified')
                  : h('span', { class: 'badge' }, 'not verified'),
                ' ',
                signatureBadge(source),
              ),
            ),
          ),
        ),
  ];
}

/** The source's signature: checked and valid, failed, present but unchecked, or none. */
function signatureBadge(source) {
  const label = {
    verified: ['badge ok', 'signature verified'],
    failed: ['badge warn', 'signature failed'],
    unchecked: ['badge', 'signed, not checked'],
    none: ['badge', 'unsigned'],
  }[source.signature];
  if (!label) return undefined;
  return h(
    'span',
    { class: 'signature', 'data-signature': source.signature },
    h('span', { class: label[0] }, label[1]),
    source.signature_detail ? h('span', { class: 'hint' }, ` ${source.signature_detail}`) : undefined,
  );
}

function formatsSection(agent) {
  const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': 'Format' });
  const pre = h('pre', {
    class: 'document',
    id: 'document',
    tabindex: '0',
    'aria-label': 'The agent in the chosen format',
  });
  let current = { text: '', format: 'aidip', ext: 'json' };
  const actions = h(
    'div',
    { class: 'row' },
    copyButton(() => current.text),
    downloadLink(() => current.text, `${agent.id}.json`, 'application/json'),
  );
  const download = actions.querySelector('a');
  const show = async ([format, , ext]) => {
    for (const tab of tabs.children) tab.setAttribute('aria-pressed', String(tab.dataset.format === format));
    pre.textContent = 'Loading…';
    try {
      const { body } = await api(`${apiAgentPath(agent.id)}?format=${format}`);
      current = { text: typeof body === 'string' ? body : JSON.stringify(body, null, 2), format, ext };
    } catch (error) {
      current = { text: `Not available in ${format}: ${error.message}`, format, ext: 'txt' };
    }
    pre.textContent = current.text;
    download.setAttribute('download', `${agent.id}.${format}.${current.ext}`);
  };
  for (const entry of FORMATS) {
    tabs.append(
      h(
        'button',
        { type: 'button', 'data-format': entry[0], 'aria-pressed': 'false', onclick: () => show(entry) },
        entry[1],
      ),
    );
  }
  show(FORMATS[0]);
  return h(
    'section',
    { 'aria-labelledby': 'formats-title' },
    h('h2', { id: 'formats-title' }, 'In every format'),
    tabs,
    actions,
    pre,
  );
}
