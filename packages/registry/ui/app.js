// The registry's web app: plain ES modules (no build step) over the public API. The path picks the view:
// `/` search, `/app/agents/<id>` an agent, `/app/resolve` resolution, `/app/operate` the operator console. Links
// inside the app change the URL with the History API, so Back, reload and shared links work.
import { agentView } from './agent.js';
import { credentials } from './api.js';
import { $, beginTurn, setStatus, stillCurrent } from './dom.js';
import { operateView } from './operate.js';
import { resolveView } from './resolve.js';
import { searchView } from './search.js';

function navigate(url) {
  history.pushState(null, '', url);
  render();
}

async function render() {
  const turn = beginTurn();
  const { pathname, searchParams } = new URL(location.href);
  for (const link of document.querySelectorAll('[data-nav]')) link.removeAttribute('aria-current');
  const section = pathname.startsWith('/app/resolve')
    ? 'resolve'
    : pathname.startsWith('/app/operate')
      ? 'operate'
      : pathname.startsWith('/app/agents/')
        ? undefined
        : 'search';
  if (section) document.querySelector(`[data-nav="${section}"]`)?.setAttribute('aria-current', 'page');
  setStatus('');
  try {
    if (pathname.startsWith('/app/agents/')) {
      const id = decodeURIComponent(pathname.slice('/app/agents/'.length));
      await agentView(id, { tryOperation: searchParams.get('try') ?? undefined });
    } else if (section === 'resolve') {
      document.title = 'Resolve · Agentry';
      await resolveView(searchParams, navigate);
    } else if (section === 'operate') {
      document.title = 'Operate · Agentry';
      await operateView();
    } else {
      document.title = searchParams.get('q') ? `${searchParams.get('q')} · Agentry` : 'Agentry registry';
      await searchView(searchParams, navigate);
    }
  } catch (error) {
    if (stillCurrent(turn)) setStatus(`Failed: ${error.message}`);
  }
}

/** Same-origin links to the app's own pages stay in the app. */
document.addEventListener('click', (event) => {
  if (
    event.defaultPrevented ||
    event.button !== 0 ||
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    event.altKey
  )
    return;
  const link = event.target.closest?.('a[href]');
  if (!link || link.hasAttribute('download') || link.target) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin) return;
  if (url.pathname !== '/' && !url.pathname.startsWith('/app/') && url.pathname !== '/app') return;
  if (url.pathname === location.pathname && url.search === location.search && url.hash) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', render);

function showTokenState() {
  $('token-state').textContent = credentials.token()
    ? 'A token is in use in this tab.'
    : 'No token: anonymous.';
}
$('token-save').addEventListener('click', () => {
  credentials.setToken($('token').value.trim());
  $('token').value = '';
  showTokenState();
  render();
});
$('token-clear').addEventListener('click', () => {
  credentials.setToken('');
  showTokenState();
  render();
});
showTokenState();
render();
