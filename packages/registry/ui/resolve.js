// Resolve (/app/resolve?intent=…): an intent in, ranked candidates out, each with the exact call to make.
import { agentPath, api, credentials } from './api.js';
import { copyButton, currentTurn, facts, h, setStatus, showView, stillCurrent } from './dom.js';
import { sampleInput } from './schema.js';

export async function resolveView(params, navigate) {
  const intent = params.get('intent') ?? '';
  const box = h('input', {
    id: 'intent',
    type: 'search',
    value: intent,
    'aria-label': 'Your intent',
    placeholder: 'What should an agent do? e.g. “translate this text into French”',
  });
  const form = h(
    'form',
    { id: 'resolve-form' },
    box,
    h('button', { type: 'submit', class: 'primary' }, 'Resolve'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = box.value.trim();
    navigate(text ? `/app/resolve?intent=${encodeURIComponent(text)}` : '/app/resolve');
  });
  const list = h('ol', { id: 'candidates', class: 'results' });
  showView(
    h('h1', {}, 'Resolve an intent'),
    h(
      'p',
      { class: 'hint' },
      'The registry picks the agents and the operation that fit, and says how to call them.',
    ),
    form,
    list,
  );
  if (!intent) {
    box.focus();
    setStatus('');
    return;
  }
  setStatus('Resolving…');
  const turn = currentTurn();
  let body;
  try {
    ({ body } = await api('/resolve', { json: { intent, top: 10 } }));
  } catch (error) {
    if (!stillCurrent(turn)) return;
    setStatus('');
    list.replaceWith(h('p', { class: 'error', role: 'alert' }, `Resolution failed: ${error.message}`));
    return;
  }
  if (!stillCurrent(turn)) return;
  const candidates = body.candidates ?? [];
  const left = body.filtered?.count
    ? ` (${body.filtered.count} left out: ${Object.entries(body.filtered.reasons ?? {})
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')})`
    : '';
  setStatus(
    `${candidates.length} ${candidates.length === 1 ? 'candidate' : 'candidates'} of ${body.considered ?? candidates.length} considered${left}`,
  );
  if (candidates.length === 0) {
    list.replaceWith(
      h(
        'div',
        { class: 'empty', id: 'empty' },
        h('h2', {}, 'No agent fits'),
        h(
          'p',
          {},
          `No agent the registry may show you fits “${intent}”${left}. Try other words, or `,
          h('a', { href: `/?q=${encodeURIComponent(intent)}` }, 'search instead'),
          '.',
        ),
      ),
    );
    return;
  }
  for (const candidate of candidates) list.append(candidateItem(candidate));
}

function candidateItem(candidate) {
  const operation = candidate.operation ?? {};
  const call = callText(candidate, operation);
  const binding = candidate.binding ?? {};
  return h(
    'li',
    { 'data-agent-id': candidate.id, class: 'candidate' },
    h(
      'div',
      { class: 'result-head' },
      h('a', { href: agentPath(candidate.id), class: 'open' }, candidate.name || candidate.id),
      h('span', { class: 'score', title: 'Relevance (0–1)' }, (candidate.score ?? 0).toFixed(2)),
    ),
    h(
      'div',
      { class: 'meta' },
      h('code', {}, candidate.id),
      ` · trust ${(candidate.trust ?? 0).toFixed(2)}`,
      candidate.quality_score === undefined ? '' : ` · quality ${candidate.quality_score.toFixed(2)}`,
    ),
    candidate.description ? h('p', { class: 'untrusted-inline clamp' }, candidate.description) : undefined,
    Array.isArray(candidate.why)
      ? h(
          'ul',
          { class: 'why', 'aria-label': 'Why it fits' },
          candidate.why.map((reason) => h('li', {}, reason)),
        )
      : undefined,
    facts([
      ['Operation', operation.name ? h('code', {}, operation.name) : undefined],
      [
        'Binding',
        [binding.kind, binding.method, binding.transport, binding.tool].filter(Boolean).join(' · '),
      ],
      ['Agent endpoint', binding.endpoint ? h('code', { class: 'wrap' }, binding.endpoint) : undefined],
      [
        'Agent auth',
        candidate.auth
          ? `${candidate.auth.required ? 'required' : 'not required'}: ${(candidate.auth.types ?? []).join(', ') || 'none'}`
          : undefined,
      ],
      [
        'Through the gateway',
        candidate.invoke?.gateway ? h('code', { class: 'wrap' }, candidate.invoke.gateway) : undefined,
      ],
    ]),
    h(
      'div',
      { class: 'call' },
      h(
        'div',
        { class: 'row' },
        h('strong', {}, 'The call'),
        copyButton(() => call, 'Copy call'),
      ),
      h('pre', { class: 'document', tabindex: '0', 'aria-label': 'The call to make' }, call),
    ),
    h(
      'a',
      {
        class: 'button primary',
        href: `${agentPath(candidate.id)}?try=${encodeURIComponent(operation.name ?? '')}`,
      },
      `Try ${operation.name ?? 'it'}`,
    ),
  );
}

/** The call through the registry's gateway, as curl, with a sample input from the operation's schema. */
function callText(candidate, operation) {
  const gateway = candidate.invoke?.gateway;
  const body = JSON.stringify({
    operation: operation.name,
    input: sampleInput(operation.input_schema ?? {}),
  });
  const lines = [
    `curl -X POST '${gateway ?? candidate.binding?.endpoint ?? ''}'`,
    `  -H 'Authorization: Bearer ${credentials.token() ? '<your registry token>' : '<a registry token>'}'`,
  ];
  if (candidate.auth?.required) lines.push(`  -H 'X-Agent-Api-Key: <the agent's key>'`);
  lines.push(`  -H 'Content-Type: application/json'`, `  -d '${body.replaceAll("'", "'\\''")}'`);
  return lines.join(' \\\n');
}
