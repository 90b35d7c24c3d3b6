// Try it: an operation called through the registry's gateway (POST /agents/{id}/invoke with {operation, input}),
// its answer shown as it arrives: JSON, a stream of events, or a deferred task polled until it finishes.
import { apiAgentPath, authHeaders, credentials, problemText } from './api.js';
import { h } from './dom.js';
import { inputForm } from './schema.js';

const NEEDS_CONFIRMATION = new Set(['destructive', 'irreversible']);

export function tryPanel(agent, operation) {
  const form = inputForm(operation.inputs ?? operation.input_schema ?? {});
  const output = h('pre', { class: 'document output', tabindex: '0', 'aria-label': 'Output', hidden: true });
  const outcome = h('p', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
  const stored = credentials.agent();
  const keyInput = h('input', {
    type: 'password',
    autocomplete: 'off',
    id: `key-${operation.name}`,
    value: stored.value,
  });
  const keyKind = h(
    'select',
    { 'aria-label': "Kind of the agent's credential" },
    h('option', { value: 'api_key' }, 'API key (X-Agent-Api-Key)'),
    h('option', { value: 'authorization' }, 'Authorization value (X-Agent-Authorization)'),
  );
  keyKind.value = stored.kind;
  const run = h('button', { type: 'submit', class: 'primary' }, 'Run');
  const node = h(
    'form',
    { class: 'try', novalidate: true },
    form.node,
    h(
      'details',
      { class: 'agent-credential' },
      h('summary', {}, "The agent's own credential (if it needs one)"),
      h('label', { for: keyInput.id }, 'Credential, kept in this tab only'),
      h('div', { class: 'row' }, keyKind, keyInput),
    ),
    h(
      'div',
      { class: 'row' },
      run,
      credentials.token()
        ? undefined
        : h('span', { class: 'hint' }, 'Calling needs a registry token: set one under “Access token”.'),
    ),
    outcome,
    output,
  );
  node.addEventListener('submit', async (event) => {
    event.preventDefault();
    let input;
    try {
      input = form.read();
    } catch (error) {
      outcome.textContent = error.message;
      outcome.className = 'outcome error';
      return;
    }
    credentials.setAgent({ kind: keyKind.value, value: keyInput.value });
    let confirm = false;
    if (NEEDS_CONFIRMATION.has(operation.sensitivity) || operation.requires_confirmation === true) {
      confirm = window.confirm(
        `“${operation.name}” is marked ${operation.sensitivity ?? 'as needing confirmation'}. Run it?`,
      );
      if (!confirm) return;
    }
    run.disabled = true;
    try {
      await invoke(agent, operation, input, confirm, { output, outcome, keyKind, keyInput });
    } finally {
      run.disabled = false;
    }
  });
  return node;
}

async function invoke(agent, operation, input, confirm, ui) {
  const { output, outcome } = ui;
  output.hidden = false;
  output.textContent = '';
  outcome.className = 'outcome';
  outcome.textContent = 'Calling…';
  const headers = authHeaders({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  });
  if (ui.keyInput.value) {
    if (ui.keyKind.value === 'api_key') headers['X-Agent-Api-Key'] = ui.keyInput.value;
    else headers['X-Agent-Authorization'] = ui.keyInput.value;
  }
  const body = { operation: operation.name, input, ...(confirm ? { confirm: true } : {}) };
  const started = performance.now();
  let response = await fetch(`${apiAgentPath(agent.id)}/invoke`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  if (response.status === 428 && !confirm) {
    const text = await response.text();
    if (!window.confirm(`The agent asks for confirmation before “${operation.name}”. Run it?`)) {
      outcome.textContent = 'Not run: confirmation declined.';
      output.textContent = text;
      return;
    }
    body.confirm = true;
    response = await fetch(`${apiAgentPath(agent.id)}/invoke`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
  }
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream') && response.body) {
    outcome.textContent = `HTTP ${response.status}: streaming…`;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      output.textContent += value;
    }
    const failed = /^event: error$/m.test(output.textContent);
    outcome.className = failed ? 'outcome error' : 'outcome ok';
    outcome.textContent = `HTTP ${response.status}: stream ended${failed ? ' with an error' : ''} after ${elapsed(started)}.`;
    return;
  }
  if (response.status === 202 && response.headers.get('location')) {
    await poll(response.headers.get('location'), headers, ui, started);
    return;
  }
  await showAnswer(response, ui, started);
}

async function poll(location, headers, ui, started) {
  const { outcome } = ui;
  const pollHeaders = { Authorization: headers.Authorization, accept: 'application/json' };
  for (let attempt = 1; attempt <= 120; attempt++) {
    outcome.textContent = `Deferred task: waiting (check ${attempt})…`;
    await new Promise((resolve) => setTimeout(resolve, Math.min(500 * attempt, 5000)));
    const response = await fetch(location, { headers: pollHeaders });
    if (response.status === 202) continue;
    await showAnswer(response, ui, started);
    return;
  }
  outcome.textContent = `Deferred task still running; its status is at ${location}.`;
}

async function showAnswer(response, ui, started) {
  const text = await response.text();
  let value = text;
  try {
    value = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: shown as sent.
  }
  ui.output.textContent = value;
  if (response.ok) {
    ui.outcome.className = 'outcome ok';
    ui.outcome.textContent = `HTTP ${response.status} in ${elapsed(started)}`;
  } else {
    let detail = '';
    try {
      detail = problemText(JSON.parse(text), response.status);
    } catch {
      detail = `HTTP ${response.status}`;
    }
    ui.outcome.className = 'outcome error';
    ui.outcome.textContent = `HTTP ${response.status}: ${detail}`;
  }
}

function elapsed(started) {
  return `${Math.round(performance.now() - started)} ms`;
}
