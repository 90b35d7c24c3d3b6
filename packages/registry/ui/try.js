// Try it: an operation called through the registry's gateway (POST /agents/{id}/invoke with {operation, input}),
// its answer shown as it arrives: JSON, a stream of events, or a deferred task (its state while the gateway waits
// for it, then its output).
import { apiAgentPath, authHeaders, credentials, problemText } from './api.js';
import { h } from './dom.js';
import { inputForm } from './schema.js';
import { sseReader } from './sse.js';

const NEEDS_CONFIRMATION = new Set(['destructive', 'irreversible']);

export function tryPanel(agent, operation) {
  const form = inputForm(operation.inputs ?? operation.input_schema ?? {});
  const output = h('pre', { class: 'document output', tabindex: '0', 'aria-label': 'Output', hidden: true });
  const outcome = h('p', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
  // A deferred task's state, announced when it changes; how often it was checked beside it, not announced.
  const taskState = h('span', { class: 'task-state', role: 'status', 'aria-live': 'polite' });
  const taskChecks = h('span', { class: 'hint' });
  const task = h('p', { class: 'task' }, taskState, ' ', taskChecks);
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
    task,
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
      await invoke(agent, operation, input, confirm, {
        output,
        outcome,
        task: { node: task, state: taskState, checks: taskChecks },
        keyKind,
        keyInput,
      });
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
  showTask(ui.task, undefined);
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
    await showEvents(response, ui, started);
    return;
  }
  if (response.status === 202 && response.headers.get('location')) {
    await poll(response.headers.get('location'), headers, ui, started);
    return;
  }
  await showAnswer(response, ui, started);
}

/**
 * A stream of events as it arrives. Events are shown as sent, except a deferred task's: while the gateway waits
 * for the task, `task` events say it is working (shown in the task line), and its `result` (or `error`) is the
 * output, shown as JSON.
 */
async function showEvents(response, ui, started) {
  const { output, outcome } = ui;
  outcome.textContent = `HTTP ${response.status}: streaming…`;
  const events = sseReader();
  let task;
  let last;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const event of events.push(value)) {
      if (event.event === 'task') {
        task = { ...event.data, status: 'working' };
        showTask(ui.task, task);
        const waiting = `HTTP ${response.status}: waiting for the deferred task…`;
        if (outcome.textContent !== waiting) outcome.textContent = waiting;
        continue;
      }
      last = event;
      if (task === undefined) output.textContent += event.raw;
    }
  }
  output.textContent += events.rest();
  const failed =
    last?.event === 'error' || (task === undefined && /^event: error$/m.test(output.textContent));
  outcome.className = failed ? 'outcome error' : 'outcome ok';
  if (task === undefined) {
    outcome.textContent = `HTTP ${response.status}: stream ended${failed ? ' with an error' : ''} after ${elapsed(started)}.`;
    return;
  }
  const answered = last?.event === 'result' || last?.event === 'error';
  const status = failed ? 'failed' : answered ? 'completed' : 'unknown';
  // A completed task's result came from one more check than the last `task` event counted.
  showTask(ui.task, { ...task, status, polls: Number(task.polls ?? 0) + (status === 'completed' ? 1 : 0) });
  if (answered) output.textContent = JSON.stringify(last.data, null, 2);
  const detail =
    failed && typeof last?.data === 'object' ? `: ${problemText(last.data, response.status)}` : '';
  outcome.textContent = answered
    ? `HTTP ${response.status}: task ${failed ? 'failed' : 'completed'} after ${elapsed(started)}${detail}.`
    : `HTTP ${response.status}: the stream ended before the task did, after ${elapsed(started)}.`;
  if (!answered) outcome.className = 'outcome error';
}

/** The task line: `Task <id>: <status>` (announced) and how often the gateway has checked it; empty for none. */
function showTask(ui, task) {
  if (task === undefined) {
    ui.node.removeAttribute('data-state');
    ui.state.textContent = '';
    ui.checks.textContent = '';
    return;
  }
  ui.node.dataset.state = task.status;
  const said = `Task ${task.id ?? '(no id)'}: ${task.status === 'unknown' ? 'state unknown' : task.status}`;
  if (ui.state.textContent !== said) ui.state.textContent = said;
  const polls = Number(task.polls ?? 0);
  ui.checks.textContent =
    polls === 0 ? '(not checked yet)' : `(checked ${polls} time${polls === 1 ? '' : 's'})`;
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
